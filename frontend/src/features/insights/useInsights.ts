import useSWR from 'swr';
import type { Insights } from './types';

/** How often the insights are read again while shown. */
const INSIGHTS_REFRESH_MS = 60_000;

/** The insights of the last days, with days and hours in the time zone tz. */
export function useInsights(days: number, tz: string) {
  return useSWR<Insights>(`/api/insights?days=${days}&tz=${encodeURIComponent(tz)}`, { refreshInterval: INSIGHTS_REFRESH_MS });
}
