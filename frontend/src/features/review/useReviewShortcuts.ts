import { useEffect, type RefObject } from 'react';
import { shortcutAction } from './shortcuts';

const CARD = '[data-testid="review-card"]';

/** Whether a key press came from a place that takes typing: then no shortcut fires. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && target.type !== 'checkbox' && target.type !== 'radio';
}

/** Clicks a card's control named by its data-shortcut, when it is there and enabled. */
function press(card: HTMLElement, name: string) {
  const control = card.querySelector<HTMLElement>(`[data-shortcut="${name}"]`);
  if (control && !(control instanceof HTMLButtonElement && control.disabled)) control.click();
}

/** Puts the focus in a card's response, the caret after its text. */
function edit(card: HTMLElement) {
  const field = card.querySelector<HTMLTextAreaElement>('textarea[data-shortcut="edit"]');
  if (!field) return;
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
}

/**
 * The review's keyboard: j and k move between the cards of list, and on the
 * card holding the focus a approves, r rejects, e edits the response, g
 * regenerates, x (or Space on the card itself) selects; ? toggles the list of
 * them (onHelp). Nothing fires while typing in a field, nor with Alt, Ctrl or
 * Meta held, nor while a dialog is open (other than ? and Escape there).
 */
export function useReviewShortcuts(list: RefObject<HTMLElement | null>, onHelp: () => void) {
  useEffect(() => {
    function onKeyDown(e: KeyboardEvent) {
      if (e.defaultPrevented || isTyping(e.target)) return;
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      const card = focused?.closest<HTMLElement>(CARD) ?? null;
      const onCard = card !== null && focused === card;
      const action = e.key === ' ' && onCard ? 'select' : shortcutAction(e);
      if (!action) return;
      if (action === 'help') {
        e.preventDefault();
        onHelp();
        return;
      }
      if (focused?.closest('dialog')) return;
      const root = list.current;
      if (!root) return;
      if (action === 'next' || action === 'previous') {
        const cards = [...root.querySelectorAll<HTMLElement>(CARD)];
        if (cards.length === 0) return;
        e.preventDefault();
        const at = card ? cards.indexOf(card) : -1;
        // From outside the list, j starts at the first card and k at the last.
        const next = at < 0 ? (action === 'next' ? 0 : cards.length - 1) : at + (action === 'next' ? 1 : -1);
        const target = cards[Math.max(0, Math.min(cards.length - 1, next))];
        target.focus();
        target.scrollIntoView({ block: 'nearest' });
        return;
      }
      if (!card || !root.contains(card)) return;
      e.preventDefault();
      if (action === 'edit') edit(card);
      else press(card, action);
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [list, onHelp]);
}
