import { useId, useState, type FormEvent } from 'react';
import { saveSettings } from './api';
import { ApiError, statusOf } from '../../api/client';
import type { Settings } from '../../api/types';
import { useSettings } from './useSettings';
import { usePlatforms } from '../../api/usePlatforms';
import {
  accountNote,
  ACCOUNT_FIELDS,
  CAP_FIELDS,
  CAP_RANGES,
  fieldKey,
  fromForm,
  LEARNING_NUMBERS,
  LIST_FIELDS,
  targetsHint,
  toForm,
  type CapField,
  type LearningNumber,
  type ListField,
  type SettingsForm,
} from './settingsForm';

export const SETTINGS_MESSAGES = {
  saved: 'Settings saved: the next scans use them',
  saveFailed: 'Failed to save settings',
  loadFailed: 'Failed to fetch settings',
} as const;

const LIST_LABELS: Record<ListField, { label: string; hint: string }> = {
  target_usernames: {
    label: 'Targeted accounts',
    // Shown as targetsHint, which names each running platform's way of writing an account.
    hint: targetsHint([]),
  },
  search_topics: { label: 'Search topics', hint: 'Words or phrases the conversation scan searches for, one a line; none, no search.' },
  blocked_authors: {
    label: 'Blocked authors',
    hint: 'Accounts never answered, one a line, by handle or id; an opt-out adds its author here.',
  },
  blocked_phrases: { label: 'Blocked phrases', hint: 'A post holding one, look-alike letters included, is skipped; one a line.' },
};

const CAP_LABELS: Record<CapField, string> = {
  per_conversation: 'Replies per conversation',
  per_author_per_day: 'Replies per author a day',
  sends_per_3h: 'Sends per 3 hours',
  sends_per_day: 'Sends per day',
  near_duplicate: 'Near-duplicate threshold',
  context_depth: 'Context depth',
  min_review_score: 'Minimum review score',
  drafts_per_hour: 'Drafts per hour',
};

/** What a cap's label alone does not say. */
const CAP_HINTS: Partial<Record<CapField, string>> = {
  context_depth: 'How many posts up the thread a draft reads, 1 to 20.',
  min_review_score:
    'Drafts the judge scores below it go to Skipped with its reason (Draft anyway still works); 0 to 5, 0 is off.',
  drafts_per_hour:
    'The most first drafts in any hour, of every source; the posts beyond wait undrafted and are drafted in order as the hour allows.',
};

/** The "Targets and topics" panel: whom the persona answers, what it searches, whom it never answers, and its caps. */
export function SettingsPanel() {
  const settings = useSettings();
  // Kept here: a save remounts the editor with the stored settings.
  const [saved, setSaved] = useState(false);
  return (
    <section className="settings-panel" aria-labelledby="settings-title" data-testid="settings-panel">
      <h2 id="settings-title" className="settings-title">
        Targets and topics
      </h2>
      {settings.error ? (
        <p className="banner banner-error" role="alert">
          {SETTINGS_MESSAGES.loadFailed}
        </p>
      ) : !settings.data ? (
        <p className="muted">Reading the ledger…</p>
      ) : (
        <SettingsEditor
          // A fresh editor for each stored version, so a save shows the settings as normalised.
          key={JSON.stringify(settings.data)}
          stored={settings.data}
          onSaved={(stored) => {
            setSaved(true);
            void settings.mutate(stored, { revalidate: false });
          }}
          onEdit={() => setSaved(false)}
        />
      )}
      <p aria-live="polite" className="settings-saved">
        {saved && (
          <span role="status" data-testid="settings-saved">
            {SETTINGS_MESSAGES.saved}
          </span>
        )}
      </p>
    </section>
  );
}

interface EditorProps {
  stored: Settings;
  onSaved: (saved: Settings) => void;
  /** Any change or new attempt: the last "saved" no longer applies. */
  onEdit: () => void;
}

