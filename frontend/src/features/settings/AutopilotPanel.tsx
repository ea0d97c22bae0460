import { useId, useState, type FormEvent } from 'react';
import { saveSettings } from './api';
import { ApiError } from '../../api/client';
import type { Settings } from '../../api/types';
import { useSettings } from './useSettings';
import {
  AUTOPILOT_NUMBERS,
  fromAutopilotForm,
  SINS,
  toAutopilotForm,
  type AutopilotForm,
  type AutopilotNumber,
} from './autopilotForm';

export const AUTOPILOT_MESSAGES = {
  saved: 'Autopilot saved: it applies to drafts from now on',
  saveFailed: 'Failed to save the autopilot',
  loadFailed: 'Failed to fetch settings',
} as const;

/**
 * The "Autopilot" panel: the explicit rules by which a new draft is
 * approved without a person, sent after a grace window in which it may be
 * cancelled. It saves the stored settings with its rules.
 */
export function AutopilotPanel() {
  const settings = useSettings();
  const [stored, setStored] = useState<Settings | null>(null);
  const [saved, setSaved] = useState(false);
  const current = stored ?? settings.data;
  return (
    <details className="settings-panel" data-testid="autopilot-panel">
      <summary className="settings-title">Autopilot</summary>
      {settings.error ? (
        <p className="banner banner-error" role="alert">
          {AUTOPILOT_MESSAGES.loadFailed}
        </p>
      ) : !current ? (
        <p className="muted">Reading the ledger…</p>
      ) : (
        <AutopilotEditor
          key={JSON.stringify(current.autopilot)}
          stored={current}
          onSaved={(s) => {
            setStored(s);
            setSaved(true);
          }}
          onEdit={() => setSaved(false)}
        />
      )}
      <p aria-live="polite" className="settings-saved">
        {saved && (
          <span role="status" data-testid="autopilot-saved">
            {AUTOPILOT_MESSAGES.saved}
          </span>
        )}
      </p>
    </details>
  );
}

interface EditorProps {
  stored: Settings;
  onSaved: (saved: Settings) => void;
  onEdit: () => void;
}

function AutopilotEditor({ stored, onSaved, onEdit }: EditorProps) {
  const ids = useId();
  const [form, setFormState] = useState<AutopilotForm>(() => toAutopilotForm(stored.autopilot));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<{ field: string; message: string } | null>(null);

  function setForm(next: AutopilotForm) {
    setFormState(next);
    onEdit();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    onEdit();
    setError(null);
    const out = fromAutopilotForm(form);
    if ('error' in out) {
      setError(out.error);
      return;
    }
    setSaving(true);
    try {
      // The other settings as stored: only the rules change here.
      const { target_usernames, search_topics, blocked_authors, blocked_phrases, caps } = stored;
      onSaved(await saveSettings({ target_usernames, search_topics, blocked_authors, blocked_phrases, caps, autopilot: out.autopilot }));
    } catch (err) {
      // A 401 is handled once for every call (api/client.ts).
      if (err instanceof ApiError && err.field) setError({ field: err.field, message: err.serverMessage ?? err.message });
      else setError({ field: '', message: `${AUTOPILOT_MESSAGES.saveFailed}: ${err instanceof ApiError ? (err.serverMessage ?? err.message) : String(err)}` });
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="settings-form" onSubmit={(e) => void onSubmit(e)} noValidate>
      <p className="field-hint">
        A draft that becomes pending is approved without you only when every rule holds, and waits the grace before it is
        sent: cancel it from Waiting to send. Each one is explained in the post&rsquo;s history.
      </p>
      <label>
        <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} /> Enabled
      </label>
      <div className="field">
        <label htmlFor={`${ids}-authors`}>Trusted authors</label>
        <textarea
          id={`${ids}-authors`}
          rows={3}
          value={form.authors}
          spellCheck={false}
          onChange={(e) => setForm({ ...form, authors: e.target.value })}
        />
        <p className="field-hint">Handles, one a line.</p>
      </div>
      <label>
        <input type="checkbox" checked={form.any_author} onChange={(e) => setForm({ ...form, any_author: e.target.checked })} /> Any author
      </label>
      <fieldset className="settings-caps">
        <legend>Categories (none ticked: any)</legend>
        {SINS.map((sin) => (
          <label key={sin}>
            <input
              type="checkbox"
              checked={form.categories.includes(sin)}
              onChange={(e) =>
                setForm({
                  ...form,
                  categories: e.target.checked ? [...form.categories, sin] : form.categories.filter((c) => c !== sin),
                })
              }
            />{' '}
            {sin}
          </label>
        ))}
      </fieldset>
      <fieldset className="settings-caps">
        <legend>Limits</legend>
        {(Object.keys(AUTOPILOT_NUMBERS) as AutopilotNumber[]).map((f) => (
          <div className="field" key={f}>
            <label htmlFor={`${ids}-${f}`}>{AUTOPILOT_NUMBERS[f].label}</label>
            <input
              id={`${ids}-${f}`}
              type="number"
              inputMode="numeric"
              min={AUTOPILOT_NUMBERS[f].min}
              max={AUTOPILOT_NUMBERS[f].max}
              step={1}
              value={form.numbers[f]}
              aria-invalid={error?.field === `autopilot.${f}` ? true : undefined}
              onChange={(e) => setForm({ ...form, numbers: { ...form.numbers, [f]: e.target.value } })}
            />
          </div>
        ))}
      </fieldset>
      {error && (
        <p className="field-error" role="alert" data-testid="autopilot-error">
          {error.message}
        </p>
      )}
      <div className="settings-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          Save Autopilot
        </button>
      </div>
    </form>
  );
}
