// Pure helpers of the reviewer's controls: the regenerate instruction, the
// draft's history, and bulk selection and its report.
import type { BulkRequest, BulkResult, Decision, Timing, VersionOrigin } from '../../api/types';

/** The longest instruction, in characters, a regenerate request may carry (as the API). */
export const MAX_INSTRUCTION = 200;

/** Why an instruction would be refused, or null when it may be sent (empty is fine). */
export function instructionProblem(instruction: string): string | null {
  const text = instruction.trim();
  if ([...text].length > MAX_INSTRUCTION) return `Keep the instruction to ${MAX_INSTRUCTION} characters`;
  // One line: no control characters, no line or paragraph separators.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) return 'Keep the instruction to one line';
  return null;
}

const ORIGIN_LABELS: Record<VersionOrigin, string> = {
  writer: 'Writer',
  regenerate: 'Regenerated',
  admin: 'Admin edit',
};

/** The label of a version's origin; an unknown origin is shown as it is. */
export function originLabel(origin: string): string {
  return ORIGIN_LABELS[origin as VersionOrigin] ?? origin;
}

const ACTION_LABELS: Record<string, string> = {
  approve: 'Approved',
  reject: 'Rejected',
  edit: 'Edited',
  regenerate: 'New draft asked',
  cancel: 'Cancelled',
  draft_anyway: 'Drafted anyway',
  mark_posted: 'Marked posted',
  give_up: 'Given up',
};

const CHANNEL_LABELS: Record<string, string> = {
  web: 'on the web',
  bulk: 'in bulk',
  telegram: 'on Telegram',
  autopilot: 'by the autopilot',
};

/**
 * A decision as the history lists it, e.g. "Approved on Telegram, version 2";
 * an unknown action or channel (a newer server's) is shown as it is.
 */
export function decisionLabel(d: Pick<Decision, 'draft_version'> & { action: string; by: string }): string {
  const action = Object.hasOwn(ACTION_LABELS, d.action) ? ACTION_LABELS[d.action] : d.action;
  const channel = Object.hasOwn(CHANNEL_LABELS, d.by) ? CHANNEL_LABELS[d.by] : `by ${d.by}`;
  return `${action} ${channel}, version ${d.draft_version}`;
}

/** The selection with id added when absent, removed when present. */
export function toggled(selected: ReadonlySet<number>, id: number): Set<number> {
  const next = new Set(selected);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** The selection kept to the ids still selectable (a card that left the page is no longer selected). */
export function keptTo(selected: ReadonlySet<number>, selectable: readonly number[]): Set<number> {
  return new Set(selectable.filter((id) => selected.has(id)));
}

/** Whether every selectable id is selected (and there is at least one). */
export function allSelected(selected: ReadonlySet<number>, selectable: readonly number[]): boolean {
  return selectable.length > 0 && selectable.every((id) => selected.has(id));
}

/** The select-all box's next selection: all selectable ids, or none when all were selected. */
export function selectAllToggled(selected: ReadonlySet<number>, selectable: readonly number[]): Set<number> {
  return allSelected(selected, selectable) ? new Set() : new Set(selectable);
}

/** A bulk action's verb, as the API names it. */
export type BulkAction = BulkRequest['action'];

/** What a bulk action reports: the summary line, one line per post, and whether any failed. */
export interface BulkReport {
  summary: string;
  lines: string[];
  failed: number;
}

/** Reports each post's result of a bulk action, successes and failures, in the order asked. */
export function bulkReport(action: BulkAction, results: readonly BulkResult[]): BulkReport {
  const done = action === 'approve' ? 'approved' : 'rejected';
  const ok = results.filter((r) => r.ok).length;
  const failed = results.length - ok;
  const posts = (n: number) => `${n} post${n === 1 ? '' : 's'}`;
  const summary =
    failed === 0
      ? `${posts(ok)} ${done}`
      : ok === 0
        ? `None of ${posts(failed)} ${done}`
        : `${posts(ok)} ${done}, ${failed} failed`;
  const lines = results.map((r) => (r.ok ? `#${r.id}: ${done}` : `#${r.id}: failed: ${r.error ?? `HTTP ${r.status}`}`));
  return { summary, lines, failed };
}

/** A duration in seconds as the card shows it: "45 s", "3 min 4 s", "2 h 5 min". */
export function formatSpan(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The card's latencies: mention → draft and draft → decision, each when both ends are known. */
export function timingSteps(t: Timing | undefined): string[] {
  if (!t) return [];
  const at = (v: string | null) => (v ? Date.parse(v) : NaN);
  const steps: string[] = [];
  const mention = at(t.mention_at);
  const drafted = at(t.drafted_at);
  const decided = at(t.decided_at);
  if (Number.isFinite(mention) && Number.isFinite(drafted)) steps.push(`Mention → draft ${formatSpan((drafted - mention) / 1000)}`);
  if (Number.isFinite(drafted) && Number.isFinite(decided)) steps.push(`Draft → decision ${formatSpan((decided - drafted) / 1000)}`);
  return steps;
}
