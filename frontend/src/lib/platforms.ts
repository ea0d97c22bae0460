// Pure helpers of the platforms: the admin's platform filter,
// the spend grouped by platform, and the public page's breakdown.

import type { Platform } from '../api/types';

/** What the helpers read of a platform of the table (GET /api/platforms). */
export interface PlatformInfo {
  name: string;
  label: string;
}

/** A platform's name for display, from the table; "" (a window of no platform) is the model provider's; a platform the table lacks is its name. */
export function platformLabel(platform: string, table: readonly PlatformInfo[] = []): string {
  if (platform === '') return 'Model';
  return table.find((p) => p.name === platform)?.label ?? platform;
}

/** What a platform's name looks like; the server refuses the names it does not know. */
const PLATFORM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * The platform a URL's ?platform= asks for, '' (every platform) when missing or
 * malformed, or, once the table is known, not one of it.
 */
export function parsePlatform(value: string | null, table: readonly PlatformInfo[] = []): Platform | '' {
  if (!value || !PLATFORM_NAME.test(value)) return '';
  if (table.length > 0 && !table.some((p) => p.name === value)) return '';
  return value as Platform;
}

/** Whether the admin offers its platform filter: when several platforms are configured. */
export function showPlatformFilter(platforms: readonly string[] | undefined): boolean {
  return (platforms?.length ?? 0) > 1;
}

/** An admin list's call with its platform filter: "" leaves the call as it is. */
export function withPlatform(key: string, platform: string | undefined): string {
  if (!platform) return key;
  return `${key}${key.includes('?') ? '&' : '?'}platform=${encodeURIComponent(platform)}`;
}

/** A group of items of one platform. */
export interface PlatformGroup<T> {
  platform: string;
  items: T[];
}

/**
 * Items grouped by their platform: the platforms of order first, in that
 * order, then the others as they come, "" (no platform) last; the items
 * keep their order within a group, and no group is empty.
 */
export function groupByPlatform<T extends { platform: string }>(items: readonly T[], order: readonly string[] = []): PlatformGroup<T>[] {
  const groups = new Map<string, T[]>();
  for (const p of order) groups.set(p, []);
  for (const item of items) {
    const g = groups.get(item.platform);
    if (g) g.push(item);
    else groups.set(item.platform, [item]);
  }
  const out = [...groups].filter(([, g]) => g.length > 0).map(([platform, g]) => ({ platform, items: g }));
  return [...out.filter((g) => g.platform !== ''), ...out.filter((g) => g.platform === '')];
}

/** One platform's line of the public page's breakdown. */
export interface PlatformFigure {
  platform: string;
  label: string;
  posted: number;
  mentions: number;
}

interface Counters {
  posted_sins?: unknown;
  pending_sins?: unknown;
  mortal_interactions?: { total_mentions?: unknown };
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * The public page's breakdown by platform: the posts claimed and the
 * mentions of each platform that has any, in the platforms' order; none
 * unless more than one platform has counts.
 */
export function platformBreakdown(
  byPlatform: Record<string, Counters | undefined> | undefined,
  table: readonly PlatformInfo[] = [],
): PlatformFigure[] {
  if (!byPlatform) return [];
  const known: string[] = table.map((p) => p.name).filter((p) => p in byPlatform);
  const others = Object.keys(byPlatform)
    .filter((p) => !known.includes(p))
    .sort();
  const lines = [...known, ...others]
    .map((platform) => {
      const c = byPlatform[platform];
      return {
        platform,
        label: platformLabel(platform, table),
        posted: count(c?.posted_sins),
        pending: count(c?.pending_sins),
        mentions: count(c?.mortal_interactions?.total_mentions),
      };
    })
    .filter((l) => l.posted + l.pending + l.mentions > 0);
  if (lines.length < 2) return [];
  return lines.map(({ platform, label, posted, mentions }) => ({ platform, label, posted, mentions }));
}
