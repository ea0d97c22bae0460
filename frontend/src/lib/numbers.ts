/** A finite number, or 0 for anything missing or not a number. */
export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The response rate, replies over mentions, as a rounded percentage; 0 when
 * either side is missing or zero.
 */
export function responseRate(replies: unknown, mentions: unknown): number {
  const r = num(replies);
  const m = num(mentions);
  if (r === 0 || m === 0) return 0;
  return Math.round((r / m) * 100);
}

/** A percentage for display: at most one decimal, '0%' when missing. */
export function formatPercent(value: unknown): string {
  const v = num(value);
  return `${Math.round(v * 10) / 10}%`;
}
