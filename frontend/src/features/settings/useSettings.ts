import useSWR from 'swr';
import type { Settings } from '../../api/types';

export const SETTINGS_KEY = '/api/settings';

/** The administrator's targets, topics, blocklists and caps; read once, not polled, so an edit is never overwritten. */
export function useSettings() {
  return useSWR<Settings>(SETTINGS_KEY, { revalidateOnFocus: false, revalidateOnReconnect: false });
}
