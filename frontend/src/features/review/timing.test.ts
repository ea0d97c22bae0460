import { describe, expect, it } from 'vitest';
import { formatSpan, timingSteps } from './review';

describe('formatSpan', () => {
  it.each([
    [0, '0 s'],
    [44.6, '45 s'],
    [60, '1 min 0 s'],
    [184, '3 min 4 s'],
    [7500, '2 h 5 min'],
    [-3, '0 s'],
  ])('%s s is %s', (s, want) => expect(formatSpan(s)).toBe(want));
});

describe('timingSteps', () => {
  it('shows both steps once decided', () => {
    expect(
      timingSteps({
        mention_at: '2026-11-26T08:00:00Z',
        drafted_at: '2026-11-26T08:00:12Z',
        decided_at: '2026-11-26T08:03:16Z',
        posted_at: null,
      }),
    ).toEqual(['Mention → draft 12 s', 'Draft → decision 3 min 4 s']);
  });
  it('shows only what is known', () => {
    expect(timingSteps({ mention_at: '2026-11-26T08:00:00Z', drafted_at: '2026-11-26T08:00:12Z', decided_at: null, posted_at: null })).toEqual([
      'Mention → draft 12 s',
    ]);
    expect(timingSteps(undefined)).toEqual([]);
    expect(timingSteps({ mention_at: 'garbage', drafted_at: null, decided_at: null, posted_at: null })).toEqual([]);
  });
});
