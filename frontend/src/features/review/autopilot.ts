import type { Decision } from '../../api/types';
import { parseDate } from '../../lib/time';

/**
 * "Auto-posting in 1:42": the time left of an auto-approval's grace window
 * at now, never below 0:00; null when sendAfter is not a date.
 */
export function autoPostingText(sendAfter: unknown, now: number): string | null {
  const d = parseDate(sendAfter);
  if (!d) return null;
  const left = Math.max(0, Math.ceil((d.getTime() - now) / 1000));
  return `Auto-posting in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

/** A decision of a post's history (GET /api/posts/{id}/history), as far as the note reads it; a missing detail is no summary. */
export type HistoryDecision = Partial<Pick<Decision, 'detail'>> & Pick<Decision, 'action' | 'by'>;

/**
 * The card's explanation of the newest auto-approval in decisions, such as
 * "Auto-approved: trusted author @x, review 5/5"; null when there is none.
 */
export function autoApprovedText(decisions: readonly HistoryDecision[] | undefined): string | null {
  const last = [...(decisions ?? [])].reverse().find((d) => d.action === 'approve' && d.by === 'autopilot');
  const summary = last?.detail?.summary;
  return typeof summary === 'string' && summary !== '' ? summary : null;
}
