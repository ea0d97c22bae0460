// Test helpers for code that calls the API: a stand-in for the browser's
// storage, events and fetch. Imported by tests only.
import { vi } from 'vitest';
import { SESSION_LOST_EVENT } from './client';

/** A stand-in for the browser: localStorage, window events and fetch answering status with body. */
export function browser(status: number, body: unknown) {
  const store = new Map<string, string>();
  const events = new EventTarget();
  const lost = vi.fn();
  events.addEventListener(SESSION_LOST_EVENT, lost);
  vi.stubGlobal('window', {
    localStorage: {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    },
    dispatchEvent: (e: Event) => events.dispatchEvent(e),
  });
  const fetch = vi.fn(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetch);
  return { store, lost, fetch };
}

/** The JSON body of the nth fetch call. */
export function sentBody(fetch: ReturnType<typeof vi.fn>, n = 0): unknown {
  const init = fetch.mock.calls[n][1] as RequestInit;
  return JSON.parse(init.body as string);
}
