import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTOPILOT, fromAutopilotForm, toAutopilotForm } from './autopilotForm';

describe('autopilot form', () => {
  it('round-trips the rules', () => {
    const rules = { enabled: true, min_review_score: 4, authors: ['friend', 'other'], any_author: false, categories: ['sloth'], max_per_hour: 3, grace_seconds: 0 };
    expect(fromAutopilotForm(toAutopilotForm(rules))).toEqual({ autopilot: rules });
  });
  it('takes the defaults, off, when the answer has no rules', () => {
    expect(fromAutopilotForm(toAutopilotForm(undefined))).toEqual({ autopilot: DEFAULT_AUTOPILOT });
  });
  it('drops blank lines of handles', () => {
    const form = toAutopilotForm(DEFAULT_AUTOPILOT);
    form.authors = ' @Friend \n\n other \n';
    const out = fromAutopilotForm(form);
    expect('autopilot' in out && out.autopilot.authors).toEqual(['@Friend', 'other']);
  });
  it.each([
    ['grace_seconds', ''],
    ['grace_seconds', 'soon'],
    ['max_per_hour', '1.5'],
    ['min_review_score', 'NaN'],
  ] as const)('refuses %s = %j, naming the field', (field, raw) => {
    const form = toAutopilotForm(DEFAULT_AUTOPILOT);
    form.numbers[field] = raw;
    const out = fromAutopilotForm(form);
    expect('error' in out && out.error.field).toBe(`autopilot.${field}`);
  });
});
