import { describe, expect, it } from 'vitest';
import type { LearningWeek } from '../../api/types';
import { anyLearning, decisions, formatDistance, percent, weekShare } from './learning';

const week = (w: Partial<LearningWeek>): LearningWeek => ({
  week: '2026-11-23',
  drafts: 0,
  approved_unedited: 0,
  edited: 0,
  rejected: 0,
  mean_edit_distance: null,
  ...w,
});

describe('weekShare', () => {
  const cases = [
    { name: 'half edited', w: week({ approved_unedited: 1, edited: 2, rejected: 1 }), part: 'edited' as const, want: 0.5 },
    { name: 'all as written', w: week({ approved_unedited: 3 }), part: 'approved_unedited' as const, want: 1 },
    { name: 'none rejected', w: week({ approved_unedited: 3 }), part: 'rejected' as const, want: 0 },
    { name: 'a week without decisions', w: week({ drafts: 4 }), part: 'edited' as const, want: null },
  ];
  for (const c of cases) {
    it(c.name, () => expect(weekShare(c.w, c.part)).toBe(c.want));
  }
  it('counts every decision once', () => expect(decisions(week({ approved_unedited: 2, edited: 3, rejected: 4 }))).toBe(9));
});

describe('percent and formatDistance', () => {
  it('rounds a share to a whole percentage', () => {
    expect(percent(1 / 3)).toBe(33);
    expect(percent(null)).toBeNull();
  });
  it('says the distance to a tenth, or — without edits', () => {
    expect(formatDistance(12.345)).toBe('12.3');
    expect(formatDistance(null)).toBe('—');
    expect(formatDistance(Number.NaN)).toBe('—');
  });
});

describe('anyLearning', () => {
  it('is false for weeks of nothing', () => expect(anyLearning([week({}), week({ week: '2026-11-30' })])).toBe(false));
  it('is true with a draft', () => expect(anyLearning([week({ drafts: 1 })])).toBe(true));
  it('is true with a decision alone', () => expect(anyLearning([week({ rejected: 1 })])).toBe(true));
  it('is false for no weeks', () => expect(anyLearning([])).toBe(false));
});
