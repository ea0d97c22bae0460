import { describe, expect, it } from 'vitest';
import {
  allSelected,
  bulkReport,
  instructionProblem,
  keptTo,
  MAX_INSTRUCTION,
  decisionLabel,
  originLabel,
  selectAllToggled,
  toggled,
} from './review';

describe('instructionProblem', () => {
  const cases: { name: string; input: string; want: string | null }[] = [
    { name: 'empty', input: '', want: null },
    { name: 'a wish', input: 'less cruel', want: null },
    { name: 'exactly the limit', input: 'é'.repeat(MAX_INSTRUCTION), want: null },
    { name: 'emoji count once', input: '🔥'.repeat(MAX_INSTRUCTION), want: null },
    { name: 'spaces around do not count', input: `  ${'x'.repeat(MAX_INSTRUCTION)}  `, want: null },
    { name: 'one over', input: 'x'.repeat(MAX_INSTRUCTION + 1), want: 'Keep the instruction to 200 characters' },
    { name: 'two lines', input: 'shorter\ncrueler', want: 'Keep the instruction to one line' },
    { name: 'line separator', input: 'a\u2028b', want: 'Keep the instruction to one line' },
    { name: 'NUL', input: 'a\u0000b', want: 'Keep the instruction to one line' },
  ];
  for (const c of cases) {
    it(c.name, () => expect(instructionProblem(c.input)).toBe(c.want));
  }
});

describe('decisionLabel', () => {
  const cases = [
    { d: { action: 'approve', by: 'telegram', draft_version: 2 }, want: 'Approved on Telegram, version 2' },
    { d: { action: 'reject', by: 'web', draft_version: 1 }, want: 'Rejected on the web, version 1' },
    { d: { action: 'approve', by: 'bulk', draft_version: 3 }, want: 'Approved in bulk, version 3' },
    { d: { action: 'regenerate', by: 'web', draft_version: 1 }, want: 'New draft asked on the web, version 1' },
    { d: { action: 'edit', by: 'telegram', draft_version: 4 }, want: 'Edited on Telegram, version 4' },
    { d: { action: 'cancel', by: 'autopilot', draft_version: 5 }, want: 'Cancelled by the autopilot, version 5' },
    { d: { action: 'draft_anyway', by: 'web', draft_version: 0 }, want: 'Drafted anyway on the web, version 0' },
    { d: { action: 'mark_posted', by: 'web', draft_version: 2 }, want: 'Marked posted on the web, version 2' },
    { d: { action: 'give_up', by: 'web', draft_version: 1 }, want: 'Given up on the web, version 1' },
    { d: { action: 'summon', by: 'pigeon', draft_version: 1 }, want: 'summon by pigeon, version 1' },
    { d: { action: 'toString', by: 'constructor', draft_version: 0 }, want: 'toString by constructor, version 0' },
  ];
  for (const c of cases) {
    it(c.want, () => expect(decisionLabel(c.d)).toBe(c.want));
  }
});

describe('originLabel', () => {
  const cases = [
    { input: 'writer', want: 'Writer' },
    { input: 'regenerate', want: 'Regenerated' },
    { input: 'admin', want: 'Admin edit' },
    { input: 'oracle', want: 'oracle' },
  ];
  for (const c of cases) {
    it(c.input, () => expect(originLabel(c.input)).toBe(c.want));
  }
});

describe('selection', () => {
  it('toggles one id', () => {
    expect([...toggled(new Set([1, 2]), 2)]).toEqual([1]);
    expect([...toggled(new Set([1]), 3)]).toEqual([1, 3]);
  });
  it('keeps only selectable ids', () => {
    expect([...keptTo(new Set([1, 5, 9]), [9, 1, 4])]).toEqual([9, 1]);
  });
  it('knows when all are selected', () => {
    expect(allSelected(new Set([1, 2]), [1, 2])).toBe(true);
    expect(allSelected(new Set([1]), [1, 2])).toBe(false);
    expect(allSelected(new Set(), [])).toBe(false);
  });
  it('selects all, then none', () => {
    expect([...selectAllToggled(new Set([2]), [1, 2, 3])]).toEqual([1, 2, 3]);
    expect([...selectAllToggled(new Set([1, 2, 3]), [1, 2, 3])]).toEqual([]);
  });
});

describe('bulkReport', () => {
  const cases = [
    {
      name: 'all approved',
      action: 'approve' as const,
      results: [
        { id: 1, ok: true, error: null, status: 200 },
        { id: 2, ok: true, error: null, status: 200 },
      ],
      want: { summary: '2 posts approved', lines: ['#1: approved', '#2: approved'], failed: 0 },
    },
    {
      name: 'a mix, in order',
      action: 'reject' as const,
      results: [
        { id: 7, ok: false, error: 'not found', status: 404 },
        { id: 3, ok: true, error: null, status: 200 },
      ],
      want: { summary: '1 post rejected, 1 failed', lines: ['#7: failed: not found', '#3: rejected'], failed: 1 },
    },
    {
      name: 'all failed',
      action: 'approve' as const,
      results: [{ id: 4, ok: false, error: null, status: 503 }],
      want: { summary: 'None of 1 post approved', lines: ['#4: failed: HTTP 503'], failed: 1 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(bulkReport(c.action, c.results)).toEqual(c.want));
  }
});
