// Pure functions of "Is the persona learning?": the weekly decisions on drafts as shares.
import type { LearningWeek } from '../../api/types';

/** The decisions of a week: approved as written, edited, and rejected. */
export function decisions(w: LearningWeek): number {
  return w.approved_unedited + w.edited + w.rejected;
}

/** The share (0 to 1) of a week's decisions that part is; null in a week without decisions. */
export function weekShare(w: LearningWeek, part: 'approved_unedited' | 'edited' | 'rejected'): number | null {
  const n = decisions(w);
  return n === 0 ? null : w[part] / n;
}

/** A share as a percentage for the chart, whole; null stays null (nothing drawn). */
export function percent(v: number | null): number | null {
  return v === null ? null : Math.round(v * 100);
}

/** A mean edit distance (characters) as the table shows it: "12.5"; "—" in a week without edits. */
export function formatDistance(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : v.toFixed(1);
}

/** Whether the series holds any draft or decision at all. */
export function anyLearning(weekly: readonly LearningWeek[]): boolean {
  return weekly.some((w) => w.drafts > 0 || decisions(w) > 0);
}
