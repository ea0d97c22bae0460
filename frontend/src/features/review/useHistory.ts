import useSWR from 'swr';
import type { Version } from '../../lib/review';

/** The history call (and SWR key) of a post. */
export function historyKey(id: number): string {
  return `/api/posts/${id}/history`;
}

/** Every version of a post's draft, oldest first; fetched only while open. */
export function useHistory(id: number, open: boolean) {
  return useSWR<{ versions: Version[] }>(open ? historyKey(id) : null);
}
