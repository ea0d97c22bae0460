import useSWR from 'swr';
import type { PublicStats } from './types';

/** The home page refreshes every 5 minutes. */
export const HOME_REFRESH_MS = 300_000;

export function usePublicStats() {
  return useSWR<PublicStats>('/api/public/stats', { refreshInterval: HOME_REFRESH_MS });
}
