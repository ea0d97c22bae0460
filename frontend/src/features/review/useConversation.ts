import useSWR from 'swr';
import type { Conversation } from '../../api/types';

/** The context call (and SWR key) of a post. */
export function conversationKey(id: number): string {
  return `/api/posts/${id}/context`;
}

/**
 * The conversation a post's draft read: fetched per card once it shows (SWR
 * shares one request among the cards of a post), not on focus; a regenerate
 * revalidates it. Not fetched when enabled is false (a post answering none).
 */
export function useConversation(id: number, enabled = true) {
  return useSWR<Conversation>(enabled ? conversationKey(id) : null, { revalidateOnFocus: false });
}
