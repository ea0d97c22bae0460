/** What a date that cannot be read is shown as. */
export const TEMPORAL_ANOMALY = 'TEMPORAL ANOMALY';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A Date for an ISO string, epoch milliseconds or a Date; null when it is not a valid date. */
export function parseDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null;
  let d: Date;
  if (value instanceof Date) d = new Date(value.getTime());
  else if (typeof value === 'string' || typeof value === 'number') d = new Date(value);
  else return null;
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Local date and time, or 'TEMPORAL ANOMALY' for an invalid date. */
export function formatTimestamp(value: unknown, locale?: string): string {
  const d = parseDate(value);
  return d ? d.toLocaleString(locale) : TEMPORAL_ANOMALY;
}

/**
 * 'just now' under a minute, 'Xm ago' under an hour, 'Xh ago' under a day,
 * then the locale date. Future dates (clock skew) count as 'just now'.
 */
export function relativeTime(value: unknown, now: number = Date.now(), locale?: string): string {
  const d = parseDate(value);
  if (!d) return TEMPORAL_ANOMALY;
  const seconds = Math.floor((now - d.getTime()) / 1000);
  if (seconds < MINUTE) return 'just now';
  if (seconds < HOUR) return `${Math.floor(seconds / MINUTE)}m ago`;
  if (seconds < DAY) return `${Math.floor(seconds / HOUR)}h ago`;
  return d.toLocaleDateString(locale);
}

/** A short age for a number of seconds: '<1m', '42m', '5h', '3d'. */
export function formatAge(seconds: unknown): string {
  const s = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
  if (s < MINUTE) return '<1m';
  if (s < HOUR) return `${Math.floor(s / MINUTE)}m`;
  if (s < DAY) return `${Math.floor(s / HOUR)}h`;
  return `${Math.floor(s / DAY)}d`;
}
