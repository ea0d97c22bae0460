import { describe, expect, it } from 'vitest';
import { autoApprovedText, autoPostingText, type HistoryDecision } from './autopilot';

describe('autoPostingText', () => {
  const at = Date.parse('2026-11-26T09:00:00Z');
  it.each([
    ['2026-11-26T09:01:42Z', 'Auto-posting in 1:42'],
    ['2026-11-26T09:00:05Z', 'Auto-posting in 0:05'],
    ['2026-11-26T09:00:00.200Z', 'Auto-posting in 0:01'],
    ['2026-11-26T10:00:00Z', 'Auto-posting in 60:00'],
    ['2026-11-26T08:59:00Z', 'Auto-posting in 0:00'],
  ])('%s at 09:00:00 is %s', (sendAfter, want) => {
    expect(autoPostingText(sendAfter, at)).toBe(want);
  });
  it.each([null, undefined, '', 'soon', {}])('%s is no countdown', (garbage) => {
    expect(autoPostingText(garbage, at)).toBeNull();
  });
});

describe('autoApprovedText', () => {
  it('is the newest auto-approval summary', () => {
    expect(
      autoApprovedText([
        { action: 'approve', by: 'autopilot', detail: { summary: 'Auto-approved: any author, review 4/5' } },
        { action: 'cancel', by: 'web' },
        { action: 'approve', by: 'autopilot', detail: { summary: 'Auto-approved: trusted author @x, review 5/5' } },
      ]),
    ).toBe('Auto-approved: trusted author @x, review 5/5');
  });
  it.each<[readonly HistoryDecision[] | undefined]>([
    [undefined],
    [[]],
    [[{ action: 'approve', by: 'web', detail: { summary: 'not the autopilot' } }]],
    [[{ action: 'approve', by: 'autopilot' }]],
    [[{ action: 'approve', by: 'autopilot', detail: { summary: 5 } }]],
  ])('is null without one: %j', (decisions) => {
    expect(autoApprovedText(decisions)).toBeNull();
  });
});
