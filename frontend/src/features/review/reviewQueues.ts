import type { Platform, SortBy } from '../../api/types';
import { parsePlatform, type PlatformInfo } from '../../lib/platforms';

/**
 * The admin dashboard's tabs, by index 0 to 3. id is both the tab's name in
 * the URL (?tab=mentions) and the list it shows (/api/posts/mentions).
 */
export const TABS = [
  {
    id: 'pending',
    label: 'Pending Sins',
    empty: 'No pending sins to review',
    fetchError: 'Failed to fetch pending posts',
  },
  {
    id: 'mentions',
    label: 'Mentions',
    empty: 'No pending mentions to review',
    fetchError: 'Failed to fetch mentions',
  },
  {
    id: 'profile',
    label: 'Profile Tweets',
    empty: 'No pending profile tweets',
    fetchError: 'Failed to fetch profile tweets',
  },
  {
    id: 'targeted',
    label: 'Targeted Users',
    empty: 'No pending targeted posts',
    fetchError: 'Failed to fetch targeted posts',
  },
] as const;

/** The index of the Profile Tweets tab, the one with the generate button. */
export const PROFILE_TAB = TABS.findIndex((t) => t.id === 'profile');

export const SORT_OPTIONS: readonly { value: SortBy; label: string }[] = [
  { value: 'date', label: 'Most Recent' },
  { value: 'engagement', label: 'Highest Engagement' },
  { value: 'likes', label: 'Most Likes' },
  { value: 'retweets', label: 'Most Retweets' },
  { value: 'replies', label: 'Most Replies' },
];

/** What the admin's actions report in the banners. */
export const REVIEW_MESSAGES = {
  approved: 'Post approved and response sent successfully!',
  approveFailed: 'Failed to approve post',
  rejected: 'Post rejected successfully',
  rejectFailed: 'Failed to reject post',
  generated: 'New profile tweet generated!',
  generateFailed: 'Failed to generate profile tweet',
  // The targeted scan call exists (generateTargetedScan) but, as the spec says, no button uses it.
  targetedGenerated: 'New targeted scan completed!',
  targetedFailed: 'Failed to generate targeted scan',
  approvedManual: 'Post approved for hand-posting: use "Post on X", then "Mark as posted".',
  approvedQueued: 'Post approved, queued: cap. It goes out in approval order when the send cap allows.',
  markedPosted: 'Post marked as posted',
  markFailed: 'Failed to mark post as posted',
  gaveUp: 'Hand-posting given up; the post is rejected',
  giveUpFailed: 'Failed to give up post',
  regenerated: 'A new draft rose from the pit',
  regenerateQueued: 'The writer is still at it: the new draft will appear here shortly',
  regenerateFailed: 'Failed to regenerate draft',
  bulkFailed: 'Failed to review the selected posts',
  stale: 'The draft changed since it was shown: its card now shows the new text, and nothing was posted.',
  resumed: 'Scanning and sending resumed',
  resumeFailed: 'Failed to resume',
} as const;

/** What the Skipped view reports. */
export const SKIPPED_MESSAGES = {
  empty: 'No skipped or failed posts',
  fetchFailed: 'Failed to fetch skipped and failed posts',
  drafted: 'Post sent back to drafting: its draft will appear in its tab',
  draftFailed: 'Failed to draft post anyway',
} as const;

export const QUEUED_MESSAGES = {
  empty: 'Nothing waits to be sent',
  fetchFailed: 'Failed to fetch the posts waiting to send',
} as const;

/** What the dashboard shows: a tab index, a page from 1, a sort order, and the platform filter ('' or absent: every platform). */
export interface DashboardState {
  tab: number;
  page: number;
  sort: SortBy;
  platform?: Platform | '';
}

export const DEFAULT_DASHBOARD: DashboardState = { tab: 0, page: 1, sort: 'date' };

function parseTab(value: string | null): number {
  const i = TABS.findIndex((t) => t.id === value);
  return i < 0 ? DEFAULT_DASHBOARD.tab : i;
}

function parsePage(value: string | null): number {
  // Digits only, no sign, no leading zero: "2" is a page, "2x", "-1", "0" and "1e3" are not.
  if (value === null || !/^[1-9]\d*$/.test(value)) return DEFAULT_DASHBOARD.page;
  const page = Number(value);
  return Number.isSafeInteger(page) ? page : DEFAULT_DASHBOARD.page;
}

function parseSort(value: string | null): SortBy {
  return SORT_OPTIONS.find((o) => o.value === value)?.value ?? DEFAULT_DASHBOARD.sort;
}

/** The dashboard state a URL's query asks for (?tab=mentions&page=2&sort=likes); each invalid or missing value is its default. */
export function parseDashboard(params: URLSearchParams, platforms: readonly PlatformInfo[] = []): DashboardState {
  const platform = parsePlatform(params.get('platform'), platforms);
  return {
    tab: parseTab(params.get('tab')),
    page: parsePage(params.get('page')),
    sort: parseSort(params.get('sort')),
    // Absent for every platform, so the state of a URL without it is the one it always was.
    ...(platform ? { platform } : {}),
  };
}

/** The query for a dashboard state, in the order tab, page, sort; defaults are left out, so the first view has a bare URL. */
export function dashboardQuery(state: DashboardState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.tab !== DEFAULT_DASHBOARD.tab) params.set('tab', TABS[state.tab].id);
  if (state.page !== DEFAULT_DASHBOARD.page) params.set('page', String(state.page));
  if (state.sort !== DEFAULT_DASHBOARD.sort) params.set('sort', state.sort);
  if (state.platform) params.set('platform', state.platform);
  return params;
}

/** Whether two states show the same list page. */
export function sameDashboard(a: DashboardState, b: DashboardState): boolean {
  return a.tab === b.tab && a.page === b.page && a.sort === b.sort && (a.platform ?? '') === (b.platform ?? '');
}

/** A new tab starts on page 1 and keeps the sort; out-of-range indexes wrap (for the arrow keys). */
export function withTab(state: DashboardState, tab: number): DashboardState {
  const n = TABS.length;
  return { ...state, tab: ((tab % n) + n) % n, page: 1 };
}

/** A new platform filter starts on page 1. */
export function withPlatformFilter(state: DashboardState, platform: Platform | ''): DashboardState {
  return { ...state, platform, page: 1 };
}

/** A new sort order starts on page 1. */
export function withSort(state: DashboardState, sort: SortBy): DashboardState {
  return { ...state, sort, page: 1 };
}
