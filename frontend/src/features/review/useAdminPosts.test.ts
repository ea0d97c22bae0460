import { describe, expect, it } from 'vitest';
import { adminPostsKey, isAdminPostsKeyOfTab } from './useAdminPosts';

describe('isAdminPostsKeyOfTab', () => {
  const cases: { name: string; key: unknown; tab: number; want: boolean }[] = [
    { name: 'the same page', key: adminPostsKey({ tab: 0, page: 1, sort: 'date' }), tab: 0, want: true },
    { name: 'another page and order', key: adminPostsKey({ tab: 0, page: 3, sort: 'likes' }), tab: 0, want: true },
    { name: 'another tab', key: adminPostsKey({ tab: 1, page: 1, sort: 'date' }), tab: 0, want: false },
    { name: 'one platform of the tab', key: adminPostsKey({ tab: 0, page: 1, sort: 'date', platform: 'bluesky' }), tab: 0, want: true },
    { name: 'the statistics', key: '/api/posts/stats', tab: 0, want: false },
    { name: 'a key that is no string', key: ['/api/posts/pending'], tab: 0, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isAdminPostsKeyOfTab(c.key, c.tab)).toBe(c.want);
    });
  }
});

describe('adminPostsKey', () => {
  it('asks for one platform when the filter is set, every one otherwise', () => {
    expect(adminPostsKey({ tab: 1, page: 2, sort: 'likes', platform: 'bluesky' })).toBe('/api/posts/mentions?page=2&sortBy=likes&platform=bluesky');
    expect(adminPostsKey({ tab: 1, page: 2, sort: 'likes', platform: '' })).toBe('/api/posts/mentions?page=2&sortBy=likes');
    expect(adminPostsKey({ tab: 1, page: 2, sort: 'likes' })).toBe('/api/posts/mentions?page=2&sortBy=likes');
  });
});