function SettingsEditor({ stored, onSaved, onEdit }: EditorProps) {
  const ids = useId();
  // A platform's own options show only while it runs; hidden, a save keeps them as stored.
  const platforms = usePlatforms();
  const withOptions = platforms.filter((p) => p.running && p.options.length > 0);
  const [form, setFormState] = useState<SettingsForm>(() => toForm(stored));
  const [saving, setSaving] = useState(false);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  function setForm(next: SettingsForm) {
    setFormState(next);
    onEdit();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    onEdit();
    setFailure(null);
    setFieldError(null);
    const out = fromForm(form);
    if ('error' in out) {
      setFieldError(out.error);
      return;
    }
    setSaving(true);
    try {
      onSaved(await saveSettings(out.settings));
    } catch (err) {
      // A refused session needs no message: request() already left for the login.
      if (statusOf(err) === 401) return;
      if (err instanceof ApiError && err.field) {
        setFieldError({ field: fieldKey(err.field) ?? err.field, message: err.serverMessage ?? err.message });
      } else {
        const detail = err instanceof ApiError ? (err.serverMessage ?? err.message) : String(err);
        setFailure(`${SETTINGS_MESSAGES.saveFailed}: ${detail}`);
      }
    } finally {
      setSaving(false);
    }
  }

  /** The error shown beside the field named key, and the attributes that tie it to its input. */
  function errorFor(key: string) {
    const mine = fieldError && (fieldError.field === key || fieldKey(fieldError.field) === key) ? fieldError.message : null;
    const errorId = `${ids}-${key}-error`;
    return {
      node: mine && (
        <p id={errorId} className="field-error" role="alert" data-testid={`settings-error-${key}`}>
          {mine}
        </p>
      ),
      attrs: { 'aria-invalid': mine ? true : undefined, 'aria-describedby': mine ? errorId : `${ids}-${key}-hint` },
    };
  }

  return (
    <form className="settings-form" onSubmit={(e) => void onSubmit(e)} noValidate>
      <div className="settings-lists">
        {LIST_FIELDS.map((f) => {
          const err = errorFor(f);
          const accounts = ACCOUNT_FIELDS[f];
          // What the stored entries resolved to: an id found for a handle, the handle seen with an id.
          const notes = accounts ? stored[accounts].map(accountNote).filter((n): n is string => n !== null) : [];
          return (
            <div className="field" key={f}>
              <label htmlFor={`${ids}-${f}`}>{LIST_LABELS[f].label}</label>
              <textarea
                id={`${ids}-${f}`}
                rows={4}
                value={form.lists[f]}
                onChange={(e) => setForm({ ...form, lists: { ...form.lists, [f]: e.target.value } })}
                spellCheck={false}
                {...err.attrs}
              />
              <p id={`${ids}-${f}-hint`} className="field-hint">
                {f === 'target_usernames' ? targetsHint(platforms) : LIST_LABELS[f].hint}
              </p>
              {notes.length > 0 && (
                <ul className="settings-accounts field-hint" data-testid={`settings-accounts-${f}`}>
                  {notes.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              )}
              {err.node}
            </div>
          );
        })}
      </div>
      <fieldset className="settings-caps">
        <legend>Caps</legend>
        {CAP_FIELDS.map((f) => {
          const key = `caps.${f}`;
          const err = errorFor(key);
          return (
            <div className="field" key={f}>
              <label htmlFor={`${ids}-${f}`}>{CAP_LABELS[f]}</label>
              <input
                id={`${ids}-${f}`}
                type="number"
                inputMode={CAP_RANGES[f].step < 1 ? 'decimal' : 'numeric'}
                min={CAP_RANGES[f].min}
                max={CAP_RANGES[f].max}
                step={CAP_RANGES[f].step}
                value={form.caps[f]}
                onChange={(e) => setForm({ ...form, caps: { ...form.caps, [f]: e.target.value } })}
                {...err.attrs}
              />
              {CAP_HINTS[f] && (
                <p id={`${ids}-${key}-hint`} className="field-hint">
                  {CAP_HINTS[f]}
                </p>
              )}
              {err.node}
            </div>
          );
        })}
        <p className="field-hint settings-caps-hint">
          Approvals beyond the send caps wait, shown &ldquo;queued: cap&rdquo;, and go out in approval order when the window
          allows. An empty cap takes its default.
        </p>
      </fieldset>
      <fieldset className="settings-caps settings-learning" data-testid="settings-learning">
        <legend>Learning</legend>
        <div className="field-inline settings-learning-enabled">
          <input
            id={`${ids}-learning-enabled`}
            type="checkbox"
            checked={form.learning.enabled}
            onChange={(e) => setForm({ ...form, learning: { ...form.learning, enabled: e.target.checked } })}
          />
          <label htmlFor={`${ids}-learning-enabled`}>Learn from past decisions</label>
        </div>
        {(Object.keys(LEARNING_NUMBERS) as LearningNumber[]).map((f) => {
          const key = `learning.${f}`;
          const err = errorFor(key);
          const { label, min, max } = LEARNING_NUMBERS[f];
          return (
            <div className="field" key={f}>
              <label htmlFor={`${ids}-learning-${f}`}>{label}</label>
              <input
                id={`${ids}-learning-${f}`}
                type="number"
                inputMode="numeric"
                min={min}
                max={max}
                step={1}
                value={form.learning.numbers[f]}
                onChange={(e) =>
                  setForm({ ...form, learning: { ...form.learning, numbers: { ...form.learning.numbers, [f]: e.target.value } } })
                }
                {...err.attrs}
              />
              <p id={`${ids}-${key}-hint`} className="field-hint">
                {min} to {max}.
              </p>
              {err.node}
            </div>
          );
        })}
        <p className="field-hint settings-caps-hint">
          Each draft gets the most similar replies you approved as examples, and the lessons drawn from your edits and
          rejections (see Persona, &ldquo;What it learned&rdquo;). Off, the prompts are exactly as without learning.
        </p>
      </fieldset>
      {withOptions.map((p) => (
        <fieldset
          key={p.name}
          className="settings-caps settings-platform"
          data-testid={`settings-platform-${p.name}`}
        >
          <legend>{p.label}</legend>
          {p.options.map((o) => {
            const key = `platforms.${p.name}.${o.key}`;
            const err = errorFor(key);
            const on = form.platforms[p.name]?.[o.key] ?? false;
            return (
              <div key={o.key}>
                <div className="field-inline settings-platform-option">
                  <input
                    id={`${ids}-${key}`}
                    type="checkbox"
                    checked={on}
                    onChange={(e) =>
                      setForm({
                        ...form,
                        platforms: { ...form.platforms, [p.name]: { ...form.platforms[p.name], [o.key]: e.target.checked } },
                      })
                    }
                    {...err.attrs}
                  />
                  <label htmlFor={`${ids}-${key}`}>{o.label}</label>
                </div>
                <p id={`${ids}-${key}-hint`} className="field-hint settings-caps-hint">
                  {o.hint}
                </p>
                {err.node}
              </div>
            );
          })}
        </fieldset>
      ))}
      <div className="settings-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          Save Settings
        </button>
      </div>
      {failure && (
        <p className="banner banner-error" role="alert" data-testid="settings-failed">
          {failure}
        </p>
      )}
    </form>
  );
}
