// Pure helpers of what the persona learned, as the review card shows it:
// the line naming what shaped a draft, and the rejection's optional reason.
import type { LearnedFrom } from '../../api/types';

/** The longest rejection reason, in characters (as the API: a longer one is a 400 naming `reason`). */
export const MAX_REASON = 200;

/** The length of a reason as the server counts it: trimmed, in characters (code points). */
export function reasonLength(reason: string): number {
  return [...reason.trim()].length;
}

/** Why a rejection reason would be refused, or null when it may be sent (empty is none). */
export function reasonProblem(reason: string): string | null {
  return reasonLength(reason) > MAX_REASON ? `Keep the reason to ${MAX_REASON} characters` : null;
}

/** The reason to send with a rejection: trimmed, or undefined when there is none. */
export function reasonToSend(reason: string | undefined): string | undefined {
  const text = reason?.trim() ?? '';
  return text === '' ? undefined : text;
}

/** "1 lesson", "2 past replies": a count and its noun, singular or plural. */
function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * What shaped a draft, as its card says it: "Shaped by 3 past replies · 2
 * lessons" (either part alone when the other is none); null when nothing
 * did, or the answer says nothing of it.
 */
export function shapedByLine(learned: LearnedFrom | null | undefined): string | null {
  const cases = learned?.cases?.length ?? 0;
  const lessons = learned?.lessons?.length ?? 0;
  const parts: string[] = [];
  if (cases > 0) parts.push(counted(cases, 'past reply', 'past replies'));
  if (lessons > 0) parts.push(counted(lessons, 'lesson', 'lessons'));
  return parts.length === 0 ? null : `Shaped by ${parts.join(' · ')}`;
}

/**
 * What the disclosure cannot list: "1 past reply and 2 lessons were deleted
 * since" when the memory no longer holds some of the ids; null when it holds
 * them all.
 */
export function goneSince(learned: LearnedFrom, shown: { cases: number; lessons: number }): string | null {
  const cases = Math.max(0, learned.cases.length - shown.cases);
  const lessons = Math.max(0, learned.lessons.length - shown.lessons);
  const parts: string[] = [];
  if (cases > 0) parts.push(counted(cases, 'past reply', 'past replies'));
  if (lessons > 0) parts.push(counted(lessons, 'lesson', 'lessons'));
  if (parts.length === 0) return null;
  return `${parts.join(' and ')} ${cases + lessons === 1 ? 'was' : 'were'} deleted since`;
}
