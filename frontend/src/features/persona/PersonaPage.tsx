import { Suspense, useState } from 'react';
import { useSWRConfig } from 'swr';
import { statusOf } from '../../api/client';
import { KnowledgePanel } from '../knowledge';
import { LearningPanel } from '../learning';
import { PersonaEditor } from './PersonaEditor';
import { PERSONA_MESSAGES } from './messages';
import { PERSONA_VERSIONS_KEY, usePersona } from './usePersona';
import './persona.css';

/**
 * The Persona section: who the persona is and how it speaks, its stored
 * versions, a preview of a reply, and what it learned from its editor.
 */
export default function PersonaPage() {
  const persona = usePersona();
  const { mutate } = useSWRConfig();
  // A lesson promoted into the voice is a new version: the form is loaded again from it.
  const [promotions, setPromotions] = useState(0);
  // No persona stored yet (404): the editor starts empty.
  const none = statusOf(persona.error) === 404;
  return (
    <section className="settings-panel persona-panel" aria-labelledby="persona-title" data-testid="persona-panel">
      <h2 id="persona-title" className="settings-title">
        Persona
      </h2>
      {persona.error && !none ? (
        <p className="banner banner-error" role="alert">
          {PERSONA_MESSAGES.loadFailed}
        </p>
      ) : !persona.data && !none ? (
        <p className="muted">Reading the ledger…</p>
      ) : (
        <PersonaEditor
          key={promotions}
          stored={persona.data ?? null}
          onSaved={(saved) => void persona.mutate(saved, { revalidate: false })}
        />
      )}
      <LearningPanel
        onPromoted={(promoted) => {
          void persona.mutate(promoted, { revalidate: false });
          void mutate(PERSONA_VERSIONS_KEY);
          setPromotions((n) => n + 1);
        }}
      />
      <Suspense fallback={null}>
        <KnowledgePanel />
      </Suspense>
    </section>
  );
}
