import { describe, expect, it } from 'vitest';
import { contrastRatio, cssVariables, luminance } from './contrast';

describe('contrast', () => {
  it('knows the extremes', () => {
    expect(luminance('#000')).toBe(0);
    expect(luminance('#ffffff')).toBe(1);
    expect(contrastRatio('#000000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777', '#777')).toBe(1);
  });

  it('matches a known pair', () => {
    // #767676 on white is the classic 4.54:1.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('rejects what is not a hex colour', () => {
    expect(() => luminance('red')).toThrow();
  });

  it('reads custom properties', () => {
    expect(cssVariables(':root { --a: #fff; --b-c: 1px solid red; }')).toEqual({ '--a': '#fff', '--b-c': '1px solid red' });
  });
});
