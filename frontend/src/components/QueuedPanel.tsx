import { useEffect, useId, useState } from 'react';
import { statusOf } from '../api/client';
import { useQueued } from '../api/useQueued';
import { QUEUED_MESSAGES } from '../lib/reviewQueues';
import { AutoPostingNote } from './AutoPostingNote';
import { PostOrigin } from './PostOrigin';

interface Props {
  now: number;
  /** When the list was refused for want of a valid session. */
  onUnauthorized: () => void;
}

/**
 * The approved posts that have not started sending, in approval order, the
 * ones the send caps hold noted "queued: cap": approvals leave the review
 * tabs, and this is where they stay visible until they go out. It sits
 * below the review tabs, closed until the admin opens it.
 */
export function QueuedPanel({ now, onUnauthorized }: Props) {
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const list = useQueued(page, open);
  const posts = list.data?.posts ?? [];
  const totalPages = list.data?.pagination.totalPages ?? 0;
  const listStatus = statusOf(list.error);
  useEffect(() => {
    if (listStatus === 401) onUnauthorized();
  }, [listStatus, onUnauthorized]);

  return (
    <section className="queued-panel" aria-labelledby={`${ids}-title`} data-testid="queued-panel">
      <div className="queued-head">
        <h2 id={`${ids}-title`} className="queued-title">
          Waiting to send
        </h2>
        <button
          type="button"
          className="btn btn-ghost"
          aria-expanded={open}
          aria-controls={`${ids}-body`}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide waiting posts' : 'Show waiting posts'}
        </button>
      </div>
      {open && (
        <div id={`${ids}-body`}>
          <p className="muted">Approved replies not sent yet, in approval order: the send caps serve them first come, first burned.</p>
          {list.error && statusOf(list.error) !== 401 ? (
            <p className="banner banner-error" role="alert">
              {QUEUED_MESSAGES.fetchFailed}
            </p>
          ) : list.isLoading && !list.data ? (
            <p className="muted" role="status">
              Summoning the damned…
            </p>
          ) : posts.length === 0 ? (
            <p className="empty" data-testid="queued-empty">
              {QUEUED_MESSAGES.empty}
            </p>
          ) : (
            <ul className="queued-list">
              {posts.map((p) => (
                <li key={p.id} className="queued-card" data-testid="queued-card" data-post-id={p.id}>
                  <PostOrigin post={p} now={now} />
                  <p className="queued-response" data-testid="queued-response">{p.proposed_response}</p>
                  {p.send_after ? (
                    <AutoPostingNote post={p} onSettled={() => void list.mutate()} />
                  ) : (
                    <p className="queued-note" data-testid="queued-note">
                      {p.queued
                        ? `Approved, ${p.queued}: it goes out in approval order when the send cap allows.`
                        : 'Approved: it goes out with the next send.'}
                    </p>
                  )}
                </li>
              ))}
            </ul>
          )}
          {totalPages > 1 && (
            <nav className="pagination" aria-label="Waiting pages">
              <button type="button" className="btn btn-ghost" onClick={() => setPage(page - 1)} disabled={page <= 1}>
                Previous
              </button>
              <span className="pagination-status" data-testid="queued-page-status">
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
