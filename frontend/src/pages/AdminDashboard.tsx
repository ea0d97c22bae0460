import { startTransition, useCallback, useEffect, useOptimistic, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { logout } from '../api/admin';
import { clearToken, statusOf } from '../api/client';
import type { SortBy } from '../api/types';
import { useAdminPosts } from '../api/useAdminPosts';
import { useAdminStats } from '../api/useAdminStats';
import { useReviewActions } from '../api/useReviewActions';
import { LogoutEverywhere } from '../components/LogoutEverywhere';
import { useSpend } from '../api/useSpend';
import { BulkBar } from '../components/BulkBar';
import { PageShell } from '../components/PageShell';
import { Pagination } from '../components/Pagination';
import { ReviewCard } from '../components/ReviewCard';
import { panelElementId, ReviewTabs, tabElementId } from '../components/ReviewTabs';
import { AutopilotPanel } from '../components/AutopilotPanel';
import { PersonaPanel } from '../components/PersonaPanel';
import { SettingsPanel } from '../components/SettingsPanel';
import { QueuedPanel } from '../components/QueuedPanel';
import { SkippedPanel } from '../components/SkippedPanel';
import { SpendBanners, SpendPanel } from '../components/SpendPanel';
import { StatsPanel } from '../components/StatsPanel';
import { useNow } from '../components/useNow';
import { ADMIN_LOGIN_PATH, OPS_PATH } from '../lib/constants';
import { pageAfterRemoval } from '../lib/pagination';
import { keptTo, selectAllToggled, toggled } from '../lib/review';
import {
  dashboardQuery,
  parseDashboard,
  sameDashboard,
  PROFILE_TAB,
  SORT_OPTIONS,
  TABS,
  withSort,
  withTab,
  type DashboardState,
} from '../lib/reviewQueues';
// After styles.css: the admin's rules load with its lazy chunks, never on the public pages.
import './admin.css';

/**
 * The dashboard's tab, page and sort, kept in the URL so that a reload and the
 * back button keep them. The router applies a navigation as a transition, so
 * show() also sets the new view optimistically: the tab, page or sort chosen
 * is shown at once, as a click or key press expects, not a render later.
 */
function useDashboardView() {
  const [params, setParams] = useSearchParams();
  const [view, setShownView] = useOptimistic(parseDashboard(params));
  function show(next: DashboardState, { replace = false } = {}) {
    startTransition(() => {
      setShownView(next);
      setParams(dashboardQuery(next), { replace });
    });
  }
  return { view, show };
}

export default function AdminDashboard() {
  const navigate = useNavigate();
  const now = useNow();
  const { view, show } = useDashboardView();
  const { tab, page, sort } = view;

  const list = useAdminPosts(view);
  const stats = useAdminStats();
  const spend = useSpend();
  const posts = list.data?.posts ?? [];
  // Bulk review applies to the posts under review: pending or failed, not awaiting hand-posting.
  const selectable = posts.filter((p) => p.status === 'pending' || p.status === 'failed').map((p) => p.id);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  // Only cards still on the page shown count as selected.
  const selected = keptTo(chosen, selectable);

  const signOut = useCallback(() => {
    clearToken();
    navigate(ADMIN_LOGIN_PATH, { replace: true });
  }, [navigate]);

  const actions = useReviewActions(view, {
    // Back one page when the page's only card left. The answer may arrive after the admin
    // moved on (the URL is the current view), so only the list it came from moves; the URL
    // entry is replaced, so Back skips the emptied page.
    onRemoved: () => {
      const next = pageAfterRemoval(page, posts.length);
      const current = parseDashboard(new URLSearchParams(window.location.search));
      if (next !== page && sameDashboard(current, view)) show({ ...view, page: next }, { replace: true });
    },
    onUnauthorized: signOut,
    // The judged cards leave the selection; back one page when none is left on this one.
    onBulkDone: (judged) => {
      setChosen((prev) => new Set([...prev].filter((id) => !judged.includes(id))));
      const left = posts.length - judged.length;
      const current = parseDashboard(new URLSearchParams(window.location.search));
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

  // A 401 on any admin read means the session is gone: back to the login.
  const listStatus = statusOf(list.error);
  const statsStatus = statusOf(stats.error);
  useEffect(() => {
    if (listStatus === 401 || statsStatus === 401) signOut();
  }, [listStatus, statsStatus, signOut]);

  function changeTab(next: number) {
    actions.clearNotice();
    show(withTab(view, next));
  }

  async function onLogout() {
    try {
      await logout();
    } catch {
      // The token may already be expired or revoked; it is dropped all the same.
    }
    signOut();
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
  const fetchError = list.error && listStatus !== 401 ? TABS[tab].fetchError : null;
  const loadingList = list.isLoading && !list.data;

  return (
    <PageShell className="admin-shell">
      <header className="admin-top">
        <h1 className="admin-title">Infernal Bot Admin</h1>
        <div className="admin-top-actions">
          <a className="btn btn-ghost" href={OPS_PATH} target="_blank" rel="noopener noreferrer">
            Ops<span className="visually-hidden"> (queue dashboard, opens in a new tab)</span>
          </a>
          <button type="button" className="btn btn-ghost" onClick={actions.refresh}>
            Refresh
          </button>
          <LogoutEverywhere />
          <button type="button" className="btn btn-primary" onClick={() => void onLogout()}>
            Logout
          </button>
        </div>
      </header>

      <main className="page admin-page">
        <SpendBanners spend={spend.data} onResume={actions.resume} resuming={actions.resuming} />
        <StatsPanel stats={stats.data} />
        <SpendPanel spend={spend.data} />
        <SettingsPanel onUnauthorized={signOut} />
        <AutopilotPanel onUnauthorized={signOut} />
        <PersonaPanel onUnauthorized={signOut} />

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
            {tab === PROFILE_TAB && (
              <button type="button" className="btn btn-primary" onClick={actions.generate} disabled={actions.generating}>
                Generate New Profile Tweet
              </button>
            )}
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
              <BulkBar
                selected={selected.size}
                selectable={selectable.length}
                busy={actions.bulkBusy}
                onSelectAll={() => setChosen(selectAllToggled(selected, selectable))}
                onAct={(action) => actions.bulk(action, selectable.filter((id) => selected.has(id)))}
              />
              <div className="review-list" data-testid="review-list">
                {posts.map((p) => (
                  <ReviewCard
                    key={p.id}
                    post={p}
                    now={now}
                    busy={actions.busyId === p.id}
                    refusedFlags={actions.refusedFlags[p.id]}
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
            </>
          )}

          <Pagination page={page} totalPages={list.data?.pagination.totalPages} onChange={(p) => show({ ...view, page: p })} />
        </section>

        <QueuedPanel now={now} onUnauthorized={signOut} />
        <SkippedPanel now={now} onUnauthorized={signOut} />
      </main>
    </PageShell>
  );
}
