// Pure helpers of the Spend panel and the review cards' costs.

import type { ModelVision, Pause, TimelinePause } from '../api/types';
import { formatTimestamp } from './time';

/** A budget's state: no ceiling, under 80 %, at 80 % or more, spent. */
export type BudgetLevel = 'none' | 'ok' | 'warn' | 'over';

/** The share of a ceiling at which the dashboard warns (pkg/spend.WarnShare). */
export const WARN_SHARE = 0.8;

export function budgetLevel(spent: number, ceiling: number | null): BudgetLevel {
  if (ceiling === null || !(ceiling > 0)) return 'none';
  if (spent >= ceiling) return 'over';
  if (spent >= ceiling * WARN_SHARE) return 'warn';
  return 'ok';
}

/** US dollars with cents, or three decimals under a dollar so that $0.015 shows as such. */
export function formatUSD(usd: number): string {
  if (!Number.isFinite(usd)) return '$0.00';
  const digits = Math.abs(usd) < 1 && usd !== 0 ? 3 : 2;
  return `$${usd.toFixed(digits)}`;
}

/**
 * A pause of scanning and sending, in the banner: which platform (none
 * named when it is every platform's), why, and until when.
 */
export function pauseText(p: Pause, locale?: string): string {
  const where = p.platform ? ` on ${p.platform}` : '';
  const until = p.until ? ` (until ${formatTimestamp(p.until, locale)})` : '';
  return `Scanning and sending${where} are paused: ${p.reason}${until}.`;
}

/**
 * The banner of a timeline whose scans are paused: which, until when, and
 * why (the platform rejected its request); the other timelines go on.
 */
export function timelinePauseText(p: TimelinePause, locale?: string): string {
  const why = p.reason ? `: ${p.reason}` : '';
  return `Scans of ${p.platform ? `${p.platform} ` : ''}${p.timeline} are paused until ${formatTimestamp(p.until, locale)}${why}. The other timelines go on.`;
}

/**
 * What the Spend page says of the images sent to the model (MODEL_VISION):
 * whether they are sent, and each model that refused them under auto.
 */
export function visionText(v: ModelVision, locale?: string): string {
  const mode =
    v.mode === 'false'
      ? 'Images are not sent to the model (MODEL_VISION=false); their descriptions are in every prompt.'
      : v.mode === 'true'
        ? 'Images are sent to the model (MODEL_VISION=true), at low detail, with their descriptions.'
        : 'Images are sent to the model while it takes them (MODEL_VISION=auto), with their descriptions.';
  const blind = v.without_images.map(
    (m) =>
      ` ${m.model} takes no image input: its drafts go without images${m.since ? ` since ${formatTimestamp(m.since, locale)}` : ''}.`,
  );
  return mode + blind.join('');
}
