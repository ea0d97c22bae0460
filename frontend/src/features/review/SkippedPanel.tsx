import { useState } from 'react';
import { CollapsiblePanel, type Paging } from '../../components/CollapsiblePanel';
import { PagedList } from '../../components/PagedList';
import { useSWRConfig } from 'swr';
import { draftAnyway } from './api';
import { errorDetail, statusOf } from '../../api/client';
import type { Post } from '../../api/types';
import { isSkippedKey, useSkipped } from './useSkipped';
import { SKIPPED_MESSAGES } from './reviewQueues';
import { PostOrigin } from './PostOrigin';

export const DRAFT_ANYWAY = 'Draft anyway';

interface Props {
  now: number;
  /** The platform filter of the dashboard; '' or absent: every platform. */
  platform?: string;
}

/**
 * The posts the guards stopped before drafting, each with its reason and a
 * "Draft anyway" override, and the posts that failed, each with its error:
 * those are judged in their own tab, where they are listed too. It sits
 * below the review tabs, closed until the admin opens it.
 */
export function SkippedPanel({ now, platform }: Props) {
  return (
    <CollapsiblePanel
      title="Skipped and failed"
      showLabel="Show skipped and failed posts"
      hideLabel="Hide skipped and failed posts"
      testId="skipped-panel"
      resetKey={platform}
    >
      {(paging) => <SkippedList now={now} platform={platform} {...paging} />}
    </CollapsiblePanel>
  );
}

/** The open panel's page of skipped and failed posts, and the notice of the last override. */
function SkippedList({ now, platform, page, setPage }: Props & Paging) {
  const [busyId, setBusyId] = useState<number | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const { mutate } = useSWRConfig();
  const list = useSkipped(page, true, platform);
  const posts = list.data?.posts ?? [];

  async function override(post: Post) {
    setBusyId(post.id);
    setNotice(null);
    try {
      await draftAnyway(post.id, post.draft_version);
      setNotice({ kind: 'success', text: SKIPPED_MESSAGES.drafted });
      if (posts.length === 1 && page > 1) setPage(page - 1);
      void mutate(isSkippedKey);
    } catch (err) {
      // A refused session needs no banner: request() already left for the login.
      if (statusOf(err) !== 401) {
        const detail = errorDetail(err);
        setNotice({ kind: 'error', text: `${SKIPPED_MESSAGES.draftFailed}: ${detail}` });
      }
    } finally {
      setBusyId(null);
    }
  }

  return (
    <>
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
      <PagedList
        items={list.data?.posts}
        error={list.error}
        page={page}
        totalPages={list.data?.pagination.totalPages}
        onPage={setPage}
        errorText={SKIPPED_MESSAGES.fetchFailed}
        emptyText={SKIPPED_MESSAGES.empty}
        emptyTestId="skipped-empty"
        className="collapsible-panel-list"
        pagesLabel="Skipped pages"
        statusTestId="skipped-page-status"
      >
        {(p) => (
          <li key={p.id} className="collapsible-panel-card" data-testid="skipped-card" data-post-id={p.id}>
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
            )}
          </PagedList>
    </>
  );
}
