// Pure helpers of the autopilot editor: the rules as form values and back.
import type { Autopilot } from '../../api/types';

/** The seven sins, the categories a rule may name. */
export const SINS = ['pride', 'greed', 'wrath', 'envy', 'lust', 'gluttony', 'sloth'] as const;

/** The numbers the editor shows, with the range the server accepts. */
export const AUTOPILOT_NUMBERS = {
  min_review_score: { label: 'Minimum review score', min: 1, max: 5 },
  max_per_hour: { label: 'Most auto-approvals an hour', min: 0, max: 100 },
  grace_seconds: { label: 'Grace before sending (seconds)', min: 0, max: 3600 },
} as const;
export type AutopilotNumber = keyof typeof AUTOPILOT_NUMBERS;

/** The rules as the editor's inputs hold them. */
export interface AutopilotForm {
  enabled: boolean;
  any_author: boolean;
  /** Trusted handles, one a line. */
  authors: string;
  categories: string[];
  numbers: Record<AutopilotNumber, string>;
}

/** The defaults of a fresh install, for an answer without rules. */
export const DEFAULT_AUTOPILOT: Autopilot = {
  enabled: false,
  min_review_score: 5,
  authors: [],
  any_author: false,
  categories: [],
  max_per_hour: 5,
  grace_seconds: 120,
};

export function toAutopilotForm(a: Autopilot | undefined): AutopilotForm {
  const r = a ?? DEFAULT_AUTOPILOT;
  return {
    enabled: r.enabled,
    any_author: r.any_author,
    authors: (r.authors ?? []).join('\n'),
    categories: [...(r.categories ?? [])],
    numbers: {
      min_review_score: String(r.min_review_score),
      max_per_hour: String(r.max_per_hour),
      grace_seconds: String(r.grace_seconds),
    },
  };
}

/**
 * The rules to send: handles one a line, blank lines dropped (the server
 * normalises the rest); each number a whole number, or an error named as
 * the server names the field ("autopilot.grace_seconds").
 */
export function fromAutopilotForm(form: AutopilotForm): { autopilot: Autopilot } | { error: { field: string; message: string } } {
  const n = {} as Record<AutopilotNumber, number>;
  for (const f of Object.keys(AUTOPILOT_NUMBERS) as AutopilotNumber[]) {
    const raw = form.numbers[f].trim();
    const v = Number(raw);
    if (raw === '' || !Number.isInteger(v)) {
      return { error: { field: `autopilot.${f}`, message: `autopilot.${f}: "${raw}" is not a whole number` } };
    }
    n[f] = v;
  }
  const authors = form.authors
    .split('\n')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return {
    autopilot: { enabled: form.enabled, any_author: form.any_author, authors, categories: [...form.categories], ...n },
  };
}
