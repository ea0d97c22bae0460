import { describe, expect, it } from 'vitest';
import { adminPostsKey, isAdminPostsKeyOfTab } from './useAdminPosts';

describe('isAdminPostsKeyOfTab', () => {
  const cases: { name: string; key: unknown; tab: number; want: boolean }[] = [
    { name: 'the same page', key: adminPostsKey({ tab: 0, page: 1, sort: 'date' }), tab: 0, want: true },
    { name: 'another page and order', key: adminPostsKey({ tab: 0, page: 3, sort: 'likes' }), tab: 0, want: true },
    { name: 'another tab', key: adminPostsKey({ tab: 1, page: 1, sort: 'date' }), tab: 0, want: false },
    { name: 'the statistics', key: '/api/posts/stats', tab: 0, want: false },
    { name: 'a key that is no string', key: ['/api/posts/pending'], tab: 0, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isAdminPostsKeyOfTab(c.key, c.tab)).toBe(c.want);
    });
  }
});
