import { CollapsiblePanel, type Paging } from '../../components/CollapsiblePanel';
import { PagedList } from '../../components/PagedList';
import { useQueued } from './useQueued';
import { QUEUED_MESSAGES } from './reviewQueues';
import { AutoPostingNote } from './AutoPostingNote';
import { PostOrigin } from './PostOrigin';

interface Props {
  now: number;
  /** The platform filter of the dashboard; '' or absent: every platform. */
  platform?: string;
}

/**
 * The approved posts that have not started sending, in approval order, the
 * ones the send caps hold noted "queued: cap": approvals leave the review
 * tabs, and this is where they stay visible until they go out. It sits
 * below the review tabs, closed until the admin opens it.
 */
export function QueuedPanel({ now, platform }: Props) {
  return (
    <CollapsiblePanel
      title="Waiting to send"
      showLabel="Show waiting posts"
      hideLabel="Hide waiting posts"
      testId="queued-panel"
      resetKey={platform}
    >
      {(paging) => <QueuedList now={now} platform={platform} {...paging} />}
    </CollapsiblePanel>
  );
}

/** The open panel's page of waiting posts. */
function QueuedList({ now, platform, page, setPage }: Props & Paging) {
  const list = useQueued(page, true, platform);
  return (
    <>
      <p className="muted">Approved replies not sent yet, in approval order: the send caps serve them first come, first burned.</p>
      <PagedList
        items={list.data?.posts}
        error={list.error}
        page={page}
        totalPages={list.data?.pagination.totalPages}
        onPage={setPage}
        errorText={QUEUED_MESSAGES.fetchFailed}
        emptyText={QUEUED_MESSAGES.empty}
        emptyTestId="queued-empty"
        className="collapsible-panel-list"
        pagesLabel="Waiting pages"
        statusTestId="queued-page-status"
      >
        {(p) => (
          <li key={p.id} className="collapsible-panel-card" data-testid="queued-card" data-post-id={p.id}>
            <PostOrigin post={p} now={now} />
            <p className="queued-response" data-testid="queued-response">
              {p.proposed_response}
            </p>
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
        )}
      </PagedList>
    </>
  );
}
