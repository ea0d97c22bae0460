import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { characterLength, counterLevel, fillPercent, graphemeLength, isTooLong, RESPONSE_LIMIT, responseLength, responseLimit, weightedLength } from './length';

describe('weightedLength', () => {
  it('counts plain Latin text one per character', () => {
    expect(weightedLength('')).toBe(0);
    expect(weightedLength('hello')).toBe(5);
    expect(weightedLength('a'.repeat(280))).toBe(280);
  });

  it('counts an emoji as two', () => {
    expect(weightedLength('hi 😀')).toBe(5);
    expect(weightedLength('👨‍👩‍👧')).toBe(2);
  });

  it('counts CJK characters as two', () => {
    expect(weightedLength('地獄')).toBe(4);
  });

  it('counts any link as 23', () => {
    expect(weightedLength('https://example.com/a/very/long/path/indeed/that/goes/on')).toBe(23);
    expect(weightedLength('see example.com')).toBe(4 + 23);
  });
});

describe('counterLevel', () => {
  it('is normal up to 90% of the limit', () => {
    expect(counterLevel(0)).toBe('normal');
    expect(counterLevel(252)).toBe('normal');
  });

  it('warns above 90%', () => {
    expect(counterLevel(253)).toBe('warning');
    expect(counterLevel(280)).toBe('warning');
  });

  it('is an error over the limit', () => {
    expect(counterLevel(281)).toBe('error');
  });

  it('follows a custom limit', () => {
    expect(counterLevel(9, 10)).toBe('normal');
    expect(counterLevel(10, 10)).toBe('warning');
    expect(counterLevel(11, 10)).toBe('error');
  });
});

describe('isTooLong and fillPercent', () => {
  it('allows exactly the limit', () => {
    expect(isTooLong(RESPONSE_LIMIT)).toBe(false);
    expect(isTooLong(RESPONSE_LIMIT + 1)).toBe(true);
  });

  it('caps the bar at 100%', () => {
    expect(fillPercent(0)).toBe(0);
    expect(fillPercent(140)).toBe(50);
    expect(fillPercent(560)).toBe(100);
  });
});

describe('weightedLength on the texts the server is tested with', () => {
  // pkg/twittertext/testdata/lengths.json pins twitter-text's count of every
  // sandbox post and offline writer line; the server's own test reads the same file.
  const file = fileURLToPath(new URL('../../../pkg/twittertext/testdata/lengths.json', import.meta.url));
  const cases = JSON.parse(readFileSync(file, 'utf8')) as { text: string; want: number }[];

  it('agrees on every one', () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const { text, want } of cases) {
      expect(weightedLength(text), text).toBe(want);
    }
  });
});

describe('weightedLength on twitter-text conformance cases', () => {
  // The v3 cases of twitter-text's conformance suite, kept beside the
  // repository (shared/twitter-text) as pkg/post's TestWeightedLengthConformance
  // reads them, so the card and the server agree on the same cases.
  const file = fileURLToPath(new URL('../../../../shared/twitter-text/weighted-length-v3.json', import.meta.url));
  const cases: { description: string; text: string; weightedLength: number }[] = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8'))
    : [];

  it.skipIf(cases.length === 0)('agrees on every one', () => {
    for (const { description, text, weightedLength: want } of cases) {
      expect(weightedLength(text), description).toBe(want);
    }
  });
});

describe('Bluesky lengths', () => {
  it('counts graphemes, whatever their code points', () => {
    expect(graphemeLength('')).toBe(0);
    expect(graphemeLength('hello')).toBe(5);
    expect(graphemeLength('👨‍👩‍👧')).toBe(1);
    expect(graphemeLength('🇫🇷🇩🇪')).toBe(2);
    expect(graphemeLength('e\u0301')).toBe(1);
  });

  it('counts a response by its platform rule', () => {
    const fire = '🔥'.repeat(300);
    expect(responseLength(fire, 'graphemes')).toBe(300);
    expect(responseLength(fire, 'weighted')).toBe(600);
    expect(responseLength(fire)).toBe(600);
    expect(isTooLong(responseLength(fire, 'graphemes'), 300)).toBe(false);
  });

  it('takes the limit from the post, else the table', () => {
    expect(responseLimit({ max_length: 300 }, 280)).toBe(300);
    expect(responseLimit({}, 300)).toBe(300);
    expect(responseLimit({ max_length: 280 })).toBe(280);
    expect(responseLimit({})).toBe(RESPONSE_LIMIT);
  });
});

describe('characterLength', () => {
  it('counts characters, every URL as 23, a remote mention by its local part', () => {
    expect(characterLength('hello')).toBe(5);
    expect(characterLength(`see https://example.com/${'a'.repeat(100)}`)).toBe(4 + 23);
    expect(characterLength('@alice@mastodon.social hi')).toBe('@alice hi'.length);
    expect(characterLength('日本語')).toBe(3);
  });
});
