// Pure helpers of the platforms: the admin's platform filter,
// the spend grouped by platform, and the public page's breakdown.

import type { Platform } from '../api/types';

/** The platforms a post may come from, in the admin's order (post.Platforms). */
export const PLATFORMS: readonly Platform[] = ['x', 'bluesky', 'sandbox'];

const LABELS: Record<string, string> = { x: 'X', bluesky: 'Bluesky', sandbox: 'Sandbox' };

/** A platform's name for display; "" (a window of no platform) is the model provider's. */
export function platformLabel(platform: string): string {
  if (platform === '') return 'Model';
  return LABELS[platform] ?? platform;
}

/** The platform a URL's ?platform= asks for, '' (every platform) when missing or unknown. */
export function parsePlatform(value: string | null): Platform | '' {
  return PLATFORMS.find((p) => p === value) ?? '';
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
export function platformBreakdown(byPlatform: Record<string, Counters | undefined> | undefined): PlatformFigure[] {
  if (!byPlatform) return [];
  const known = PLATFORMS.filter((p) => p in byPlatform);
  const others = Object.keys(byPlatform)
    .filter((p) => !(PLATFORMS as readonly string[]).includes(p))
    .sort();
  const lines = [...known, ...others]
    .map((platform) => {
      const c = byPlatform[platform];
      return {
        platform,
        label: platformLabel(platform),
        posted: count(c?.posted_sins),
        pending: count(c?.pending_sins),
        mentions: count(c?.mortal_interactions?.total_mentions),
      };
    })
    .filter((l) => l.posted + l.pending + l.mentions > 0);
  if (lines.length < 2) return [];
  return lines.map(({ platform, label, posted, mentions }) => ({ platform, label, posted, mentions }));
}
