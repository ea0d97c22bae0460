import { useId, useState, type FormEvent } from 'react';
import { previewPersona, savePersona } from './api';
import { ApiError, statusOf } from '../../api/client';
import type { Persona, PersonaInput } from '../../api/types';
import { CharCounter } from '../../components/CharCounter';
import {
  charCount,
  errorPlace,
  fromPersonaForm,
  savedMessage,
  SHOWN_FIELDS,
  toPersonaForm,
  VOICE_LIMIT,
  type PersonaForm,
  type PersonaList,
} from './personaForm';
import { describedBy, type FieldError } from './fieldError';
import { PERSONA_MESSAGES } from './messages';
import { PersonaListEditor } from './PersonaListEditor';
import { PersonaPreview, type PreviewState } from './PersonaPreview';
import { PersonaVersions } from './PersonaVersions';
import { usePersonaVersions } from './usePersona';

const EMPTY_PERSONA: PersonaInput = { name: '', bio: '', voice: '', examples: [], avoid_topics: [] };

/** The lists, in the form's order. */
const LISTS: readonly PersonaList[] = ['examples', 'avoid_topics'];

interface Props {
  /** The newest stored version, or null when none is stored. */
  stored: Persona | null;
  onSaved: (saved: Persona) => void;
}

/** Where an error shows: the field, the list entry when it names one, and the message. */
interface PlacedError {
  field: string;
  row?: number;
  message: string;
}

