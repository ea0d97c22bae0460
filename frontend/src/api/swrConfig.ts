import type { SWRConfiguration } from 'swr';
import { fetcher, statusOf } from './client';

/** Every read goes through this configuration (see App's <SWRConfig>). */
export const swrConfig: SWRConfiguration = {
  fetcher,
  // A 4xx answer will not change by asking again; retry only network and 5xx errors.
  onErrorRetry(error, _key, config, revalidate, { retryCount }) {
    const status = statusOf(error);
    if (status !== undefined && status >= 400 && status < 500) return;
    if (retryCount >= 5) return;
    const delay = Math.min(30_000, (config.errorRetryInterval ?? 5000) * 2 ** retryCount);
    setTimeout(() => void revalidate({ retryCount }), delay);
  },
};
