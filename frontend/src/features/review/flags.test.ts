import { describe, expect, it } from 'vitest';
import { flagLabel, flagSummary, needsOverride } from './flags';

describe('flagLabel', () => {
  it.each([
    { name: 'link', flag: 'link', want: 'Link' },
    { name: 'foreign mention', flag: 'foreign_mention', want: 'Foreign mention' },
    { name: 'near-duplicate', flag: 'near_duplicate', want: 'Near-duplicate' },
    { name: 'unknown flag as sent', flag: 'brand_new', want: 'brand new' },
  ])('$name', ({ flag, want }) => {
    expect(flagLabel(flag)).toBe(want);
  });
});

describe('needsOverride', () => {
  it.each([
    { name: 'none', flags: [], want: false },
    { name: 'near-duplicate alone', flags: ['near_duplicate'], want: false },
    { name: 'a link', flags: ['link'], want: true },
    { name: 'a secret beside a near-duplicate', flags: ['near_duplicate', 'secret'], want: true },
  ])('$name', ({ flags, want }) => {
    expect(needsOverride(flags)).toBe(want);
  });
});

describe('flagSummary', () => {
  it.each([
    { name: 'none', flags: [], want: '' },
    { name: 'one', flags: ['link'], want: 'The draft holds a link.' },
    {
      name: 'three',
      flags: ['link', 'placeholder', 'secret'],
      want: 'The draft holds a link, a leftover placeholder and text that looks like a key or token.',
    },
  ])('$name', ({ flags, want }) => {
    expect(flagSummary(flags)).toBe(want);
  });
});