/** The persona's form: its fields and lists, saved as a new version; beside it the preview and the versions. */
export function PersonaEditor({ stored, onSaved }: Props) {
  const ids = useId();
  const versions = usePersonaVersions();
  const [form, setFormState] = useState<PersonaForm>(() => toPersonaForm(stored ?? EMPTY_PERSONA));
  // The version the form was loaded from, when it was loaded from one.
  const [basedOn, setBasedOn] = useState<number | null>(stored?.version ?? null);
  const [saving, setSaving] = useState(false);
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const [fieldError, setFieldError] = useState<PlacedError | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [postText, setPostText] = useState('');
  const [preview, setPreview] = useState<PreviewState>({ kind: 'idle' });

  function setForm(next: PersonaForm) {
    setFormState(next);
    setSavedVersion(null);
  }

  function place(path: string, message: string): PlacedError {
    return { ...errorPlace(path, form), message };
  }

  /** The persona to send, or null after showing the limit it breaks beside its field. */
  function checked(): PersonaInput | null {
    const out = fromPersonaForm(form);
    if ('error' in out) {
      setFieldError(place(out.error.field, out.error.message));
      return null;
    }
    return out.persona;
  }

  /** Shows an error answer: beside the field it names, else as a banner (onOther). */
  function showError(err: unknown, onOther: (detail: string) => void) {
    // A refused session needs no message: request() already left for the login.
    if (statusOf(err) === 401) return;
    if (err instanceof ApiError && err.field && SHOWN_FIELDS.includes(errorPlace(err.field, form).field)) {
      setFieldError(place(err.field, err.serverMessage ?? err.message));
    } else {
      onOther(err instanceof ApiError ? (err.serverMessage ?? err.message) : String(err));
    }
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setSavedVersion(null);
    setFailure(null);
    setFieldError(null);
    const persona = checked();
    if (!persona) return;
    setSaving(true);
    try {
      const saved = await savePersona(persona);
      setFormState(toPersonaForm(saved));
      setBasedOn(saved.version);
      setSavedVersion(saved.version);
      onSaved(saved);
      void versions.mutate();
    } catch (err) {
      showError(err, (detail) => setFailure(`${PERSONA_MESSAGES.saveFailed}: ${detail}`));
    } finally {
      setSaving(false);
    }
  }

  async function runPreview() {
    setFieldError(null);
    setFailure(null);
    const persona = checked();
    if (!persona) {
      setPreview({ kind: 'idle' });
      return;
    }
    setPreview({ kind: 'waiting' });
    try {
      setPreview({ kind: 'done', answer: await previewPersona(postText, persona) });
    } catch (err) {
      if (statusOf(err) === 503) {
        setPreview({ kind: 'timeout', detail: err instanceof ApiError ? err.serverMessage : undefined });
        return;
      }
      setPreview({ kind: 'idle' });
      showError(err, (detail) => setPreview({ kind: 'failed', text: `${PERSONA_MESSAGES.previewFailed}: ${detail}` }));
    }
  }

  function load(version: Persona) {
    setForm(toPersonaForm(version));
    setBasedOn(version.version);
    setFieldError(null);
    setFailure(null);
  }

  /** The error shown beside a field (or one entry of a list), and the attributes that tie it to its input. */
  function errorFor(field: string, row?: number): FieldError {
    const mine = fieldError && fieldError.field === field && fieldError.row === row ? fieldError.message : null;
    const key = row === undefined ? field : `${field}-${row}`;
    const errorId = `${ids}-${key}-error`;
    return {
      node: mine && (
        <p id={errorId} className="field-error" role="alert" data-testid={`persona-error-${key}`}>
          {mine}
        </p>
      ),
      invalid: mine ? true : undefined,
      errorId: mine ? errorId : undefined,
    };
  }

  const nameErr = errorFor('name');
  const bioErr = errorFor('bio');
  const voiceErr = errorFor('voice');
  const postErr = errorFor('post_text');
  const newest = stored?.version ?? null;

  return (
    <div className="persona-body">
      <form className="settings-form persona-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        {basedOn !== null && basedOn !== newest && (
          <p className="persona-loaded" role="status" data-testid="persona-loaded">
            Editing a copy of version {basedOn}: saving stores it as a new version.
          </p>
        )}
        <div className="persona-fields">
          <div className="field">
            <label htmlFor={`${ids}-name`}>Name</label>
            <input
              id={`${ids}-name`}
              type="text"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
              aria-invalid={nameErr.invalid}
              aria-describedby={nameErr.errorId}
              data-testid="persona-name"
            />
            {nameErr.node}
          </div>
          <div className="field">
            <label htmlFor={`${ids}-bio`}>Bio</label>
            <textarea
              id={`${ids}-bio`}
              rows={2}
              value={form.bio}
              onChange={(e) => setForm({ ...form, bio: e.target.value })}
              aria-invalid={bioErr.invalid}
              aria-describedby={bioErr.errorId}
              data-testid="persona-bio"
            />
            {bioErr.node}
          </div>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-voice`}>Voice</label>
          <textarea
            id={`${ids}-voice`}
            rows={8}
            value={form.voice}
            onChange={(e) => setForm({ ...form, voice: e.target.value })}
            aria-invalid={voiceErr.invalid}
            aria-describedby={describedBy(`${ids}-voice-hint`, `${ids}-voice-count`, voiceErr.errorId)}
            data-testid="persona-voice"
          />
          <p id={`${ids}-voice-hint`} className="field-hint">
            How the persona speaks: the writer&apos;s instructions, up to {VOICE_LIMIT.toLocaleString('en')} characters.
          </p>
          <CharCounter
            length={charCount(form.voice)}
            id={`${ids}-voice-count`}
            limit={VOICE_LIMIT}
            label="Voice length"
            testId="voice-counter"
          />
          {voiceErr.node}
        </div>
        <div className="persona-lists">
          {LISTS.map((field) => (
            <PersonaListEditor
              key={field}
              field={field}
              list={form[field]}
              onChange={(list) => setForm({ ...form, [field]: list })}
              errorFor={errorFor}
              ids={ids}
            />
          ))}
        </div>
        <div className="settings-actions">
          <button type="submit" className="btn btn-primary" disabled={saving} data-testid="persona-save">
            {saving ? 'Saving…' : 'Save Persona'}
          </button>
        </div>
        <p aria-live="polite" className="settings-saved">
          {savedVersion !== null && (
            <span role="status" data-testid="persona-saved">
              {savedMessage(savedVersion)}
            </span>
          )}
        </p>
        {failure && (
          <p className="banner banner-error" role="alert" data-testid="persona-failed">
            {failure}
          </p>
        )}
      </form>

      <PersonaPreview
        ids={ids}
        postText={postText}
        setPostText={setPostText}
        preview={preview}
        runPreview={() => void runPreview()}
        postErr={postErr}
      />

      <PersonaVersions ids={ids} basedOn={basedOn} newest={newest} onLoad={load} />
    </div>
  );
}
