import useSWR from 'swr';
import type { Spend } from '../../api/types';
import { ADMIN_REFRESH_MS } from '../../lib/constants';

export const SPEND_KEY = '/api/spend';

/** What the persona costs, refreshed with the admin lists. */
export function useSpend() {
  return useSWR<Spend>(SPEND_KEY, { refreshInterval: ADMIN_REFRESH_MS });
}
