import { describe, expect, it } from 'vitest';
import { isLowScore, judgeLabel, personaVersionLabel, reviewBadge, reviewDetail } from './judgement';

describe('a review on a card', () => {
  it('badges the score out of 5', () => {
    expect(reviewBadge({ score: 4, reason: 'sharp', by: 'offline' })).toBe('Review 4/5');
  });

  it.each([
    { by: 'offline', want: 'the offline judge' },
    { by: 'gpt-4o-mini', want: 'gpt-4o-mini' },
    { by: ' ', want: 'an unnamed judge' },
  ])('names the judge $by', ({ by, want }) => {
    expect(judgeLabel(by)).toBe(want);
  });

  it('says the reason and who judged, in one sentence', () => {
    expect(reviewDetail({ score: 2, reason: 'Too long for a joke.', by: 'offline' })).toBe(
      'Too long for a joke (judged by the offline judge).',
    );
    expect(reviewDetail({ score: 5, reason: '', by: 'judge-model' })).toBe('No reason given (judged by judge-model).');
  });

  it('warns at 2 and below', () => {
    expect([1, 2, 3, 5].map(isLowScore)).toEqual([true, true, false, false]);
  });

  it('labels the persona version, nothing when unknown', () => {
    expect(personaVersionLabel(3)).toBe('persona v3');
    expect(personaVersionLabel(null)).toBeNull();
    expect(personaVersionLabel(undefined)).toBeNull();
  });
});
