import { describe, expect, it } from 'vitest';
import { goneSince, MAX_REASON, reasonProblem, reasonToSend, shapedByLine } from './learned';

describe('shapedByLine', () => {
  const cases: { name: string; input: Parameters<typeof shapedByLine>[0]; want: string | null }[] = [
    { name: 'both, plural', input: { cases: [1, 2, 3], lessons: [4, 5] }, want: 'Shaped by 3 past replies · 2 lessons' },
    { name: 'both, singular', input: { cases: [1], lessons: [9] }, want: 'Shaped by 1 past reply · 1 lesson' },
    { name: 'cases alone', input: { cases: [1, 2], lessons: [] }, want: 'Shaped by 2 past replies' },
    { name: 'one lesson alone', input: { cases: [], lessons: [7] }, want: 'Shaped by 1 lesson' },
    { name: 'nothing learned', input: { cases: [], lessons: [] }, want: null },
    { name: 'absent', input: undefined, want: null },
    { name: 'null', input: null, want: null },
  ];
  for (const c of cases) {
    it(c.name, () => expect(shapedByLine(c.input)).toBe(c.want));
  }
});

describe('goneSince', () => {
  const learned = { cases: [1, 2, 3], lessons: [4, 5] };
  const cases = [
    { name: 'all still there', shown: { cases: 3, lessons: 2 }, want: null },
    { name: 'one case gone', shown: { cases: 2, lessons: 2 }, want: '1 past reply was deleted since' },
    { name: 'some of each gone', shown: { cases: 1, lessons: 0 }, want: '2 past replies and 2 lessons were deleted since' },
    { name: 'more shown than named', shown: { cases: 4, lessons: 2 }, want: null },
  ];
  for (const c of cases) {
    it(c.name, () => expect(goneSince(learned, c.shown)).toBe(c.want));
  }
});

describe('the rejection reason', () => {
  const cases = [
    { name: 'none', input: '', problem: null, sent: undefined },
    { name: 'blank is none', input: '   ', problem: null, sent: undefined },
    { name: 'trimmed', input: '  Wrong tone ', problem: null, sent: 'Wrong tone' },
    { name: 'exactly the limit in emoji', input: '🔥'.repeat(MAX_REASON), problem: null, sent: '🔥'.repeat(MAX_REASON) },
    { name: 'one over', input: 'x'.repeat(MAX_REASON + 1), problem: 'Keep the reason to 200 characters', sent: 'x'.repeat(MAX_REASON + 1) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(reasonProblem(c.input)).toBe(c.problem);
      expect(reasonToSend(c.input)).toBe(c.sent);
    });
  }
});
