import useSWR from 'swr';
import type { PostList } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';
import { withPlatform } from '../../lib/platforms';

/** The Skipped view's list call (and SWR key) for a page, newest first, of one platform when platform is set. */
export function skippedKey(page: number, platform?: string): string {
  return withPlatform(`/api/posts/skipped?page=${page}&sortBy=date`, platform);
}

/** Whether an SWR key is a page of the Skipped view. */
export function isSkippedKey(key: unknown): boolean {
  return typeof key === 'string' && key.split('?')[0] === '/api/posts/skipped';
}

/** A page of the posts the guards skipped; nothing is fetched while the view is closed. */
export function useSkipped(page: number, open: boolean, platform?: string) {
  return useSWR<PostList>(open ? skippedKey(page, platform) : null, { refreshInterval: ADMIN_REFRESH_MS });
}
