import { describe, expect, it } from 'vitest';
import { isAdminStatsKey } from './useAdminStats';

describe('isAdminStatsKey', () => {
  it('matches the counts of every platform filter, nothing else', () => {
    expect(isAdminStatsKey('/api/posts/stats')).toBe(true);
    expect(isAdminStatsKey('/api/posts/stats?platform=bluesky')).toBe(true);
    expect(isAdminStatsKey('/api/posts/statsx')).toBe(false);
    expect(isAdminStatsKey('/api/posts/pending?page=1')).toBe(false);
    expect(isAdminStatsKey(['/api/posts/stats'])).toBe(false);
  });
});
