import useSWR from 'swr';
import type { PlatformDescriptor, PlatformTable } from './types';

const NONE: readonly PlatformDescriptor[] = [];

/** The table of platforms (GET /api/platforms): what the admin knows of each platform, read once and shared by every caller. */
export function usePlatforms(): readonly PlatformDescriptor[] {
  const { data } = useSWR<PlatformTable>('/api/platforms', { revalidateOnFocus: false, revalidateIfStale: false });
  return data?.platforms ?? NONE;
}
