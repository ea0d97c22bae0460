import { describe, expect, it } from 'vitest';
import type { Pause, TimelinePause } from '../api/types';
import { budgetLevel, formatUSD, pauseText, timelinePauseText, visionText } from './spend';
import { formatTimestamp } from './time';

describe('budgetLevel', () => {
  it.each([
    { name: 'no ceiling', spent: 5, ceiling: null, want: 'none' },
    { name: 'zero ceiling is none', spent: 5, ceiling: 0, want: 'none' },
    { name: 'under 80 %', spent: 0.79, ceiling: 1, want: 'ok' },
    { name: 'at 80 %', spent: 0.8, ceiling: 1, want: 'warn' },
    { name: 'at the ceiling', spent: 1, ceiling: 1, want: 'over' },
    { name: 'past the ceiling', spent: 3, ceiling: 1, want: 'over' },
  ])('$name', ({ spent, ceiling, want }) => {
    expect(budgetLevel(spent, ceiling)).toBe(want);
  });
});

describe('formatUSD', () => {
  it.each([
    { name: 'a send', usd: 0.015, want: '$0.015' },
    { name: 'a send with a link', usd: 0.2, want: '$0.200' },
    { name: 'zero', usd: 0, want: '$0.00' },
    { name: 'dollars', usd: 70.456, want: '$70.46' },
    { name: 'not a number', usd: Number.NaN, want: '$0.00' },
  ])('$name', ({ usd, want }) => {
    expect(formatUSD(usd)).toBe(want);
  });
});

describe('timelinePauseText', () => {
  const until = '2026-11-26T14:00:00Z';
  const at = formatTimestamp(until, 'en-GB');
  it.each<{ name: string; pause: TimelinePause; want: string }>([
    {
      name: 'a timeline paused after a 400',
      pause: { platform: 'x', timeline: 'mentions', reason: 'the platform rejects the request', since: '2026-11-26T08:00:00Z', until },
      want: `Scans of x mentions are paused until ${at}: the platform rejects the request. The other timelines go on.`,
    },
    {
      name: 'no reason known',
      pause: { platform: '', timeline: 'x:search', reason: '', since: '2026-11-26T08:00:00Z', until },
      want: `Scans of x:search are paused until ${at}. The other timelines go on.`,
    },
  ])('$name', ({ pause, want }) => {
    expect(timelinePauseText(pause, 'en-GB')).toBe(want);
  });
});

describe('pauseText', () => {
  const until = '2026-11-26T14:00:00Z';
  const at = formatTimestamp(until, 'en-GB');
  const since = '2026-11-26T08:00:00Z';
  it.each<{ name: string; pause: Pause; want: string }>([
    {
      name: "the operator's pause of every platform",
      pause: { platform: '', reason: 'paused from Telegram', since, until: null },
      want: 'Scanning and sending are paused: paused from Telegram.',
    },
    {
      name: "one platform's, until X's reset",
      pause: { platform: 'x', reason: 'the usage cap is reached', since, until },
      want: `Scanning and sending on x are paused: the usage cap is reached (until ${at}).`,
    },
  ])('$name', ({ pause, want }) => {
    expect(pauseText(pause, 'en-GB')).toBe(want);
  });
});

describe('visionText', () => {
  it('says how images go to the model, and which model refused them', () => {
    expect(visionText({ mode: 'false', without_images: [] })).toBe(
      'Images are not sent to the model (MODEL_VISION=false); their descriptions are in every prompt.',
    );
    const since = '2026-11-28T14:00:00Z';
    expect(visionText({ mode: 'auto', without_images: [{ model: 'llama3.2', since }, { model: 'old', since: null }] }, 'en-GB')).toBe(
      'Images are sent to the model while it takes them (MODEL_VISION=auto), with their descriptions.' +
        ` llama3.2 takes no image input: its drafts go without images since ${formatTimestamp(since, 'en-GB')}.` +
        ' old takes no image input: its drafts go without images.',
    );
  });
});
