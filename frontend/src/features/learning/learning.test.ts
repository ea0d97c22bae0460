import { describe, expect, it } from 'vitest';
import {
  caseDecisionLabel,
  casesKey,
  importSummary,
  isCasesKey,
  kindLabel,
  lessonProblem,
  MAX_LESSON,
  usedLabel,
} from './learning';

describe('lessonProblem', () => {
  const cases: { name: string; input: string; want: string | null }[] = [
    { name: 'a lesson', input: 'No emoji', want: null },
    { name: 'empty', input: '', want: 'Write the lesson' },
    { name: 'blank', input: '   ', want: 'Write the lesson' },
    { name: 'exactly the limit', input: 'é'.repeat(MAX_LESSON), want: null },
    { name: 'spaces around do not count', input: ` ${'x'.repeat(MAX_LESSON)} `, want: null },
    { name: 'one over', input: 'x'.repeat(MAX_LESSON + 1), want: 'Keep the lesson to 200 characters' },
    { name: 'two lines', input: 'No emoji\nNo hashtags', want: 'Keep the lesson to one line' },
    { name: 'a link', input: 'Point to https://example.com', want: 'A lesson holds no link' },
    { name: 'a bare www link', input: 'See www.example.com', want: 'A lesson holds no link' },
    { name: 'a mention', input: 'Never answer @someone', want: 'A lesson names no @account' },
    { name: 'a mention first', input: '@someone is off limits', want: 'A lesson names no @account' },
    { name: 'an e-mail-like at is no mention', input: 'Keep under 120 chars, no a@b talk', want: null },
  ];
  for (const c of cases) {
    it(c.name, () => expect(lessonProblem(c.input)).toBe(c.want));
  }
});

describe('labels', () => {
  it('names each kind of lesson', () => {
    expect(kindLabel('edit')).toBe('From an edit');
    expect(kindLabel('rejection')).toBe('From a rejection');
    expect(kindLabel('manual')).toBe('Written by you');
    expect(kindLabel('toString')).toBe('toString');
  });
  const decisions = [
    { c: { decision: 'approved', by: 'web' }, want: 'Approved as written on the web' },
    { c: { decision: 'edited', by: 'telegram' }, want: 'Approved after an edit on Telegram' },
    { c: { decision: 'rejected', by: 'bulk' }, want: 'Rejected in bulk' },
    { c: { decision: 'approved', by: 'autopilot' }, want: 'Approved as written by the autopilot' },
    { c: { decision: 'approved', by: 'import' }, want: 'Imported' },
  ] as const;
  for (const d of decisions) {
    it(d.want, () => expect(caseDecisionLabel(d.c)).toBe(d.want));
  }
  it('counts the uses', () => {
    expect(usedLabel(0)).toBe('never used yet');
    expect(usedLabel(1)).toBe('used in 1 draft');
    expect(usedLabel(12)).toBe('used in 12 drafts');
  });
});

describe('casesKey', () => {
  it('reads a page of every case', () => expect(casesKey(2, '')).toBe('/api/cases?page=2'));
  it('searches trimmed words, escaped', () => expect(casesKey(1, ' cold brew & tea ')).toBe('/api/cases?page=1&q=cold%20brew%20%26%20tea'));
  it('knows its keys', () => {
    expect(isCasesKey(casesKey(3, 'x'))).toBe(true);
    expect(isCasesKey('/api/lessons')).toBe(false);
    expect(isCasesKey(['/api/cases?page=1'])).toBe(false);
  });
});

describe('importSummary', () => {
  const cases = [
    { r: { imported: 118, skipped: [{ line: 3, error: 'a link' }, { line: 9, error: 'too long' }] }, want: 'Imported 118 cases; 2 lines skipped.' },
    { r: { imported: 1, skipped: [{ line: 2, error: 'a link' }] }, want: 'Imported 1 case; 1 line skipped.' },
    { r: { imported: 0, skipped: [] }, want: 'Imported 0 cases.' },
  ];
  for (const c of cases) {
    it(c.want, () => expect(importSummary(c.r)).toBe(c.want));
  }
});
