import useSWR from 'swr';
import type { History } from '../../api/types';

/** The history call (and SWR key) of a post. */
export function historyKey(id: number): string {
  return `/api/posts/${id}/history`;
}

/** Every version of a post's draft and every decision on it, oldest first; fetched only while open. */
export function useHistory(id: number, open: boolean) {
  // decisions and timing are optional: a server before them leaves them out.
  return useSWR<Pick<History, 'versions'> & Partial<Pick<History, 'decisions' | 'timing'>>>(open ? historyKey(id) : null);
}
