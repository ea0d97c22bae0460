import useSWR from 'swr';
import type { PostList } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';

/** The Skipped view's list call (and SWR key) for a page, newest first. */
export function skippedKey(page: number): string {
  return `/api/posts/skipped?page=${page}&sortBy=date`;
}

/** Whether an SWR key is a page of the Skipped view. */
export function isSkippedKey(key: unknown): boolean {
  return typeof key === 'string' && key.split('?')[0] === '/api/posts/skipped';
}

/** A page of the posts the guards skipped; nothing is fetched while the view is closed. */
export function useSkipped(page: number, open: boolean) {
  return useSWR<PostList>(open ? skippedKey(page) : null, { refreshInterval: ADMIN_REFRESH_MS });
}
