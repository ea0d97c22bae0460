// Pure helpers of the conversation shown on a review card: which posts of the
// thread show at once, which wait behind the toggle, and the quoted post.
import type { ConversationItem } from '../../api/types';

/** How many of the thread's last posts show without opening the earlier ones. */
export const OPEN_THREAD_POSTS = 2;

/** The conversation as the card lays it out; each part keeps the server's order (oldest first). */
export interface ConversationParts {
  /** The thread's older posts, behind the toggle. */
  earlier: ConversationItem[];
  /** The thread's last posts (the parent last), always shown. */
  visible: ConversationItem[];
  /** The post the mortal quoted, if any. */
  quoted: ConversationItem[];
}

/**
 * Splits the items of GET /api/posts/{id}/context: the thread (ancestors,
 * the persona's posts and the parent) into the earlier posts and the last
 * `open` ones, and the quoted posts apart, wherever the server put them.
 */
export function splitConversation(items: readonly ConversationItem[] | null | undefined, open = OPEN_THREAD_POSTS): ConversationParts {
  const thread: ConversationItem[] = [];
  const quoted: ConversationItem[] = [];
  for (const item of items ?? []) (item.relation === 'quoted' ? quoted : thread).push(item);
  const cut = Math.max(0, thread.length - Math.max(0, open));
  return { earlier: thread.slice(0, cut), visible: thread.slice(cut), quoted };
}

/** The toggle's text: "Show 3 earlier posts" (or "post" for one), "Hide earlier posts" while open. */
export function earlierToggleLabel(count: number, open: boolean): string {
  if (open) return 'Hide earlier posts';
  return `Show ${count} earlier ${count === 1 ? 'post' : 'posts'}`;
}

/** "@handle", or "unknown author" when the platform did not say. */
export function authorHandle(username: string): string {
  const name = username.trim().replace(/^@/, '');
  return name ? `@${name}` : 'unknown author';
}
