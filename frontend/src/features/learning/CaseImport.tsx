import { useId, useState, type FormEvent } from 'react';
import { useSWRConfig } from 'swr';
import { errorDetail, statusOf } from '../../api/client';
import type { CaseImport as ImportAnswer } from '../../api/types';
import { importCases } from './api';
import { importSummary, isCasesKey, SKIPPED_SHOWN } from './learning';

/** What an import failed with, in words: the limits for a 413. */
function importFailure(err: unknown): string {
  if (statusOf(err) === 413) return 'The file is too large: at most 10,000 lines and 5 MB. Nothing was imported.';
  return `The import failed: ${errorDetail(err)}`;
}

/**
 * The import of past replies: a file of JSON lines, each
 * {"mention": "...", "reply": "...", "platform": "x"}, reported as the lines
 * imported and each line skipped with why.
 */
export function CaseImport() {
  const ids = useId();
  const { mutate } = useSWRConfig();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setAnswer(null);
    setFailure(null);
    if (!file) {
      setFailure('Choose a file of JSON lines first.');
      return;
    }
    setBusy(true);
    try {
      setAnswer(await importCases(await file.text()));
      // Every page and search of the cases may now hold the imported ones.
      void mutate(isCasesKey);
    } catch (err) {
      if (statusOf(err) !== 401) setFailure(importFailure(err));
    } finally {
      setBusy(false);
    }
  }

  const skipped = answer?.skipped ?? [];
  return (
    <section className="learning-part" aria-labelledby={`${ids}-title`} data-testid="learning-import">
      <h4 id={`${ids}-title`} className="learning-subtitle">
        Import past replies
      </h4>
      <p id={`${ids}-hint`} className="field-hint">
        Start from your own replies: a file with one JSON object a line,{' '}
        <code className="learning-code">{'{"mention": "…", "reply": "…", "platform": "x"}'}</code> (platform optional).
        Each reply is checked like a draft; a line that fails is skipped with its reason, the others are imported. At most
        10,000 lines and 5 MB.
      </p>
      <form className="learning-import" onSubmit={(e) => void onSubmit(e)} noValidate>
        <div className="field">
          <label htmlFor={`${ids}-file`}>File of JSON lines</label>
          <input
            id={`${ids}-file`}
            type="file"
            accept=".ndjson,.jsonl,.json,.txt,application/x-ndjson,application/json,text/plain"
            aria-describedby={`${ids}-hint`}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setAnswer(null);
              setFailure(null);
            }}
            data-testid="import-file"
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </form>
      <div aria-live="polite">
        {failure && (
          <p className="field-error" role="alert" data-testid="import-failed">
            {failure}
          </p>
        )}
        {answer && (
          <div className="learning-import-report" data-testid="import-report">
            <p role="status" className="learning-done" data-testid="import-summary">
              {importSummary(answer)}
            </p>
            {skipped.length > 0 && (
              <ul className="learning-skipped" aria-label="Lines skipped" data-testid="import-skipped">
                {skipped.slice(0, SKIPPED_SHOWN).map((s) => (
                  <li key={s.line}>
                    Line {s.line}: {s.error}
                  </li>
                ))}
                {skipped.length > SKIPPED_SHOWN && <li>and {skipped.length - SKIPPED_SHOWN} more lines</li>}
              </ul>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
