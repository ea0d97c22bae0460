import useSWR from 'swr';
import type { PostList, SortBy } from './types';

/** The admin lists reload every 30 seconds. */
export const ADMIN_REFRESH_MS = 30_000;

/** The resource of each admin tab, by tab index 0 to 3. */
export const TAB_RESOURCES = ['pending', 'mentions', 'profile', 'targeted'] as const;

export function adminPostsKey(tab: number, page: number, sortBy: SortBy): string {
  const resource = TAB_RESOURCES[tab] ?? TAB_RESOURCES[0];
  return `/api/posts/${resource}?page=${page}&sortBy=${sortBy}`;
}

export function useAdminPosts(tab: number, page: number, sortBy: SortBy) {
  return useSWR<PostList>(adminPostsKey(tab, page, sortBy), { refreshInterval: ADMIN_REFRESH_MS });
}
