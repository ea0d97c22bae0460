import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { useSWRConfig } from 'swr';
import { approvePost, generateProfileTweet, logout, rejectPost } from '../api/admin';
import { ApiError, clearToken, statusOf } from '../api/client';
import type { Post, PostList, SortBy } from '../api/types';
import { useAdminPosts } from '../api/useAdminPosts';
import { useAdminStats } from '../api/useAdminStats';
import { Pagination } from '../components/Pagination';
import { Particles } from '../components/Particles';
import { ReviewCard } from '../components/ReviewCard';
import { useNow } from '../components/useNow';
import { num } from '../lib/numbers';
import { pageAfterRemoval } from '../lib/pagination';
import { ADMIN_LOGIN_PATH, OPS_PATH } from '../lib/persona';

export const TABS = ['Pending Sins', 'Mentions', 'Profile Tweets', 'Targeted Users'] as const;
const TAB_IDS = ['pending', 'mentions', 'profile', 'targeted'] as const;

export const EMPTY_MESSAGES = [
  'No pending sins to review',
  'No pending mentions to review',
  'No pending profile tweets',
  'No pending targeted posts',
] as const;

export const FETCH_ERRORS = [
  'Failed to fetch pending posts',
  'Failed to fetch mentions',
  'Failed to fetch profile tweets',
  'Failed to fetch targeted posts',
] as const;

export const SORT_OPTIONS: { value: SortBy; label: string }[] = [
  { value: 'date', label: 'Most Recent' },
  { value: 'engagement', label: 'Highest Engagement' },
  { value: 'likes', label: 'Most Likes' },
  { value: 'retweets', label: 'Most Retweets' },
  { value: 'replies', label: 'Most Replies' },
];

export const MESSAGES = {
  approved: 'Post approved and response sent successfully!',
  rejected: 'Post rejected successfully',
  generated: 'New profile tweet generated!',
  rejectFailed: 'Failed to reject post',
  generateFailed: 'Failed to generate profile tweet',
  // The targeted scan call exists (generateTargetedScan) but, as the spec says, no button uses it.
  targetedGenerated: 'New targeted scan completed!',
  targetedFailed: 'Failed to generate targeted scan',
} as const;

/** The Pending tab lists only the conversation posts: never a mention or a profile tweet. */
function visiblePosts(tab: number, list: PostList | undefined): Post[] {
  const posts = Array.isArray(list?.posts) ? list.posts : [];
  return tab === 0 ? posts.filter((p) => !p.is_mention && !p.is_profile_tweet) : posts;
}

