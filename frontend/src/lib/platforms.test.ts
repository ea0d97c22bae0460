import { describe, expect, it } from 'vitest';
import { platformLabel } from './platforms';

describe('platformLabel', () => {
  it.each([
    ['x', 'X'],
    ['bluesky', 'Bluesky'],
    ['sandbox', 'Sandbox'],
    ['mastodon', 'mastodon'],
  ])('names %s as %s', (name, want) => {
    expect(platformLabel(name)).toBe(want);
  });
});
