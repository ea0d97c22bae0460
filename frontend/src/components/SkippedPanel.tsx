import { useEffect, useId, useState } from 'react';
import { useSWRConfig } from 'swr';
import { draftAnyway } from '../api/admin';
import { ApiError, statusOf } from '../api/client';
import type { Post } from '../api/types';
import { isSkippedKey, useSkipped } from '../api/useSkipped';
import { SKIPPED_MESSAGES } from '../lib/reviewQueues';
import { PostOrigin } from './PostOrigin';

export const DRAFT_ANYWAY = 'Draft anyway';

interface Props {
  now: number;
  /** When an action was refused for want of a valid session. */
  onUnauthorized: () => void;
}

/**
 * The posts the guards stopped before drafting, each with its reason and a
 * "Draft anyway" override, and the posts that failed, each with its error:
 * those are judged in their own tab, where they are listed too. It sits
 * below the review tabs, closed until the admin opens it.
 */
export function SkippedPanel({ now, onUnauthorized }: Props) {
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const [busyId, setBusyId] = useState<number | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const { mutate } = useSWRConfig();
  const list = useSkipped(page, open);
  const posts = list.data?.posts ?? [];
  const totalPages = list.data?.pagination.totalPages ?? 0;
  const listStatus = statusOf(list.error);
  useEffect(() => {
    if (listStatus === 401) onUnauthorized();
  }, [listStatus, onUnauthorized]);

  async function override(post: Post) {
    setBusyId(post.id);
    setNotice(null);
    try {
      await draftAnyway(post.id);
      setNotice({ kind: 'success', text: SKIPPED_MESSAGES.drafted });
      if (posts.length === 1 && page > 1) setPage(page - 1);
      void mutate(isSkippedKey);
    } catch (err) {
      if (statusOf(err) === 401) onUnauthorized();
      else {
        const detail = err instanceof ApiError ? (err.serverMessage ?? err.message) : String(err);
        setNotice({ kind: 'error', text: `${SKIPPED_MESSAGES.draftFailed}: ${detail}` });
      }
    } finally {
      setBusyId(null);
    }
  }

  return (
    <section className="skipped-panel" aria-labelledby={`${ids}-title`} data-testid="skipped-panel">
      <div className="skipped-head">
        <h2 id={`${ids}-title`} className="skipped-title">
          Skipped and failed
        </h2>
        <button
          type="button"
          className="btn btn-ghost"
          aria-expanded={open}
          aria-controls={`${ids}-body`}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide skipped and failed posts' : 'Show skipped and failed posts'}
        </button>
      </div>
      {open && (
        <div id={`${ids}-body`}>
          <p className="muted">
            Posts the persona did not answer: its own, opt-outs, blocked authors and phrases, and replies over the caps;
            and the drafts and sends that failed.
          </p>
          <div className="banners" aria-live="polite">
            {notice?.kind === 'success' && (
              <p className="banner banner-success" role="status" data-testid="skipped-success">
                {notice.text}
              </p>
            )}
          </div>
          {notice?.kind === 'error' && (
            <p className="banner banner-error" role="alert" data-testid="skipped-error">
              {notice.text}
            </p>
          )}
          {list.error && statusOf(list.error) !== 401 ? (
            <p className="banner banner-error" role="alert">
              {SKIPPED_MESSAGES.fetchFailed}
            </p>
          ) : list.isLoading && !list.data ? (
            <p className="muted" role="status">
              Summoning the damned…
            </p>
          ) : posts.length === 0 ? (
            <p className="empty" data-testid="skipped-empty">
              {SKIPPED_MESSAGES.empty}
            </p>
          ) : (
            <ul className="skipped-list">
              {posts.map((p) => (
                <li key={p.id} className="skipped-card" data-testid="skipped-card" data-post-id={p.id}>
                  <PostOrigin post={p} now={now} />
                  {p.status === 'failed' ? (
                    <>
                      <p className="skipped-reason" data-testid="skip-reason">
                        Failed: {p.reason || 'no reason recorded'}
                      </p>
                      <p className="muted" data-testid="failed-hint">
                        Approve, edit, regenerate or reject it in its tab.
                      </p>
                    </>
                  ) : (
                    <>
                      <p className="skipped-reason" data-testid="skip-reason">
                        Skipped: {p.reason || 'no reason recorded'}
                      </p>
                      <button
                        type="button"
                        className="btn btn-primary"
                        disabled={busyId === p.id}
                        onClick={() => void override(p)}
                      >
                        {DRAFT_ANYWAY}
                      </button>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          {totalPages > 1 && (
            <nav className="pagination" aria-label="Skipped pages">
              <button type="button" className="btn btn-ghost" onClick={() => setPage(page - 1)} disabled={page <= 1}>
                Previous
              </button>
              <span className="pagination-status" data-testid="skipped-page-status">
                Page {page} of {totalPages}
              </span>
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => setPage(page + 1)}
                disabled={page >= totalPages}
              >
                Next
              </button>
            </nav>
          )}
        </div>
      )}
    </section>
  );
}