function errorDetail(err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export default function AdminDashboard() {
  const navigate = useNavigate();
  const now = useNow();
  const [tab, setTab] = useState(0);
  const [page, setPage] = useState(1);
  const [sortBy, setSortBy] = useState<SortBy>('date');
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<number | null>(null);
  const [generating, setGenerating] = useState(false);
  const { mutate: mutateCache } = useSWRConfig();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const list = useAdminPosts(tab, page, sortBy);
  const stats = useAdminStats();
  const posts = visiblePosts(tab, list.data);
  const totalPages = list.data?.pagination?.totalPages;

  const signOut = useCallback(() => {
    clearToken();
    navigate(ADMIN_LOGIN_PATH, { replace: true });
  }, [navigate]);

  // A 401 on any admin read means the session is gone: back to the login.
  const listStatus = statusOf(list.error);
  const statsStatus = statusOf(stats.error);
  useEffect(() => {
    if (listStatus === 401 || statsStatus === 401) signOut();
  }, [listStatus, statsStatus, signOut]);

  /** True (and signed out) when an action failed for want of a valid session. */
  function unauthorized(err: unknown): boolean {
    if (statusOf(err) !== 401) return false;
    signOut();
    return true;
  }

  function changeTab(next: number) {
    setTab(next);
    setPage(1);
    setError(null);
    setMessage(null);
  }

  function onTabKey(e: KeyboardEvent<HTMLButtonElement>) {
    const keys: Record<string, number> = {
      ArrowRight: (tab + 1) % TABS.length,
      ArrowLeft: (tab + TABS.length - 1) % TABS.length,
      Home: 0,
      End: TABS.length - 1,
    };
    const next = keys[e.key];
    if (next === undefined) return;
    e.preventDefault();
    changeTab(next);
    tabRefs.current[next]?.focus();
  }

  /** Every cached admin read is stale: fetch again (cached pages not shown are refetched when shown). */
  function revalidateAdmin() {
    void mutateCache((key) => typeof key === 'string' && key.startsWith('/api/posts/'));
  }

  /**
   * After a card left the list: drop it at once, go back one page if it was
   * the page's only card, and fetch every admin list and the stats again.
   */
  function afterRemoval(id: number) {
    void list.mutate((current) => current && { ...current, posts: current.posts.filter((p) => p.id !== id) }, {
      revalidate: false,
    });
    const next = pageAfterRemoval(page, posts.length);
    if (next !== page) setPage(next);
    revalidateAdmin();
  }

  async function approve(post: Post, edited: string | undefined) {
    setBusyId(post.id);
    setError(null);
    setMessage(null);
    try {
      await approvePost(post.id, edited);
      setMessage(MESSAGES.approved);
      afterRemoval(post.id);
    } catch (err) {
      if (!unauthorized(err)) setError(`Failed to approve post: ${errorDetail(err)}`);
    } finally {
      setBusyId(null);
    }
  }

  async function reject(post: Post) {
    setBusyId(post.id);
    setError(null);
    setMessage(null);
    try {
      await rejectPost(post.id);
      setMessage(MESSAGES.rejected);
      afterRemoval(post.id);
    } catch (err) {
      if (!unauthorized(err)) setError(MESSAGES.rejectFailed);
    } finally {
      setBusyId(null);
    }
  }

  async function generate() {
    setGenerating(true);
    setError(null);
    setMessage(null);
    try {
      await generateProfileTweet();
      setMessage(MESSAGES.generated);
      revalidateAdmin();
    } catch (err) {
      if (!unauthorized(err)) setError(MESSAGES.generateFailed);
    } finally {
      setGenerating(false);
    }
  }

  async function onLogout() {
    try {
      await logout();
    } catch {
      // The token may already be expired or revoked; it is dropped all the same.
    }
    signOut();
  }

  const fetchError = list.error && listStatus !== 401 ? FETCH_ERRORS[tab] : null;
  const loadingList = list.isLoading && !list.data;
  const panelId = `panel-${TAB_IDS[tab]}`;

  return (
    <div className="page-shell admin-shell">
      <Particles count={30} />
      <header className="admin-top">
        <h1 className="admin-title">Infernal Bot Admin</h1>
        <div className="admin-top-actions">
          <a className="btn btn-ghost" href={OPS_PATH} target="_blank" rel="noopener noreferrer">
            Ops<span className="visually-hidden"> (queue dashboard, opens in a new tab)</span>
          </a>
          <button type="button" className="btn btn-ghost" onClick={revalidateAdmin}>
            Refresh
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void onLogout()}>
            Logout
          </button>
        </div>
      </header>

      <main className="page admin-page">
        <section className="stats-panel" aria-label="Statistics" data-testid="admin-stats">
          <div className="stats-item">
            <span className="stats-label">Pending Sins</span>
            <span className="stats-value" data-testid="stat-pending">
              {num(stats.data?.pending?.count)}
            </span>
          </div>
          <div className="stats-item">
            <span className="stats-label">Posted</span>
            <span className="stats-value" data-testid="stat-posted">
              {num(stats.data?.posted?.count)}
            </span>
          </div>
          <div className="stats-item">
            <span className="stats-label">Rejected</span>
            <span className="stats-value" data-testid="stat-rejected">
              {num(stats.data?.rejected?.count)}
            </span>
          </div>
          <div className="stats-item">
            <span className="stats-label">Pending Mentions</span>
            <span className="stats-value" data-testid="stat-mentions">
              {num(stats.data?.mentions?.count)}
            </span>
          </div>
        </section>

        <div className="tabs" role="tablist" aria-label="Review queues">
          {TABS.map((label, i) => (
            <button
              key={label}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${TAB_IDS[i]}`}
              aria-selected={tab === i}
              aria-controls={`panel-${TAB_IDS[i]}`}
              tabIndex={tab === i ? 0 : -1}
              className="tab"
              onClick={() => changeTab(i)}
              onKeyDown={onTabKey}
            >
              {label}
            </button>
          ))}
        </div>

        <section id={panelId} role="tabpanel" aria-labelledby={`tab-${TAB_IDS[tab]}`} className="tab-panel">
          <div className="toolbar">
            <div className="field field-inline">
              <label htmlFor="sort-by">Sort By</label>
              <select
                id="sort-by"
                value={sortBy}
                onChange={(e) => {
                  setSortBy(e.target.value as SortBy);
                  setPage(1);
                }}
              >
                {SORT_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            </div>
            {tab === 2 && (
              <button type="button" className="btn btn-primary" onClick={() => void generate()} disabled={generating}>
                Generate New Profile Tweet
              </button>
            )}
          </div>

          <div className="banners" aria-live="polite">
            {message && (
              <p className="banner banner-success" role="status" data-testid="banner-success">
                {message}
              </p>
            )}
          </div>
          {(error || fetchError) && (
            <div className="banners">
              {error && (
                <p className="banner banner-error" role="alert" data-testid="banner-error">
                  {error}
                </p>
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
                {EMPTY_MESSAGES[tab]}
              </p>
            )
          ) : (
            <div className="review-list" data-testid="review-list">
              {posts.map((p) => (
                <ReviewCard
                  key={p.id}
                  post={p}
                  now={now}
                  busy={busyId === p.id}
                  onApprove={(post, edited) => void approve(post, edited)}
                  onReject={(post) => void reject(post)}
                />
              ))}
            </div>
          )}

          <Pagination page={page} totalPages={totalPages} onChange={setPage} />
        </section>
      </main>
    </div>
  );
}
