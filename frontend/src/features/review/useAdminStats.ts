import useSWR from 'swr';
import type { AdminStats } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';

export const ADMIN_STATS_KEY = '/api/posts/stats';

export function useAdminStats() {
  return useSWR<AdminStats>(ADMIN_STATS_KEY, { refreshInterval: ADMIN_REFRESH_MS });
}
