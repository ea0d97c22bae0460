import { useState } from 'react';
import useSWRMutation from 'swr/mutation';
import { pauseOps, resumeOps } from './api';
import { errorDetail } from '../../api/client';
import type { Spend } from '../../api/types';
import { SPEND_KEY } from './useSpend';

/**
 * The operator's pause: stops scanning and sending on every platform until
 * resumed, as /pause does in Telegram; while any pause is in force, Resume
 * lifts them all.
 */
export function PauseControl({ spend }: { spend: Spend | undefined }) {
  const pausing = useSWRMutation<unknown, unknown, string>(SPEND_KEY, () => pauseOps());
  const resuming = useSWRMutation<unknown, unknown, string>(SPEND_KEY, () => resumeOps());
  const [error, setError] = useState<string | null>(null);
  if (!spend) return null;
  const paused = spend.pauses.length > 0;
  const busy = pausing.isMutating || resuming.isMutating;

  async function run(op: typeof pausing | typeof resuming, what: string) {
    setError(null);
    try {
      await op.trigger();
    } catch (err) {
      setError(`${what} failed: ${errorDetail(err)}`);
    }
  }

  return (
    <div className="spend-ops" data-testid="spend-ops">
      {paused ? (
        <>
          <p role="status">Scanning and sending are paused.</p>
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void run(resuming, 'Resume')}>
            Resume
          </button>
        </>
      ) : (
        <button type="button" className="btn" disabled={busy} onClick={() => void run(pausing, 'Pause')}>
          Pause scanning and sending
        </button>
      )}
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
