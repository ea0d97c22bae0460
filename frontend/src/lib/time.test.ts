import { describe, expect, it } from 'vitest';
import { formatAge, formatTimestamp, parseDate, relativeTime, TEMPORAL_ANOMALY } from './time';

const now = Date.parse('2026-11-22T12:00:00Z');
const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();

describe('relativeTime', () => {
  it("says 'just now' under a minute", () => {
    expect(relativeTime(ago(0), now)).toBe('just now');
    expect(relativeTime(ago(59), now)).toBe('just now');
  });

  it('treats a future date as just now', () => {
    expect(relativeTime(ago(-300), now)).toBe('just now');
  });

  it("says 'Xm ago' under an hour", () => {
    expect(relativeTime(ago(60), now)).toBe('1m ago');
    expect(relativeTime(ago(59 * 60 + 59), now)).toBe('59m ago');
  });

  it("says 'Xh ago' under a day", () => {
    expect(relativeTime(ago(3600), now)).toBe('1h ago');
    expect(relativeTime(ago(23 * 3600 + 3599), now)).toBe('23h ago');
  });

  it('gives the locale date from 24 hours on', () => {
    const then = ago(24 * 3600);
    expect(relativeTime(then, now, 'en-US')).toBe(new Date(then).toLocaleDateString('en-US'));
    expect(relativeTime(then, now, 'en-US')).not.toMatch(/ago/);
  });

  it("shows 'TEMPORAL ANOMALY' for an invalid date", () => {
    expect(relativeTime('not a date', now)).toBe(TEMPORAL_ANOMALY);
    expect(relativeTime(undefined, now)).toBe(TEMPORAL_ANOMALY);
    expect(relativeTime(null, now)).toBe(TEMPORAL_ANOMALY);
    expect(relativeTime({}, now)).toBe(TEMPORAL_ANOMALY);
  });
});

describe('formatTimestamp', () => {
  it('formats a valid date in the locale', () => {
    const iso = '2026-11-22T04:00:00Z';
    expect(formatTimestamp(iso, 'en-US')).toBe(new Date(iso).toLocaleString('en-US'));
  });

  it("shows 'TEMPORAL ANOMALY' for an invalid date", () => {
    expect(formatTimestamp('2026-13-45T99:00:00Z')).toBe('TEMPORAL ANOMALY');
    expect(formatTimestamp('')).toBe('TEMPORAL ANOMALY');
    expect(formatTimestamp(Number.NaN)).toBe('TEMPORAL ANOMALY');
  });
});

describe('parseDate', () => {
  it('reads ISO strings, epoch numbers and dates', () => {
    expect(parseDate('2026-11-22T04:00:00Z')?.getTime()).toBe(Date.parse('2026-11-22T04:00:00Z'));
    expect(parseDate(0)?.getTime()).toBe(0);
    expect(parseDate(new Date(5))?.getTime()).toBe(5);
    expect(parseDate('garbage')).toBeNull();
  });
});

describe('formatAge', () => {
  it('shortens seconds', () => {
    expect(formatAge(5)).toBe('<1m');
    expect(formatAge(1200)).toBe('20m');
    expect(formatAge(7200)).toBe('2h');
    expect(formatAge(3 * 86400 + 5)).toBe('3d');
    expect(formatAge(undefined)).toBe('<1m');
    expect(formatAge(-10)).toBe('<1m');
  });
});
