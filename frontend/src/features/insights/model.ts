// Pure functions shaping the insights for the admin's charts and tables.
import type { DayFigures, Funnel, Lookup, MetricGap } from './types';
import { platformLabel, type PlatformInfo } from '../../lib/platforms';

/** The ranges the insights answer, in days. */
export const RANGES = [7, 30, 90] as const;
export type Range = (typeof RANGES)[number];

export interface FunnelRow {
  label: string;
  count: number;
  /** How deep the row sits in the funnel: 0 for seen, 1 for its parts, 2 for theirs. */
  depth: number;
}

/** The funnel as rows, each part under the whole it belongs to, skipped reasons by count. */
export function funnelRows(f: Funnel): FunnelRow[] {
  const skipped = Object.entries(f.skipped)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => ({ label: `Skipped: ${reason}`, count, depth: 1 }));
  return [
    { label: 'Seen', count: f.seen, depth: 0 },
    { label: 'Waiting (not drafted yet)', count: f.waiting, depth: 1 },
    ...skipped,
    { label: 'Drafted', count: f.drafted, depth: 1 },
    { label: 'Pending review', count: f.pending, depth: 2 },
    { label: 'Rejected', count: f.rejected, depth: 2 },
    { label: 'Approved', count: f.approved, depth: 2 },
    { label: 'Edited before approval', count: f.edited, depth: 3 },
    { label: 'Approved by autopilot', count: f.approved_by_autopilot, depth: 3 },
    { label: 'Sending', count: f.sending, depth: 3 },
    { label: 'Posted', count: f.posted, depth: 3 },
    { label: 'Awaiting hand-posting', count: f.awaiting_hand_post, depth: 3 },
    { label: 'Failed', count: f.failed, depth: 3 },
  ];
}

/** Whether the funnel's sums agree, as the server promises. */
export function funnelAgrees(f: Funnel): boolean {
  const skipped = Object.values(f.skipped).reduce((a, b) => a + b, 0);
  return (
    f.seen === f.waiting + skipped + f.drafted &&
    f.drafted === f.pending + f.approved + f.rejected &&
    f.approved === f.sending + f.posted + f.awaiting_hand_post + f.failed
  );
}

/** A duration in seconds as a short text: "45 s", "12 min", "3.5 h", "2.1 d"; "—" when unknown. */
export function formatSeconds(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

/** A share from 0 to 1 as a percentage; "—" when unknown. */
export function formatShare(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : `${Math.round(v * 100)} %`;
}

/** A mean with one decimal; "—" when unknown. */
export function formatMean(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : v.toFixed(1);
}

/** The day (YYYY-MM-DD) of a timestamp, in UTC. */
function dayOf(ts: string): string {
  return ts.slice(0, 10);
}

/** The gaps that touch day (YYYY-MM-DD): a gap still open touches every day from its start. */
export function gapsOn(day: string, gaps: MetricGap[]): MetricGap[] {
  return gaps.filter((g) => dayOf(g.from) <= day && (g.to === null || dayOf(g.to) >= day));
}

/** What a chart says instead of zeros for a gap: "no data: X credits ran out on 11-20". */
export function gapLabel(g: MetricGap, table: readonly PlatformInfo[] = []): string {
  const from = dayOf(g.from).slice(5);
  const to = g.to ? dayOf(g.to).slice(5) : null;
  const when = to === null ? `since ${from}` : to === from ? `on ${from}` : `from ${from} to ${to}`;
  const on = g.platform ? ` on ${platformLabel(g.platform, table)}` : '';
  return `No data${on}: ${g.reason} ${when}`;
}

/** The engagement of a day (likes + 2 reposts + 2 replies), null when its metrics could not be read or none was measured. */
export function dayEngagement(d: DayFigures, gaps: MetricGap[]): number | null {
  if (gapsOn(d.day, gaps).length > 0 || d.measured === 0) return null;
  return d.likes + 2 * d.reposts + 2 * d.replies;
}

/** The seconds since the epoch of a day at midnight UTC, as uPlot's x axis takes them. */
export function daySeconds(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

/** The browser's time zone, UTC when it cannot tell. */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** The shade of a heatmap cell from 0 (none) to 1 (the busiest). */
export function heatShade(n: number, max: number): number {
  return max <= 0 || n <= 0 ? 0 : Math.min(1, n / max);
}

/** What a lookup answer says, in one sentence. */
export function lookupSentence(l: Lookup): string {
  if (l.seen) {
    const why = l.reason ? ` (${l.reason})` : '';
    return `Post ${l.platform_post_id} was seen; its fate: ${l.status.replaceAll('_', ' ')}${why}.`;
  }
  if (!l.last_scan_at) return `Post ${l.platform_post_id} was never seen, and no mentions scan has run yet.`;
  const newest = l.newest_id ? `, covering posts up to ${l.newest_id}` : '';
  return `Post ${l.platform_post_id} was never seen. The last mentions scan ran at ${l.last_scan_at}${newest}: a newer post waits for the next scan; an older one, X did not return.`;
}
