// The review's keyboard shortcuts: which key does what, for the handler and
// for the "?" overlay that lists them.

/** What a shortcut does. */
export type ShortcutAction = 'next' | 'previous' | 'approve' | 'reject' | 'edit' | 'regenerate' | 'select' | 'help';

/** SHORTCUTS, in the overlay's order. */
export const SHORTCUTS: readonly { key: string; action: ShortcutAction; label: string }[] = [
  { key: 'j', action: 'next', label: 'Next card' },
  { key: 'k', action: 'previous', label: 'Previous card' },
  { key: 'a', action: 'approve', label: 'Approve the card' },
  { key: 'r', action: 'reject', label: 'Reject the card' },
  { key: 'e', action: 'edit', label: 'Edit the response' },
  { key: 'g', action: 'regenerate', label: 'Regenerate the draft' },
  { key: 'x', action: 'select', label: 'Select the card for a bulk action' },
  { key: '?', action: 'help', label: 'Show or hide this list' },
];

/** The parts of a key press that choose a shortcut. */
export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}

/** The action of a key press, or null: a press with Alt, Ctrl or Meta is the browser's. */
export function shortcutAction(press: KeyPress): ShortcutAction | null {
  if (press.altKey || press.ctrlKey || press.metaKey) return null;
  return SHORTCUTS.find((s) => s.key === press.key)?.action ?? null;
}
