import { useEffect, useState } from 'react';
import useSWR from 'swr';
import { cancelPost } from './api';
import { statusOf } from '../../api/client';
import type { Post } from '../../api/types';
import { historyKey } from './useHistory';
import { autoApprovedText, autoPostingText, type HistoryDecision } from './autopilot';

interface Props {
  post: Post;
  /** After the cancel succeeded or came too late: the list is read again. */
  onSettled: () => void;
}

/**
 * An auto-approval in its grace window: "Auto-posting in 1:42", ticking,
 * with Cancel, and why the autopilot approved it ("Auto-approved: trusted
 * author @x, review 5/5", from the post's history).
 */
export function AutoPostingNote({ post, onSettled }: Props) {
  const [now, setNow] = useState(() => Date.now());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const history = useSWR<{ decisions?: HistoryDecision[] }>(historyKey(post.id));
  useEffect(() => {
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(tick);
  }, []);
  const countdown = autoPostingText(post.send_after, now);
  if (!countdown) return null;
  const why = autoApprovedText(history.data?.decisions);

  async function cancel() {
    setBusy(true);
    setError(null);
    try {
      await cancelPost(post.id);
    } catch (err) {
      setError(statusOf(err) === 409 ? 'Too late: the send has started' : 'Cancel failed; try again');
    } finally {
      setBusy(false);
      onSettled();
    }
  }

  return (
    <div className="auto-posting" data-testid="auto-posting">
      {why && <p className="muted" data-testid="auto-approved">{why}</p>}
      <p className="queued-note">
        <span data-testid="auto-posting-countdown">{countdown}</span>{' '}
        <button type="button" className="btn btn-ghost" onClick={cancel} disabled={busy}>
          Cancel
        </button>
      </p>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
