import { describe, expect, it } from 'vitest';
import { formatPercent, num, responseRate } from './numbers';

describe('num', () => {
  it('keeps numbers', () => {
    expect(num(12)).toBe(12);
    expect(num(0)).toBe(0);
    expect(num(75.5)).toBe(75.5);
  });

  it('defaults anything else to 0', () => {
    expect(num(undefined)).toBe(0);
    expect(num(null)).toBe(0);
    expect(num('12')).toBe(0);
    expect(num(Number.NaN)).toBe(0);
    expect(num(Number.POSITIVE_INFINITY)).toBe(0);
  });
});

describe('responseRate', () => {
  it('is replies over mentions as a rounded percent', () => {
    expect(responseRate(6, 10)).toBe(60);
    expect(responseRate(2, 3)).toBe(67);
    expect(responseRate(1, 3)).toBe(33);
    expect(responseRate(10, 10)).toBe(100);
  });

  it('is 0 when either side is missing or zero', () => {
    expect(responseRate(0, 10)).toBe(0);
    expect(responseRate(5, 0)).toBe(0);
    expect(responseRate(undefined, 10)).toBe(0);
    expect(responseRate(5, undefined)).toBe(0);
    expect(responseRate(null, null)).toBe(0);
  });
});

describe('formatPercent', () => {
  it('shows one decimal at most', () => {
    expect(formatPercent(75)).toBe('75%');
    expect(formatPercent(66.7)).toBe('66.7%');
    expect(formatPercent(66.666)).toBe('66.7%');
    expect(formatPercent(undefined)).toBe('0%');
  });
});
