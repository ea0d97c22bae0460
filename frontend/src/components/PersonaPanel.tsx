import { useId, useState, type FormEvent } from 'react';
import { previewPersona, savePersona } from '../api/admin';
import { ApiError, statusOf } from '../api/client';
import type { Persona, PersonaInput, PersonaPreview } from '../api/types';
import { usePersona, usePersonaVersions } from '../api/usePersona';
import { weightedLength } from '../lib/length';
import { moved, withAdded, withItem, withoutItem } from '../lib/listEdit';
import {
  AVOID_TOPIC_LIMIT,
  charCount,
  errorPlace,
  EXAMPLE_LIMIT,
  fromPersonaForm,
  MAX_AVOID_TOPICS,
  MAX_EXAMPLES,
  toPersonaForm,
  VOICE_LIMIT,
  savedMessage,
  SHOWN_FIELDS,
  timeoutMessage,
  type PersonaForm,
  type PersonaList,
} from '../lib/personaForm';
import { formatTimestamp } from '../lib/time';
import { CharCounter } from './CharCounter';

export const PERSONA_MESSAGES = {
  saveFailed: 'Failed to save the persona',
  loadFailed: 'Failed to fetch the persona',
  versionsFailed: 'Failed to fetch the persona versions',
  previewWaiting: 'The writer is drafting a preview…',
  previewTimeout: 'No worker answered in time, so there is no preview. Try again in a moment.',
  previewFailed: 'Preview failed',
} as const;

const EMPTY: PersonaInput = { name: '', bio: '', voice: '', examples: [], avoid_topics: [] };

interface Props {
  /** When the server refuses the session. */
  onUnauthorized: () => void;
}

/** The "Persona" panel: who the persona is and how it speaks, its stored versions, and a preview of a reply. */
export function PersonaPanel({ onUnauthorized }: Props) {
  const persona = usePersona();
  // No persona stored yet (404): the editor starts empty.
  const none = statusOf(persona.error) === 404;
  return (
    <details className="settings-panel persona-panel" data-testid="persona-panel">
      <summary className="settings-title">Persona</summary>
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
          onUnauthorized={onUnauthorized}
        />
      )}
    </details>
  );
}

