import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser, sentBody } from '../../api/testing';
import { createLesson, deleteCase, deleteLesson, importCases, promoteLesson, updateLesson } from './api';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The method, address and body of the first call. */
function call(fetch: ReturnType<typeof vi.fn>) {
  const [url, init] = fetch.mock.calls[0] as [string, RequestInit & { headers: Record<string, string> }];
  return { url, method: init.method, type: init.headers['Content-Type'] };
}

describe('the learning calls', () => {
  const cases: { name: string; run: () => Promise<unknown>; url: string; method: string; body?: unknown }[] = [
    { name: 'add a lesson, trimmed', run: () => createLesson(' No emoji '), url: '/api/lessons', method: 'POST', body: { text: 'No emoji' } },
    { name: 'turn a lesson off', run: () => updateLesson(4, { enabled: false }), url: '/api/lessons/4', method: 'PATCH', body: { enabled: false } },
    { name: 'edit a lesson, trimmed', run: () => updateLesson(4, { text: ' Shorter ' }), url: '/api/lessons/4', method: 'PATCH', body: { text: 'Shorter' } },
    { name: 'delete a lesson', run: () => deleteLesson(4), url: '/api/lessons/4', method: 'DELETE' },
    { name: 'promote a lesson', run: () => promoteLesson(4), url: '/api/lessons/4/promote', method: 'POST' },
    { name: 'delete a case', run: () => deleteCase(9), url: '/api/cases/9', method: 'DELETE' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const b = browser(200, {});
      await c.run();
      const got = call(b.fetch);
      expect(got.url).toBe(c.url);
      expect(got.method).toBe(c.method);
      if (c.body !== undefined) expect(sentBody(b.fetch)).toEqual(c.body);
    });
  }

  it('imports the file as JSON lines, untouched', async () => {
    const b = browser(200, { imported: 1, skipped: [] });
    const lines = '{"mention":"cold brew?","reply":"Ice in the veins."}\n\n';
    expect(await importCases(lines)).toEqual({ imported: 1, skipped: [] });
    const got = call(b.fetch);
    expect(got.type).toBe('application/x-ndjson');
    expect((b.fetch.mock.calls[0] as unknown[])[1]).toMatchObject({ body: lines });
  });
});
