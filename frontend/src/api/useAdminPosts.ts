import useSWR from 'swr';
import { TABS, type DashboardState } from '../lib/reviewQueues';
import type { PostList } from './types';

/** The admin lists reload every 30 seconds. */
export const ADMIN_REFRESH_MS = 30_000;

/** The list call (and SWR key) of a tab's page in a sort order: /api/posts/{tab id}?page&sortBy. */
export function adminPostsKey({ tab, page, sort }: DashboardState): string {
  const resource = (TABS[tab] ?? TABS[0]).id;
  return `/api/posts/${resource}?page=${page}&sortBy=${sort}`;
}

export function useAdminPosts(view: DashboardState) {
  return useSWR<PostList>(adminPostsKey(view), { refreshInterval: ADMIN_REFRESH_MS });
}
