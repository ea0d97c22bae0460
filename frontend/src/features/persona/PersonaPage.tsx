import { Suspense } from 'react';
import { statusOf } from '../../api/client';
import { KnowledgePanel } from '../knowledge';
import { PersonaEditor } from './PersonaEditor';
import { PERSONA_MESSAGES } from './messages';
import { usePersona } from './usePersona';
import './persona.css';

/** The Persona section: who the persona is and how it speaks, its stored versions, and a preview of a reply. */
export default function PersonaPage() {
  const persona = usePersona();
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
          stored={persona.data ?? null}
          onSaved={(saved) => void persona.mutate(saved, { revalidate: false })}
        />
      )}
      <Suspense fallback={null}>
        <KnowledgePanel />
      </Suspense>
    </section>
  );
}
