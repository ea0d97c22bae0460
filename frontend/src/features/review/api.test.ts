import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser, sentBody } from '../../api/testing';
import { approvePost, bulkReview, regeneratePost, rejectPost } from './api';

afterEach(() => {
  vi.unstubAllGlobals();
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
    { name: 'reject with a reason, trimmed', call: () => rejectPost(7, 4, ' Wrong tone '), want: { draft_version: 4, reason: 'Wrong tone' } },
    { name: 'reject with a blank reason sends none', call: () => rejectPost(7, 4, '  '), want: { draft_version: 4 } },
    { name: 'regenerate with a wish', call: () => regeneratePost(7, ' shorter ', 2), want: { draft_version: 2, instruction: 'shorter' } },
    {
      name: 'bulk items',
      call: () => bulkReview([{ id: 1, draftVersion: 3 }, { id: 2, draftVersion: 0 }], 'approve'),
      want: { items: [{ id: 1, draft_version: 3 }, { id: 2 }], action: 'approve' },
    },
    {
      name: 'bulk reject with a reason',
      call: () => bulkReview([{ id: 1, draftVersion: 3 }], 'reject', 'Off-topic'),
      want: { items: [{ id: 1, draft_version: 3 }], action: 'reject', reason: 'Off-topic' },
    },
    {
      name: 'bulk approve never sends a reason',
      call: () => bulkReview([{ id: 1, draftVersion: 3 }], 'approve', 'Off-topic'),
      want: { items: [{ id: 1, draft_version: 3 }], action: 'approve' },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await c.call();
      expect(sentBody(b.fetch)).toEqual(c.want);
    });
  }
});
