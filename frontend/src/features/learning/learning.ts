// Pure helpers of "What it learned": the lesson's text as the API takes it,
// the labels of lessons and cases, the cases' read, and an import's report.
import type { Case, CaseImport, LessonKind } from '../../api/types';

/** The longest lesson, in characters (as the API). */
export const MAX_LESSON = 200;

/** The length of a lesson as the server counts it: trimmed, in characters (code points). */
export function lessonLength(text: string): number {
  return [...text.trim()].length;
}

/**
 * Why a lesson's text would be refused (the API's rule: 1 to 200
 * characters, one line, no link and no @mention), or null when it may be
 * sent. The server checks it again and names `text` when it refuses it.
 */
export function lessonProblem(text: string): string | null {
  const t = text.trim();
  if (t === '') return 'Write the lesson';
  if (lessonLength(t) > MAX_LESSON) return `Keep the lesson to ${MAX_LESSON} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(t)) return 'Keep the lesson to one line';
  if (/(https?:\/\/|www\.)/i.test(t)) return 'A lesson holds no link';
  if (/(^|[^\w@])@\w/.test(t)) return 'A lesson names no @account';
  return null;
}

const KIND_LABELS: Record<LessonKind, string> = {
  edit: 'From an edit',
  rejection: 'From a rejection',
  manual: 'Written by you',
};

/** Where a lesson came from, in words; an unknown kind is shown as it is. */
export function kindLabel(kind: string): string {
  return Object.hasOwn(KIND_LABELS, kind) ? KIND_LABELS[kind as LessonKind] : kind;
}

const DECISION_LABELS: Record<Case['decision'], string> = {
  approved: 'Approved as written',
  edited: 'Approved after an edit',
  rejected: 'Rejected',
};

const CHANNEL_LABELS: Record<Case['by'], string> = {
  web: 'on the web',
  bulk: 'in bulk',
  telegram: 'on Telegram',
  autopilot: 'by the autopilot',
  import: 'imported',
};

/** A case's decision and channel: "Approved after an edit on Telegram", "Imported". */
export function caseDecisionLabel(c: Pick<Case, 'decision' | 'by'>): string {
  if (c.by === 'import') return 'Imported';
  const decision = Object.hasOwn(DECISION_LABELS, c.decision) ? DECISION_LABELS[c.decision] : c.decision;
  const channel = Object.hasOwn(CHANNEL_LABELS, c.by) ? CHANNEL_LABELS[c.by] : `by ${c.by}`;
  return `${decision} ${channel}`;
}

/** "used in 1 draft", "used in 12 drafts", "never used yet". */
export function usedLabel(n: number): string {
  return n === 0 ? 'never used yet' : `used in ${n} draft${n === 1 ? '' : 's'}`;
}

/** The read (and SWR key) of a page of cases matching q (all of them when q is blank). */
export function casesKey(page: number, q: string): string {
  const words = q.trim();
  return `/api/cases?page=${page}${words ? `&q=${encodeURIComponent(words)}` : ''}`;
}

/** Whether an SWR key is a read of the cases, any page or search. */
export function isCasesKey(key: unknown): boolean {
  return typeof key === 'string' && key.startsWith('/api/cases?');
}

/** An import's answer in one sentence: "Imported 118 cases; 2 lines skipped." */
export function importSummary(r: CaseImport): string {
  const imported = `Imported ${r.imported} case${r.imported === 1 ? '' : 's'}`;
  const n = r.skipped.length;
  return n === 0 ? `${imported}.` : `${imported}; ${n} line${n === 1 ? '' : 's'} skipped.`;
}

/** How many skipped lines an import's report lists; the rest are counted. */
export const SKIPPED_SHOWN = 50;
