import useSWR from 'swr';
import type { PostList } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';
import { withPlatform } from '../../lib/platforms';

/** The "Waiting to send" list's call (and SWR key) for a page, in approval order, of one platform when platform is set. */
export function queuedKey(page: number, platform?: string): string {
  return withPlatform(`/api/posts/queued?page=${page}`, platform);
}

/** Whether an SWR key is a page of the "Waiting to send" list. */
export function isQueuedKey(key: unknown): boolean {
  return typeof key === 'string' && key.split('?')[0] === '/api/posts/queued';
}

/** A page of the approvals waiting for their first send; nothing is fetched while the list is closed. */
export function useQueued(page: number, open: boolean, platform?: string) {
  return useSWR<PostList>(open ? queuedKey(page, platform) : null, { refreshInterval: ADMIN_REFRESH_MS });
}
