// Pure helpers of the settings editor: the settings as form text and back,
// and which field a server error names.
import type {
  LearningSettings,
  PlatformDescriptor,
  PlatformOptions,
  Settings,
  SettingsAccount,
  SettingsCaps,
  SettingsInput,
} from '../../api/types';
import type { FormError } from '../../lib/formError';

/** The four lists the editor shows, one entry a line. */
export const LIST_FIELDS = ['target_usernames', 'search_topics', 'blocked_authors', 'blocked_phrases'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

/** The lists whose entries are accounts (a handle or a platform id), and the answer's field that resolves them. */
export const ACCOUNT_FIELDS: Partial<Record<ListField, 'target_ids' | 'blocked_author_ids'>> = {
  target_usernames: 'target_ids',
  blocked_authors: 'blocked_author_ids',
};

/**
 * What an account entry stands for beyond itself: "alice: id 123" for a
 * handle whose id is known, "4242: @seven" for an id whose handle is; null
 * when nothing more is known.
 */
export function accountNote(a: SettingsAccount): string | null {
  if (a.id && a.id !== a.entry) return `${a.entry}: id ${a.id}`;
  if (a.handle && a.handle !== a.entry) return `${a.entry}: @${a.handle}`;
  return null;
}

/** The caps the editor shows, in order. */
export const CAP_FIELDS = [
  'per_conversation',
  'per_author_per_day',
  'sends_per_3h',
  'sends_per_day',
  'near_duplicate',
  'context_depth',
  'min_review_score',
  'drafts_per_hour',
] as const;
export type CapField = (typeof CAP_FIELDS)[number];

/**
 * The range the server accepts for each cap (0, or empty here, takes its
 * default; for min_review_score 0 is off), as the inputs' min, max and step.
 */
export const CAP_RANGES: Record<CapField, { min: number; max: number; step: number }> = {
  per_conversation: { min: 1, max: 1000, step: 1 },
  per_author_per_day: { min: 1, max: 1000, step: 1 },
  sends_per_3h: { min: 1, max: 1000, step: 1 },
  sends_per_day: { min: 1, max: 1000, step: 1 },
  near_duplicate: { min: 0, max: 1, step: 0.05 },
  context_depth: { min: 1, max: 20, step: 1 },
  min_review_score: { min: 0, max: 5, step: 1 },
  drafts_per_hour: { min: 1, max: 100000, step: 1 },
};

/** The numbers of the learning settings, each with the range the server accepts. */
export const LEARNING_NUMBERS = {
  examples: { label: 'Past replies as examples', min: 0, max: 8 },
  lessons: { label: 'Lessons in a prompt', min: 0, max: 10 },
} as const;
export type LearningNumber = keyof typeof LEARNING_NUMBERS;

/** The learning settings of a fresh install, for an answer without them. */
export const DEFAULT_LEARNING: LearningSettings = { enabled: true, examples: 3, lessons: 5 };

/** A copy of each platform's own options (GET /api/platforms names them), none for an answer without them. */
export function copyOptions(o: PlatformOptions | undefined): PlatformOptions {
  const out: PlatformOptions = {};
  for (const [name, options] of Object.entries(o ?? {})) out[name] = { ...options };
  return out;
}

/** The settings as the editor's inputs hold them. */
export interface SettingsForm {
  lists: Record<ListField, string>;
  caps: Record<CapField, string>;
  learning: { enabled: boolean; numbers: Record<LearningNumber, string> };
  platforms: PlatformOptions;
}

export function toForm(s: Settings): SettingsForm {
  const lists = {} as Record<ListField, string>;
  for (const f of LIST_FIELDS) lists[f] = (s[f] ?? []).join('\n');
  const caps = {} as Record<CapField, string>;
  for (const f of CAP_FIELDS) caps[f] = String(s.caps?.[f] ?? '');
  const learning = s.learning ?? DEFAULT_LEARNING;
  return {
    lists,
    caps,
    learning: { enabled: learning.enabled, numbers: { examples: String(learning.examples), lessons: String(learning.lessons) } },
    platforms: copyOptions(s.platforms),
  };
}

/**
 * The learning settings to send: each number a whole number in its range,
 * else an error named as the server names the field ("learning.examples").
 */
export function fromLearningForm(form: SettingsForm['learning']): { learning: LearningSettings } | { error: FormError } {
  const n = {} as Record<LearningNumber, number>;
  for (const f of Object.keys(LEARNING_NUMBERS) as LearningNumber[]) {
    const { min, max } = LEARNING_NUMBERS[f];
    const raw = form.numbers[f].trim();
    const v = Number(raw);
    if (raw === '' || !Number.isInteger(v) || v < min || v > max) {
      return { error: { field: `learning.${f}`, message: `learning.${f}: "${raw}" is not a whole number from ${min} to ${max}` } };
    }
    n[f] = v;
  }
  return { learning: { enabled: form.enabled, ...n } };
}

/**
 * The settings to send (a SettingsInput: targets_not_found, target_ids and
 * blocked_author_ids are answered, never sent): each list one entry a line, blank lines dropped
 * (the server trims and checks the rest); each cap a number, an empty one 0
 * (the default); the learning settings, each number in its range; every
 * platform's own options as they are (sent whether or not the editor shows
 * them, so a save keeps them). A cap that is not a number, or a learning number
 * out of range, is a FormError.
 */
export function fromForm(form: SettingsForm): { settings: SettingsInput } | { error: FormError } {
  const lists = {} as Record<ListField, string[]>;
  for (const f of LIST_FIELDS) {
    lists[f] = form.lists[f]
      .split('\n')
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }
  const caps = {} as SettingsCaps;
  for (const f of CAP_FIELDS) {
    const raw = form.caps[f].trim();
    const n = raw === '' ? 0 : Number(raw);
    if (!Number.isFinite(n)) return { error: { field: `caps.${f}`, message: `caps.${f}: "${raw}" is not a number` } };
    caps[f] = n;
  }
  const learning = fromLearningForm(form.learning);
  if ('error' in learning) return learning;
  return { settings: { ...lists, caps, learning: learning.learning, platforms: copyOptions(form.platforms) } };
}

/**
 * The hint of the targeted accounts: how the running platforms write an
 * account ("… one a line: on X a handle or a user id; on Bluesky …."), each
 * syntax once; "… one a line, by handle or id." while the table is unread
 * or none runs.
 */
export function targetsHint(platforms: readonly PlatformDescriptor[]): string {
  const hints = [...new Set(platforms.filter((p) => p.running && p.account_hint !== '').map((p) => p.account_hint))];
  const ways = hints.length === 0 ? ', by handle or id' : `: ${hints.join('; ')}`;
  return `Accounts whose recent posts are answered, one a line${ways}.`;
}

/** The editor field a server error's JSON path belongs to: "target_usernames[2]" is target_usernames. */
export function fieldKey(path: string | undefined): string | undefined {
  return path?.replace(/\[\d+\]$/, '');
}
