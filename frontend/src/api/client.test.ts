import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvePost, bulkReview, regeneratePost, rejectPost } from './admin';
import { ApiError, fetcher, send, SESSION_LOST_EVENT, TOKEN_KEY } from './client';

/** A stand-in for the browser: localStorage, window events and fetch answering status with body. */
function browser(status: number, body: unknown) {
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
function sentBody(fetch: ReturnType<typeof vi.fn>, n = 0): unknown {
  const init = fetch.mock.calls[n][1] as RequestInit;
  return JSON.parse(init.body as string);
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a 401 is handled once, in request()', () => {
  const cases: { name: string; status: number; token: boolean; call: () => Promise<unknown>; lost: boolean }[] = [
    { name: 'a read with the token refused', status: 401, token: true, call: () => fetcher('/api/posts/pending'), lost: true },
    { name: 'an action with the token refused', status: 401, token: true, call: () => send('/api/posts/1/reject'), lost: true },
    { name: 'a login refused, no token sent', status: 401, token: false, call: () => send('/api/auth/login', {}), lost: false },
    { name: 'a 403 keeps the session', status: 403, token: true, call: () => fetcher('/api/settings'), lost: false },
    { name: 'a 500 keeps the session', status: 500, token: true, call: () => fetcher('/api/stats'), lost: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const b = browser(c.status, { error: 'no' });
      if (c.token) b.store.set(TOKEN_KEY, 'tok');
      await expect(c.call()).rejects.toBeInstanceOf(ApiError);
      expect(b.lost).toHaveBeenCalledTimes(c.lost ? 1 : 0);
      expect(b.store.has(TOKEN_KEY)).toBe(c.token && !c.lost);
    });
  }
});

describe('ApiError reads the answer', () => {
  const cases: { name: string; body: unknown; version: number | undefined; message: string | undefined }[] = [
    { name: 'a stale draft', body: { error: 'the draft changed since it was shown', draft_version: 3 }, version: 3, message: 'the draft changed since it was shown' },
    { name: 'a version that is not a number', body: { error: 'x', draft_version: '3' }, version: undefined, message: 'x' },
    { name: 'a fractional version', body: { error: 'x', draft_version: 1.5 }, version: undefined, message: 'x' },
    { name: 'no body', body: undefined, version: undefined, message: undefined },
    { name: 'a body that is not an object', body: 'oops', version: undefined, message: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      browser(409, c.body);
      const err = await send('/api/posts/1/approve', {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).draftVersion).toBe(c.version);
      expect((err as ApiError).serverMessage).toBe(c.message);
    });
  }
});

describe('decisions send the draft version shown', () => {
  let b: ReturnType<typeof browser>;
  beforeEach(() => {
    b = browser(200, { results: [] });
  });

  const cases: { name: string; call: () => Promise<unknown>; want: unknown }[] = [
    { name: 'approve', call: () => approvePost(7, 2), want: { draft_version: 2 } },
    { name: 'approve an edit anyway', call: () => approvePost(7, 3, 'mine', true), want: { draft_version: 3, response: 'mine', override: true } },
    { name: 'approve a post never drafted (version 0)', call: () => approvePost(7, 0, 'typed'), want: { response: 'typed' } },
    { name: 'reject', call: () => rejectPost(7, 4), want: { draft_version: 4 } },
    { name: 'reject at version 0', call: () => rejectPost(7, 0), want: {} },
    { name: 'regenerate with a wish', call: () => regeneratePost(7, ' shorter ', 2), want: { draft_version: 2, instruction: 'shorter' } },
    {
      name: 'bulk items',
      call: () => bulkReview([{ id: 1, draftVersion: 3 }, { id: 2, draftVersion: 0 }], 'approve'),
      want: { items: [{ id: 1, draft_version: 3 }, { id: 2 }], action: 'approve' },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await c.call();
      expect(sentBody(b.fetch)).toEqual(c.want);
    });
  }
});
