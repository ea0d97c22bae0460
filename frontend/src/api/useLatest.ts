import useSWR from 'swr';
import { statusOf } from './client';
import type { LatestPost } from './types';
import { HOME_REFRESH_MS } from './usePublicStats';

/** The latest posted response; latest is null when there is none (404) or it cannot be read. */
export function useLatest() {
  const { data, error, isLoading } = useSWR<LatestPost>('/api/public/latest', {
    refreshInterval: HOME_REFRESH_MS,
  });
  const latest = error ? null : (data ?? null);
  return { latest, notFound: statusOf(error) === 404, error, isLoading };
}
