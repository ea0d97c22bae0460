import { describe, expect, it } from 'vitest';
import { pageAfterRemoval, showPagination } from './pagination';

describe('pageAfterRemoval', () => {
  it('goes back one page when the only item of a page above 1 leaves', () => {
    expect(pageAfterRemoval(3, 1)).toBe(2);
    expect(pageAfterRemoval(2, 1)).toBe(1);
  });

  it('stays on page 1 even when its only item leaves', () => {
    expect(pageAfterRemoval(1, 1)).toBe(1);
  });

  it('stays when other items remain', () => {
    expect(pageAfterRemoval(3, 2)).toBe(3);
    expect(pageAfterRemoval(1, 10)).toBe(1);
  });
});

describe('showPagination', () => {
  it('shows only for more than one page', () => {
    expect(showPagination(0)).toBe(false);
    expect(showPagination(1)).toBe(false);
    expect(showPagination(2)).toBe(true);
    expect(showPagination(undefined)).toBe(false);
  });
});
