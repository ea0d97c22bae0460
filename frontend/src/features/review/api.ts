// The reviewer's writes: decisions on posts and new drafts. Reads go through the SWR hooks.
import { send } from '../../api/client';
import type { BulkResult, Post, Queued } from '../../api/types';
import { withPlatform } from '../../lib/platforms';
import type { BulkAction } from './review';
import { reasonToSend } from './learned';

/**
 * The draft version to send with a decision: the one shown. A post never
 * drafted is at 0, which the server does not take (it wants 1 or more):
 * then none is sent, and the decision applies to the post as it is.
 */
function shownVersion(draftVersion: number): { draft_version?: number } {
  return draftVersion >= 1 ? { draft_version: draftVersion } : {};
}

/**
 * Approve the draft shown (draftVersion); an edited response is sent along,
 * and override approves a flagged text ("Approve anyway"). A draft changed
 * since is refused with a 409 naming the current version.
 */
export function approvePost(id: number, draftVersion: number, editedResponse?: string, override = false): Promise<Post> {
  const body: { response?: string; override?: true; draft_version?: number } = {
    ...shownVersion(draftVersion),
    ...(editedResponse === undefined ? {} : { response: editedResponse }),
  };
  if (override) body.override = true;
  return send<Post>(`/api/posts/${id}/approve`, body);
}

/** Override the guard that skipped a post, as shown (draftVersion): it goes back to drafting. */
export function draftAnyway(id: number, draftVersion: number): Promise<Post> {
  return send<Post>(`/api/posts/${id}/draft-anyway`, shownVersion(draftVersion));
}

/** Withdraw an auto-approval in its grace window: the draft is pending again (409 once the send has started). */
export function cancelPost(id: number): Promise<Post> {
  return send<Post>(`/api/posts/${id}/cancel`, {});
}

/**
 * Reject the draft shown (draftVersion), with the admin's optional reason
 * (kept with its case; trimmed, none when blank); a draft changed since is
 * refused with a 409.
 */
export function rejectPost(id: number, draftVersion: number, reason?: string): Promise<Post> {
  const why = reasonToSend(reason);
  return send<Post>(`/api/posts/${id}/reject`, { ...shownVersion(draftVersion), ...(why === undefined ? {} : { reason: why }) });
}

/**
 * The drafted profile post (201), or the queued draft's id when the writer took longer (202),
 * for the platform named (the first configured one when none).
 */
export function generateProfileTweet(platform?: string): Promise<Post | (Queued & { id: number })> {
  return send<Post | (Queued & { id: number })>(withPlatform('/api/posts/profile/generate', platform));
}

/** Defined by the API but, as the spec says, wired to no button. */
export function generateTargetedScan(): Promise<Queued> {
  return send<Queued>('/api/posts/targeted/generate');
}

/** Record that a reply awaiting hand-posting, as shown (draftVersion), was posted (its id when known). */
export function markPosted(id: number, draftVersion: number, responsePostId?: string): Promise<Post> {
  const body = { ...shownVersion(draftVersion), ...(responsePostId ? { response_post_id: responsePostId } : {}) };
  return send<Post>(`/api/posts/${id}/mark-posted`, body);
}

/** Give up a reply awaiting hand-posting, as shown (draftVersion): it goes back to rejected. */
export function giveUp(id: number, draftVersion: number, reason?: string): Promise<Post> {
  return send<Post>(`/api/posts/${id}/give-up`, { ...shownVersion(draftVersion), ...(reason ? { reason } : {}) });
}

/**
 * Ask the writer for a new draft, to an optional one-line instruction: the
 * post with its new draft (200), or as it still is when the worker has not
 * answered in time (202; the new draft shows once written).
 */
export function regeneratePost(id: number, instruction: string, draftVersion: number): Promise<Post> {
  const wish = instruction.trim();
  return send<Post>(`/api/posts/${id}/regenerate`, { ...shownVersion(draftVersion), ...(wish ? { instruction: wish } : {}) });
}

/** One post of a bulk decision: its id and the draft version shown. */
export interface BulkItem {
  id: number;
  draftVersion: number;
}

/**
 * Approve or reject several posts at once, each on the draft shown: one
 * result per post, in order (a stale one a 409). A rejection carries the
 * admin's optional reason, the reason of every one of them.
 */
export function bulkReview(items: readonly BulkItem[], action: BulkAction, reason?: string): Promise<{ results: BulkResult[] }> {
  const sent = items.map((it) => ({ id: it.id, ...shownVersion(it.draftVersion) }));
  const why = action === 'reject' ? reasonToSend(reason) : undefined;
  return send<{ results: BulkResult[] }>('/api/posts/bulk', { items: sent, action, ...(why === undefined ? {} : { reason: why }) });
}
