import { statusOf } from '../../api/client';
import type { Persona } from '../../api/types';
import { formatTimestamp } from '../../lib/time';
import { PERSONA_MESSAGES } from './messages';
import { usePersonaVersions } from './usePersona';

interface Props {
  ids: string;
  /** The version the form was loaded from, if any. */
  basedOn: number | null;
  /** The version in use, if any. */
  newest: number | null;
  /** Loads a version into the form. */
  onLoad: (version: Persona) => void;
}

/** The stored versions, newest first, each loaded into the form with a click. */
export function PersonaVersions({ ids, basedOn, newest, onLoad }: Props) {
  const versions = usePersonaVersions();
  const shownVersions = versions.data?.versions ?? [];
  return (
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
                onClick={() => onLoad(v)}
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
  );
}
