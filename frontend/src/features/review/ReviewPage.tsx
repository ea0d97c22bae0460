import { startTransition, useOptimistic, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { statusOf } from '../../api/client';
import type { SortBy } from '../../api/types';
import { useAdminPosts } from './useAdminPosts';
import { useAdminStats } from './useAdminStats';
import { useReviewActions } from './useReviewActions';
import { BulkBar } from './BulkBar';
import { Pagination } from '../../components/Pagination';
import { ReviewCard } from './ReviewCard';
import { panelElementId, ReviewTabs, tabElementId } from './ReviewTabs';
import { QueuedPanel } from './QueuedPanel';
import { SkippedPanel } from './SkippedPanel';
import { SpendBanners, useSpend } from '../spend';
import { ShortcutsHelp } from './ShortcutsHelp';
import { StatsPanel } from './StatsPanel';
import { useReviewShortcuts } from './useReviewShortcuts';
import './review.css';
import { useNow } from '../../components/useNow';
import { pageAfterRemoval } from '../../lib/pagination';
import { keptTo, selectAllToggled, toggled } from './review';
import {
  dashboardQuery,
  parseDashboard,
  sameDashboard,
  PROFILE_TAB,
  SORT_OPTIONS,
  TABS,
  withPlatformFilter,
  withSort,
  withTab,
  type DashboardState,
} from './reviewQueues';
import { parsePlatform, platformLabel, showPlatformFilter } from '../../lib/platforms';
import { usePlatforms } from '../../api/usePlatforms';

/**
 * The dashboard's tab, page and sort, kept in the URL so that a reload and the
 * back button keep them. The router applies a navigation as a transition, so
 * show() also sets the new view optimistically: the tab, page or sort chosen
 * is shown at once, as a click or key press expects, not a render later.
 */
function useDashboardView() {
  const [params, setParams] = useSearchParams();
  const table = usePlatforms();
  const [view, setShownView] = useOptimistic(parseDashboard(params, table));
  function show(next: DashboardState, { replace = false } = {}) {
    startTransition(() => {
      setShownView(next);
      setParams(dashboardQuery(next), { replace });
    });
  }
  return { view, show };
}

/**
 * The review, the admin's task and the first section: the statistics, the
 * four tabs with their sort, cards and pages (reloaded every 30 s), and below
 * them the posts waiting to send and the skipped ones.
 */
export default function ReviewPage() {
  const now = useNow();
  const { view, show } = useDashboardView();
  const { tab, page, sort, platform } = view;
  const listRef = useRef<HTMLDivElement>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  useReviewShortcuts(listRef, () => setHelpOpen((open) => !open));

  const list = useAdminPosts(view);
  const stats = useAdminStats(platform);
  const platforms = usePlatforms();
  const spend = useSpend();
  const posts = list.data?.posts ?? [];
  // Bulk review applies to the posts under review: pending or failed, not awaiting hand-posting.
  const selectable = posts.filter((p) => p.status === 'pending' || p.status === 'failed').map((p) => p.id);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  // Only cards still on the page shown count as selected.
  const selected = keptTo(chosen, selectable);

  const actions = useReviewActions(view, {
    // Back one page when the page's only card left. The answer may arrive after the admin
    // moved on (the URL is the current view), so only the list it came from moves; the URL
    // entry is replaced, so Back skips the emptied page.
    onRemoved: () => {
      const next = pageAfterRemoval(page, posts.length);
      const current = parseDashboard(new URLSearchParams(window.location.search), platforms);
      if (next !== page && sameDashboard(current, view)) show({ ...view, page: next }, { replace: true });
    },
    // The judged cards leave the selection; back one page when none is left on this one.
    onBulkDone: (judged) => {
      setChosen((prev) => new Set([...prev].filter((id) => !judged.includes(id))));
      const left = posts.length - judged.length;
      const current = parseDashboard(new URLSearchParams(window.location.search), platforms);
      if (left <= 0 && page > 1 && sameDashboard(current, view)) show({ ...view, page: page - 1 }, { replace: true });
    },
  });

  // A new tab, by a click or by the back button, starts without the old tab's banners.
  const [bannersTab, setBannersTab] = useState(tab);
  if (bannersTab !== tab) {
    setBannersTab(tab);
    actions.clearNotice();
    setChosen(new Set());
  }

  function changeTab(next: number) {
    actions.clearNotice();
    show(withTab(view, next));
  }

  const notice = actions.notice;
  const error = notice?.kind === 'error' ? notice.text : null;
  const message = notice?.kind === 'success' ? notice.text : null;
  const details = notice?.details?.length ? (
    <ul className="banner-details" data-testid="bulk-results">
      {notice.details.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  ) : null;
  // A refused session shows nothing: request() already left for the login.
  const fetchError = list.error && statusOf(list.error) !== 401 ? TABS[tab].fetchError : null;
  const loadingList = list.isLoading && !list.data;

  return (
    <>
      {/* The section's heading, for screen readers: the cards' names are h3 under it. */}
      <h2 className="visually-hidden">Review</h2>
      <SpendBanners spend={spend.data} onResume={actions.resume} resuming={actions.resuming} />
      <StatsPanel stats={stats.data} />

      <ReviewTabs tab={tab} onChange={changeTab} />

      <section id={panelElementId(tab)} role="tabpanel" aria-labelledby={tabElementId(tab)} className="tab-panel">
        <div className="toolbar">
          <div className="field field-inline">
            <label htmlFor="sort-by">Sort By</label>
            <select id="sort-by" value={sort} onChange={(e) => show(withSort(view, e.target.value as SortBy))}>
              {SORT_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          {showPlatformFilter(stats.data?.platforms) && (
            <div className="field field-inline">
              <label htmlFor="platform-filter">Platform</label>
              <select
                id="platform-filter"
                data-testid="platform-filter"
                value={platform ?? ''}
                onChange={(e) => show(withPlatformFilter(view, parsePlatform(e.target.value)))}
              >
                <option value="">All platforms</option>
                {(stats.data?.platforms ?? []).map((p) => (
                  <option key={p} value={p}>
                    {platformLabel(p, platforms)}
                  </option>
                ))}
              </select>
            </div>
          )}
          {tab === PROFILE_TAB && (
            <button type="button" className="btn btn-primary" onClick={actions.generate} disabled={actions.generating}>
              Generate New Profile Tweet
            </button>
          )}
          <button
            type="button"
            className="btn btn-ghost shortcuts-button"
            aria-keyshortcuts="?"
            onClick={() => setHelpOpen(true)}
            data-testid="shortcuts-button"
          >
            Keyboard shortcuts
          </button>
        </div>

        <div className="banners" aria-live="polite">
          {message && (
            <div className="banner banner-success" role="status" data-testid="banner-success">
              {message}
              {details}
            </div>
          )}
        </div>
        {(error || fetchError) && (
          <div className="banners">
            {error && (
              <div className="banner banner-error" role="alert" data-testid="banner-error">
                {error}
                {details}
              </div>
            )}
            {fetchError && (
              <p className="banner banner-error" role="alert" data-testid="banner-fetch-error">
                {fetchError}
              </p>
            )}
          </div>
        )}

        {loadingList ? (
          <p className="muted" role="status">
            Summoning the damned…
          </p>
        ) : posts.length === 0 ? (
          !fetchError && (
            <p className="empty" data-testid="empty-message">
              {TABS[tab].empty}
            </p>
          )
        ) : (
          <>
            <div className="review-list" data-testid="review-list" ref={listRef}>
              {posts.map((p) => (
                <ReviewCard
                  key={p.id}
                  post={p}
                  now={now}
                  busy={actions.busyId === p.id}
                  refusedFlags={actions.refusedFlags[p.id]}
                  stale={actions.stale.has(p.id)}
                  onApprove={actions.approve}
                  onReject={actions.reject}
                  onMarkPosted={actions.markPosted}
                  onGiveUp={actions.giveUp}
                  onRegenerate={actions.regenerate}
                  selected={selected.has(p.id)}
                  onToggleSelect={(post) => setChosen(toggled(selected, post.id))}
                />
              ))}
            </div>
            <BulkBar
              selected={selected.size}
              selectable={selectable.length}
              busy={actions.bulkBusy}
              onSelectAll={() => setChosen(selectAllToggled(selected, selectable))}
              onAct={(action, reason) =>
                actions.bulk(
                  action,
                  posts.filter((p) => selectable.includes(p.id) && selected.has(p.id)),
                  reason,
                )
              }
            />
          </>
        )}

        <Pagination page={page} totalPages={list.data?.pagination.totalPages} onChange={(p) => show({ ...view, page: p })} />
      </section>

      <QueuedPanel now={now} platform={platform} />
      <SkippedPanel now={now} platform={platform} />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </>
  );
}
