import { describe, expect, it } from 'vitest';
import { shortcutAction, SHORTCUTS, type KeyPress } from './shortcuts';

const plain = { altKey: false, ctrlKey: false, metaKey: false };

describe('shortcutAction', () => {
  const cases: { name: string; press: KeyPress; want: string | null }[] = [
    { name: 'j', press: { ...plain, key: 'j' }, want: 'next' },
    { name: 'k', press: { ...plain, key: 'k' }, want: 'previous' },
    { name: 'a', press: { ...plain, key: 'a' }, want: 'approve' },
    { name: 'r', press: { ...plain, key: 'r' }, want: 'reject' },
    { name: 'e', press: { ...plain, key: 'e' }, want: 'edit' },
    { name: 'g', press: { ...plain, key: 'g' }, want: 'regenerate' },
    { name: 'x', press: { ...plain, key: 'x' }, want: 'select' },
    { name: '?', press: { ...plain, key: '?' }, want: 'help' },
    { name: 'capital A is not a', press: { ...plain, key: 'A' }, want: null },
    { name: 'an unbound key', press: { ...plain, key: 'q' }, want: null },
    { name: 'Ctrl+r is the browser reload', press: { ...plain, key: 'r', ctrlKey: true }, want: null },
    { name: 'Meta+a is select-all', press: { ...plain, key: 'a', metaKey: true }, want: null },
    { name: 'Alt+j', press: { ...plain, key: 'j', altKey: true }, want: null },
    { name: 'empty key', press: { ...plain, key: '' }, want: null },
  ];
  for (const c of cases) {
    it(c.name, () => expect(shortcutAction(c.press)).toBe(c.want));
  }

  it('lists each key once', () => {
    expect(new Set(SHORTCUTS.map((s) => s.key)).size).toBe(SHORTCUTS.length);
  });
});
