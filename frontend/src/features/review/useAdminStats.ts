import useSWR from 'swr';
import type { AdminStats } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';
import { withPlatform } from '../../lib/platforms';

export const ADMIN_STATS_KEY = '/api/posts/stats';

/** Whether an SWR key is the header counts' of some platform filter. */
export function isAdminStatsKey(key: unknown): boolean {
  return typeof key === 'string' && (key === ADMIN_STATS_KEY || key.startsWith(`${ADMIN_STATS_KEY}?`));
}

/** The header's counts, of the platform the admin filters on (every platform when none). */
export function useAdminStats(platform?: string) {
  // The previous counts stay while another platform's load, so the platform selector they name does not blink.
  return useSWR<AdminStats>(withPlatform(ADMIN_STATS_KEY, platform), { refreshInterval: ADMIN_REFRESH_MS, keepPreviousData: true });
}
