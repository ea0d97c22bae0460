import useSWR from 'swr';
import { statusOf } from './client';
import { isLogsPage, logsOffset, normalizeThread, type Thread } from '../lib/threads';

export const LOGS_POLL_MS = 30_000;

export type LogsState = 'loading' | 'ready' | 'error';

export interface LogsView {
  state: LogsState;
  threads: Thread[];
  hasMore: boolean;
  /** 'INFERNAL ERROR: {status}' or 'Invalid data structure' in the error state. */
  errorText: string;
}

/** One page (index from 0) of the public logs, polled every 30 seconds. */
export function useLogs(pageIndex: number): LogsView {
  const { data, error, isLoading } = useSWR<unknown>(`/api/public/logs?offset=${logsOffset(pageIndex)}`, {
    refreshInterval: LOGS_POLL_MS,
    keepPreviousData: true,
  });

  if (error) {
    const status = statusOf(error);
    return {
      state: 'error',
      threads: [],
      hasMore: false,
      errorText: status !== undefined ? `INFERNAL ERROR: ${status}` : error instanceof Error ? error.message : String(error),
    };
  }
  if (data === undefined) {
    return { state: 'loading', threads: [], hasMore: false, errorText: '' };
  }
  if (!isLogsPage(data)) {
    return { state: 'error', threads: [], hasMore: false, errorText: 'Invalid data structure' };
  }
  return {
    state: isLoading ? 'loading' : 'ready',
    threads: data.threads.map(normalizeThread),
    hasMore: data.pagination?.hasMore === true,
    errorText: '',
  };
}
