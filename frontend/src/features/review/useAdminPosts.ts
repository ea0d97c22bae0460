import useSWR from 'swr';
import { ADMIN_REFRESH_MS } from '../../lib/constants';
import { TABS, type DashboardState } from './reviewQueues';
import type { PostList } from '../../api/types';
import { withPlatform } from '../../lib/platforms';


/** The list call (and SWR key) of a tab's page in a sort order: /api/posts/{tab id}?page&sortBy, and &platform when filtered. */
export function adminPostsKey({ tab, page, sort, platform }: DashboardState): string {
  const resource = (TABS[tab] ?? TABS[0]).id;
  return withPlatform(`/api/posts/${resource}?page=${page}&sortBy=${sort}`, platform);
}

/**
 * Whether an SWR key is one of adminPostsKey's lists of tab, in any page or
 * order: a verdict moves posts between the pages of its tab and changes
 * their count, so all of them are stale.
 */
export function isAdminPostsKeyOfTab(key: unknown, tab: DashboardState['tab']): boolean {
  if (typeof key !== 'string') return false;
  const path = adminPostsKey({ tab, page: 1, sort: 'date' }).split('?')[0];
  return key.split('?')[0] === path;
}

export function useAdminPosts(view: DashboardState) {
  return useSWR<PostList>(adminPostsKey(view), { refreshInterval: ADMIN_REFRESH_MS });
}