interface EditorProps extends Props {
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

type PreviewState =
  | { kind: 'idle' }
  | { kind: 'waiting' }
  | { kind: 'done'; answer: PersonaPreview }
  | { kind: 'timeout'; detail?: string }
  | { kind: 'failed'; text: string };

const LIST_TEXT: Record<PersonaList, { label: string; hint: string; add: string; item: string }> = {
  examples: {
    label: 'Examples',
    hint: `Replies in the persona's voice, up to ${MAX_EXAMPLES}, each at most ${EXAMPLE_LIMIT} weighted characters.`,
    add: 'Add example',
    item: 'Example',
  },
  avoid_topics: {
    label: 'Topics to avoid',
    hint: `Subjects the persona never jokes about, up to ${MAX_AVOID_TOPICS}, each one line of at most ${AVOID_TOPIC_LIMIT} characters.`,
    add: 'Add topic',
    item: 'Topic',
  },
};

function PersonaEditor({ stored, onSaved, onUnauthorized }: EditorProps) {
  const ids = useId();
  const versions = usePersonaVersions();
  const [form, setFormState] = useState<PersonaForm>(() => toPersonaForm(stored ?? EMPTY));
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
    if (statusOf(err) === 401) {
      onUnauthorized();
    } else if (err instanceof ApiError && err.field && SHOWN_FIELDS.includes(errorPlace(err.field, form).field)) {
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
  function errorFor(field: string, row?: number) {
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

  /** The ids that describe an input: its hint or counter, and its error when it has one. */
  function describedBy(...parts: (string | undefined)[]): string | undefined {
    const joined = parts.filter(Boolean).join(' ');
    return joined || undefined;
  }

  function listEditor(field: PersonaList) {
    const text = LIST_TEXT[field];
    const list = form[field];
    const listErr = errorFor(field);
    const full = list.length >= (field === 'examples' ? MAX_EXAMPLES : MAX_AVOID_TOPICS);
    return (
      <fieldset className="persona-list" data-testid={`persona-${field}`}>
        <legend>{text.label}</legend>
        <p id={`${ids}-${field}-hint`} className="field-hint">
          {text.hint}
        </p>
        {list.length > 0 && (
          <ol className="persona-items">
            {list.map((value, i) => {
              const err = errorFor(field, i);
              const inputId = `${ids}-${field}-${i}`;
              const countId = `${inputId}-count`;
              const label = `${text.item} ${i + 1}`;
              return (
                // Rows have no identity beyond their place; a removal re-renders the rest.
                <li key={i} className="persona-item" data-testid={`persona-${field}-item`}>
                  <div className="field">
                    <label htmlFor={inputId} className="visually-hidden">
                      {label}
                    </label>
                    {field === 'examples' ? (
                      <textarea
                        id={inputId}
                        rows={2}
                        value={value}
                        onChange={(e) => setForm({ ...form, [field]: withItem(list, i, e.target.value) })}
                        aria-invalid={err.invalid}
                        aria-describedby={describedBy(countId, err.errorId)}
                      />
                    ) : (
                      <input
                        id={inputId}
                        type="text"
                        value={value}
                        onChange={(e) => setForm({ ...form, [field]: withItem(list, i, e.target.value) })}
                        aria-invalid={err.invalid}
                        aria-describedby={err.errorId}
                      />
                    )}
                    {field === 'examples' && (
                      <CharCounter length={weightedLength(value)} id={countId} label={`${label} length`} testId="example-counter" />
                    )}
                    {err.node}
                  </div>
                  <div className="persona-item-actions">
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      disabled={i === 0}
                      onClick={() => setForm({ ...form, [field]: moved(list, i, -1) })}
                      aria-label={`Move ${label.toLowerCase()} up`}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      disabled={i === list.length - 1}
                      onClick={() => setForm({ ...form, [field]: moved(list, i, 1) })}
                      aria-label={`Move ${label.toLowerCase()} down`}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      onClick={() => setForm({ ...form, [field]: withoutItem(list, i) })}
                      aria-label={`Remove ${label.toLowerCase()}`}
                    >
                      Remove
                    </button>
                  </div>
                </li>
              );
            })}
          </ol>
        )}
        <button
          type="button"
          className="btn btn-ghost persona-add"
          disabled={full}
          onClick={() => setForm({ ...form, [field]: withAdded(list, '') })}
          data-testid={`persona-add-${field}`}
        >
          {text.add}
        </button>
        {listErr.node}
      </fieldset>
    );
  }

  const nameErr = errorFor('name');
  const bioErr = errorFor('bio');
  const voiceErr = errorFor('voice');
  const postErr = errorFor('post_text');
  const shownVersions = versions.data?.versions ?? [];
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
          {listEditor('examples')}
          {listEditor('avoid_topics')}
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

      <section className="persona-preview" aria-labelledby={`${ids}-preview-title`}>
        <h3 id={`${ids}-preview-title`} className="persona-subtitle">
          Preview
        </h3>
        <div className="field">
          <label htmlFor={`${ids}-post`}>A post to answer</label>
          <textarea
            id={`${ids}-post`}
            rows={3}
            value={postText}
            onChange={(e) => setPostText(e.target.value)}
            aria-invalid={postErr.invalid}
            aria-describedby={describedBy(`${ids}-post-hint`, postErr.errorId)}
            data-testid="preview-post"
          />
          <p id={`${ids}-post-hint`} className="field-hint">
            Drafted with the form as it stands, saved or not; no post is created.
          </p>
          {postErr.node}
        </div>
        <div className="settings-actions">
          <button
            type="button"
            className="btn btn-ghost"
            disabled={preview.kind === 'waiting' || postText.trim() === ''}
            onClick={() => void runPreview()}
            data-testid="preview-run"
          >
            Preview
          </button>
        </div>
        <div aria-live="polite">
          {preview.kind === 'waiting' && (
            <p className="persona-waiting" role="status" data-testid="preview-waiting">
              <span className="spinner" aria-hidden="true" />
              {PERSONA_MESSAGES.previewWaiting}
            </p>
          )}
          {preview.kind === 'done' && (
            <figure className="persona-answer" data-testid="preview-answer">
              <figcaption className="persona-answer-head">
                Reply{' '}
                {preview.answer.category && (
                  <span className="badge badge-sin" data-testid="preview-category">
                    {preview.answer.category}
                  </span>
                )}
              </figcaption>
              <blockquote className="review-original" data-testid="preview-response">
                {preview.answer.response}
              </blockquote>
            </figure>
          )}
        </div>
        {preview.kind === 'timeout' && (
          <p className="banner banner-error" role="alert" data-testid="preview-timeout">
            {preview.detail ? timeoutMessage(preview.detail) : PERSONA_MESSAGES.previewTimeout}
          </p>
        )}
        {preview.kind === 'failed' && (
          <p className="banner banner-error" role="alert" data-testid="preview-failed">
            {preview.text}
          </p>
        )}
      </section>

      <section className="persona-versions" aria-labelledby={`${ids}-versions-title`}>
        <h3 id={`${ids}-versions-title`} className="persona-subtitle">
          Versions
        </h3>
        {versions.error && statusOf(versions.error) !== 404 ? (
          <p className="banner banner-error" role="alert">
            {PERSONA_MESSAGES.versionsFailed}
          </p>
        ) : !versions.data && !versions.error ? (
          <p className="muted">Reading the ledger…</p>
        ) : shownVersions.length === 0 ? (
          <p className="muted">No version stored yet.</p>
        ) : (
          <>
            <p className="field-hint">Newest first. Choose one to load it into the form; saving it makes it the newest.</p>
            <ol className="persona-version-list" data-testid="persona-versions">
              {shownVersions.map((v) => (
                <li key={v.version} data-testid="persona-version-row" data-version={v.version}>
                  <button
                    type="button"
                    className="link-button"
                    aria-current={v.version === basedOn ? 'true' : undefined}
                    onClick={() => load(v)}
                  >
                    Version {v.version}
                  </button>{' '}
                  <time dateTime={v.updated_at} className="muted">
                    {formatTimestamp(v.updated_at)}
                  </time>
                  {v.version === newest && <span className="muted"> (in use)</span>}
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </div>
  );
}
