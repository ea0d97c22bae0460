import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, fetcher, patch, remove, send, sendText, TOKEN_KEY } from './client';
import { browser } from './testing';

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

describe('the verbs send what they say', () => {
  const cases: { name: string; call: () => Promise<unknown>; method: string; type: string | undefined; body: string | undefined }[] = [
    { name: 'patch sends JSON', call: () => patch('/api/lessons/1', { enabled: false }), method: 'PATCH', type: 'application/json', body: '{"enabled":false}' },
    { name: 'remove sends no body', call: () => remove('/api/lessons/1'), method: 'DELETE', type: undefined, body: undefined },
    {
      name: 'sendText sends the text as it is',
      call: () => sendText('/api/cases/import', '{"mention":"a","reply":"b"}\n', 'application/x-ndjson'),
      method: 'POST',
      type: 'application/x-ndjson',
      body: '{"mention":"a","reply":"b"}\n',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const b = browser(200, { ok: true });
      await c.call();
      const init = (b.fetch.mock.calls[0] as unknown[])[1] as RequestInit & { headers: Record<string, string> };
      expect(init.method).toBe(c.method);
      expect(init.headers['Content-Type']).toBe(c.type);
      expect(init.body).toBe(c.body);
    });
  }
});
