import { describe, expect, it } from 'vitest';
import { groupByPlatform, parsePlatform, platformBreakdown, platformLabel, showPlatformFilter, withPlatform } from './platforms';

const TABLE = [
  { name: 'x', label: 'X' },
  { name: 'bluesky', label: 'Bluesky' },
  { name: 'sandbox', label: 'Sandbox' },
];

describe('parsePlatform', () => {
  it.each([
    ['x', 'x'],
    ['bluesky', 'bluesky'],
    ['sandbox', 'sandbox'],
    [null, ''],
    ['', ''],
    ['X', ''],
    ['myspace', ''],
  ])('%s is %s', (value, want) => {
    expect(parsePlatform(value, TABLE)).toBe(want);
  });
  it('takes any name before the table is known; the server refuses the others', () => {
    expect(parsePlatform('mastodon')).toBe('mastodon');
    expect(parsePlatform('X')).toBe('');
    expect(parsePlatform("' OR 1=1")).toBe('');
  });
});

describe('showPlatformFilter', () => {
  it.each([
    [undefined, false],
    [[], false],
    [['x'], false],
    [['x', 'bluesky'], true],
  ])('%j: %s', (platforms, want) => {
    expect(showPlatformFilter(platforms)).toBe(want);
  });
});

describe('withPlatform', () => {
  it.each([
    ['/api/posts/pending?page=1&sortBy=date', '', '/api/posts/pending?page=1&sortBy=date'],
    ['/api/posts/pending?page=1&sortBy=date', undefined, '/api/posts/pending?page=1&sortBy=date'],
    ['/api/posts/pending?page=1&sortBy=date', 'bluesky', '/api/posts/pending?page=1&sortBy=date&platform=bluesky'],
    ['/api/posts/queued', 'x', '/api/posts/queued?platform=x'],
  ])('%s with %s', (key, platform, want) => {
    expect(withPlatform(key, platform)).toBe(want);
  });
});

describe('platformLabel', () => {
  it('names the platforms and the model', () => {
    expect(['x', 'bluesky', 'sandbox', '', 'mastodon'].map((p) => platformLabel(p, TABLE))).toEqual(['X', 'Bluesky', 'Sandbox', 'Model', 'mastodon']);
  });
});

describe('groupByPlatform', () => {
  const w = (platform: string, endpoint: string) => ({ platform, endpoint });
  it('puts the ordered platforms first, the others as they come, no platform last', () => {
    const items = [w('', 'model a'), w('x', 'GET /2/a'), w('bluesky', 'bluesky b'), w('x', 'POST /2/c'), w('mastodon', 'm')];
    expect(groupByPlatform(items, ['bluesky', 'x', 'sandbox'])).toEqual([
      { platform: 'bluesky', items: [w('bluesky', 'bluesky b')] },
      { platform: 'x', items: [w('x', 'GET /2/a'), w('x', 'POST /2/c')] },
      { platform: 'mastodon', items: [w('mastodon', 'm')] },
      { platform: '', items: [w('', 'model a')] },
    ]);
  });
  it('has no group for nothing', () => {
    expect(groupByPlatform([], ['x'])).toEqual([]);
  });
});

describe('platformBreakdown', () => {
  const counters = (posted: number, pending: number, mentions: number) => ({
    posted_sins: posted,
    pending_sins: pending,
    mortal_interactions: { total_mentions: mentions },
  });
  it('lists each platform with counts, in the platforms order, when two have some', () => {
    expect(platformBreakdown({ bluesky: counters(3, 1, 8), x: counters(12, 0, 40) }, TABLE)).toEqual([
      { platform: 'x', label: 'X', posted: 12, mentions: 40 },
      { platform: 'bluesky', label: 'Bluesky', posted: 3, mentions: 8 },
    ]);
  });
  it.each([
    ['missing', undefined],
    ['empty', {}],
    ['one platform', { x: counters(12, 0, 40) }],
    ['one platform with counts', { x: counters(12, 0, 40), bluesky: counters(0, 0, 0) }],
  ])('is empty when %s', (_, byPlatform) => {
    expect(platformBreakdown(byPlatform, TABLE)).toEqual([]);
  });
  it('reads missing numbers as 0', () => {
    expect(platformBreakdown({ x: { posted_sins: 2 }, bluesky: { mortal_interactions: { total_mentions: 'many' }, pending_sins: 1 } }, TABLE)).toEqual([
      { platform: 'x', label: 'X', posted: 2, mentions: 0 },
      { platform: 'bluesky', label: 'Bluesky', posted: 0, mentions: 0 },
    ]);
  });
});
