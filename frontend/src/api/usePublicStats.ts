import useSWR from 'swr';
import type { Lenient } from './lenient';
import type { PublicStats } from './types';

/** The home page refreshes every 5 minutes. */
export const HOME_REFRESH_MS = 300_000;

/** The home figures; read as Lenient because the spec has the page default every missing number to 0. */
export function usePublicStats() {
  return useSWR<Lenient<PublicStats>>('/api/public/stats', { refreshInterval: HOME_REFRESH_MS });
}
