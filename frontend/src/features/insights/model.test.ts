import { describe, expect, it } from 'vitest';
import { dayEngagement, formatSeconds, formatShare, funnelAgrees, funnelRows, gapLabel, gapsOn, heatShade, lookupSentence } from './model';
import type { DayFigures, Funnel } from './types';

const funnel: Funnel = {
  seen: 10, waiting: 1, skipped: { retweet: 2, cap: 3 }, drafted: 4, pending: 1, approved: 2, approved_by_autopilot: 0,
  edited: 1, rejected: 1, sending: 0, posted: 1, awaiting_hand_post: 1, failed: 0,
};

describe('funnel', () => {
  it('lists the skipped reasons by count, under seen', () => {
    const rows = funnelRows(funnel);
    expect(rows[0]).toEqual({ label: 'Seen', count: 10, depth: 0 });
    expect(rows.slice(2, 4).map((r) => r.label)).toEqual(['Skipped: cap', 'Skipped: retweet']);
  });
  it('checks the sums', () => {
    expect(funnelAgrees(funnel)).toBe(true);
    expect(funnelAgrees({ ...funnel, seen: 11 })).toBe(false);
    expect(funnelAgrees({ ...funnel, posted: 2 })).toBe(false);
  });
});

describe('formats', () => {
  const cases: [number | null, string][] = [[null, '—'], [NaN, '—'], [12.4, '12 s'], [600, '10 min'], [5400, '1.5 h'], [172800, '2.0 d']];
  for (const [s, want] of cases) it(`${s} seconds`, () => expect(formatSeconds(s)).toBe(want));
  it('shares', () => {
    expect(formatShare(null)).toBe('—');
    expect(formatShare(0.456)).toBe('46 %');
  });
});

describe('gaps', () => {
  const closed = { platform: '', reason: 'X credits ran out', from: '2026-11-20T03:00:00Z', to: '2026-11-20T09:00:00Z' };
  const open = { platform: '', reason: 'rate limit', from: '2026-11-22T03:00:00Z', to: null };
  it('say no data instead of zero', () => {
    expect(gapLabel(closed)).toBe('No data: X credits ran out on 11-20');
    expect(gapLabel(open)).toBe('No data: rate limit since 11-22');
    expect(gapLabel({ ...open, platform: 'bluesky' }, [{ name: 'bluesky', label: 'Bluesky' }])).toBe('No data on Bluesky: rate limit since 11-22');
    expect(gapLabel({ ...closed, to: '2026-11-21T01:00:00Z' })).toBe('No data: X credits ran out from 11-20 to 11-21');
  });
  it('touch their days', () => {
    expect(gapsOn('2026-11-20', [closed, open])).toEqual([closed]);
    expect(gapsOn('2026-11-21', [closed, open])).toEqual([]);
    expect(gapsOn('2026-11-25', [closed, open])).toEqual([open]);
  });
  it('blank the engagement of their days', () => {
    const d: DayFigures = { day: '2026-11-20', mentions: 3, posted: 1, x_usd: 0, model_usd: 0, cost_per_post: 0, measured: 1, likes: 1, reposts: 1, replies: 1 };
    expect(dayEngagement(d, [closed])).toBeNull();
    expect(dayEngagement({ ...d, day: '2026-11-21' }, [closed])).toBe(5);
    expect(dayEngagement({ ...d, day: '2026-11-21', measured: 0 }, [closed])).toBeNull();
  });
});

describe('heat and lookups', () => {
  it('shades', () => {
    expect(heatShade(0, 0)).toBe(0);
    expect(heatShade(5, 10)).toBe(0.5);
    expect(heatShade(20, 10)).toBe(1);
  });
  it('says what became of a post', () => {
    expect(lookupSentence({ seen: true, platform_post_id: '5', status: 'skipped', reason: 'retweet', seen_at: 'x', post_id: null })).toBe(
      'Post 5 was seen; its fate: skipped (retweet).',
    );
    expect(lookupSentence({ seen: false, platform_post_id: '5', last_scan_at: null, newest_id: '' })).toContain('no mentions scan has run yet');
    expect(lookupSentence({ seen: false, platform_post_id: '5', last_scan_at: '2026-11-26T08:00:00Z', newest_id: '9' })).toContain('covering posts up to 9');
  });
});
