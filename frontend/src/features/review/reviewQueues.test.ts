import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DASHBOARD,
  PROFILE_TAB,
  TABS,
  dashboardQuery,
  parseDashboard,
  sameDashboard,
  withPlatformFilter,
  withSort,
  withTab,
} from './reviewQueues';

const parse = (query: string) => parseDashboard(new URLSearchParams(query));

describe('TABS', () => {
  it('are the four review queues, by index 0 to 3', () => {
    expect(TABS.map((t) => t.id)).toEqual(['pending', 'mentions', 'profile', 'targeted']);
    expect(TABS.map((t) => t.label)).toEqual(['Pending Sins', 'Mentions', 'Profile Tweets', 'Targeted Users']);
    expect(PROFILE_TAB).toBe(2);
  });
});

describe('parseDashboard', () => {
  const cases: { name: string; query: string; want: typeof DEFAULT_DASHBOARD }[] = [
    { name: 'empty query is the default', query: '', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'every value', query: 'tab=mentions&page=2&sort=likes', want: { tab: 1, page: 2, sort: 'likes' } },
    { name: 'any order, one value', query: 'sort=replies', want: { tab: 0, page: 1, sort: 'replies' } },
    { name: 'last tab', query: 'tab=targeted&page=12', want: { tab: 3, page: 12, sort: 'date' } },
    { name: 'unknown tab', query: 'tab=secrets&page=3', want: { tab: 0, page: 3, sort: 'date' } },
    { name: 'tab by index is not a tab id', query: 'tab=2', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'tab id is case-sensitive', query: 'tab=Mentions', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'unknown sort', query: 'tab=profile&sort=chaos', want: { tab: 2, page: 1, sort: 'date' } },
    { name: 'page zero', query: 'page=0', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'negative page', query: 'page=-2', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'page with junk', query: 'page=2x', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'fractional page', query: 'page=1.5', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'exponent page', query: 'page=1e3', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'leading zero', query: 'page=02', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'empty page', query: 'page=&tab=profile', want: { tab: 2, page: 1, sort: 'date' } },
    { name: 'page beyond a safe integer', query: 'page=99999999999999999999', want: { tab: 0, page: 1, sort: 'date' } },
    { name: 'first of repeated values', query: 'tab=profile&tab=mentions', want: { tab: 2, page: 1, sort: 'date' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(parse(c.query)).toEqual(c.want);
    });
  }
});

describe('dashboardQuery', () => {
  it('leaves the defaults out', () => {
    expect(dashboardQuery(DEFAULT_DASHBOARD).toString()).toBe('');
  });

  it('writes tab, page and sort in that order', () => {
    expect(dashboardQuery({ tab: 1, page: 2, sort: 'likes' }).toString()).toBe('tab=mentions&page=2&sort=likes');
    expect(dashboardQuery({ tab: 0, page: 3, sort: 'date' }).toString()).toBe('page=3');
  });

  it('round-trips through parseDashboard', () => {
    for (let tab = 0; tab < TABS.length; tab++) {
      for (const sort of ['date', 'engagement', 'likes', 'retweets', 'replies'] as const) {
        const state = { tab, page: tab + 1, sort };
        expect(parseDashboard(dashboardQuery(state))).toEqual(state);
      }
    }
  });
});

describe('sameDashboard', () => {
  const base = { tab: 1, page: 2, sort: 'likes' } as const;
  const cases: { name: string; other: typeof DEFAULT_DASHBOARD; want: boolean }[] = [
    { name: 'equal values', other: { tab: 1, page: 2, sort: 'likes' }, want: true },
    { name: 'another tab', other: { tab: 0, page: 2, sort: 'likes' }, want: false },
    { name: 'another page', other: { tab: 1, page: 1, sort: 'likes' }, want: false },
    { name: 'another sort', other: { tab: 1, page: 2, sort: 'date' }, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(sameDashboard(base, c.other)).toBe(c.want);
    });
  }
});

describe('withTab and withSort', () => {
  it('a new tab starts on page 1 and keeps the sort', () => {
    expect(withTab({ tab: 0, page: 2, sort: 'likes' }, 1)).toEqual({ tab: 1, page: 1, sort: 'likes' });
  });

  it('the same tab also goes back to page 1', () => {
    expect(withTab({ tab: 2, page: 4, sort: 'date' }, 2)).toEqual({ tab: 2, page: 1, sort: 'date' });
  });

  it('wraps indexes out of range', () => {
    expect(withTab(DEFAULT_DASHBOARD, 4).tab).toBe(0);
    expect(withTab(DEFAULT_DASHBOARD, -1).tab).toBe(3);
  });

  it('a new sort starts on page 1 and keeps the tab', () => {
    expect(withSort({ tab: 3, page: 2, sort: 'date' }, 'retweets')).toEqual({ tab: 3, page: 1, sort: 'retweets' });
  });
});

describe('the platform filter', () => {
  it('is kept in the URL and read back; an unknown one is every platform', () => {
    const state = { tab: 1, page: 1, sort: 'date' as const, platform: 'bluesky' as const };
    expect(dashboardQuery(state).toString()).toBe('tab=mentions&platform=bluesky');
    expect(parseDashboard(dashboardQuery(state))).toEqual(state);
    expect(parseDashboard(new URLSearchParams('platform=myspace'), [{ name: 'x', label: 'X' }])).toEqual(DEFAULT_DASHBOARD);
  });

  it('a new platform starts on page 1 and keeps the tab and sort', () => {
    expect(withPlatformFilter({ tab: 2, page: 3, sort: 'likes' }, 'x')).toEqual({ tab: 2, page: 1, sort: 'likes', platform: 'x' });
  });

  it('another platform is another view', () => {
    expect(sameDashboard({ tab: 0, page: 1, sort: 'date', platform: 'x' }, { tab: 0, page: 1, sort: 'date' })).toBe(false);
    expect(sameDashboard({ tab: 0, page: 1, sort: 'date', platform: '' }, { tab: 0, page: 1, sort: 'date' })).toBe(true);
  });
});
