import { useState } from 'react';
import { useSWRConfig } from 'swr';
import useSWRMutation from 'swr/mutation';
import { bulkReport, type BulkAction } from './review';
import { REVIEW_MESSAGES, type DashboardState } from './reviewQueues';
import {
  approvePost,
  bulkReview,
  generateProfileTweet,
  giveUp,
  markPosted,
  regeneratePost,
  rejectPost,
  type BulkItem,
} from './api';
import { ApiError, errorDetail, statusOf } from '../../api/client';
import type { BulkResult, Post, PostList } from '../../api/types';
import { adminPostsKey, isAdminPostsKeyOfTab } from './useAdminPosts';
import { conversationKey } from './useConversation';
import { historyKey } from './useHistory';
import { isAdminStatsKey } from './useAdminStats';
import { isQueuedKey } from './useQueued';
import { resumeOps, SPEND_KEY } from '../spend';

/** The banner an action leaves: a success message or an error. */
export interface Notice {
  kind: 'success' | 'error';
  text: string;
  /** One line per post of a bulk action, in the order asked. */
  details?: string[];
}

interface Handlers {
  /** After a post left the list shown (approved or rejected). */
  onRemoved: (post: Post) => void;
  /** After a bulk action: the ids it judged (they left the list). */
  onBulkDone: (judged: number[]) => void;
}

interface Verdict {
  id: number;
  /** The draft version shown, the one decided on. */
  draftVersion: number;
  /** The admin's text when it differs from the draft. */
  edited?: string;
  /** Approve a flagged text all the same ("Approve anyway"). */
  override?: boolean;
  /** Why it is rejected, when the admin said. */
  reason?: string;
}

interface Regeneration {
  id: number;
  instruction: string;
  draftVersion: number;
}

interface BulkArg {
  items: BulkItem[];
  action: BulkAction;
  /** Why they are rejected, when the admin said. */
  reason?: string;
}

/** Whether an error is the refusal of a stale draft version (a 409 naming the current one). */
function isStale(err: unknown): boolean {
  return err instanceof ApiError && err.status === 409 && err.draftVersion !== undefined;
}

/** The list with post replaced by its new state. */
function withPost(list: PostList | undefined, post: Post): PostList | undefined {
  return list && { ...list, posts: list.posts.map((p) => (p.id === post.id ? post : p)) };
}

function withoutPost(list: PostList | undefined, id: number): PostList | undefined {
  return list && { ...list, posts: list.posts.filter((p) => p.id !== id) };
}

/** The list after a verdict: a post approved for hand-posting stays, as answered; any other leaves. */
function afterVerdict(list: PostList | undefined, decided: Post): PostList | undefined {
  if (decided.status !== 'awaiting_manual') return withoutPost(list, decided.id);
  return list && { ...list, posts: list.posts.map((p) => (p.id === decided.id ? decided : p)) };
}

/**
 * The admin's actions on the list shown (view): approve, reject and generate,
 * which post is busy, the banner they leave, and the revalidation they need.
 * Each action is an SWR mutation keyed by the list shown, so the list is
 * fetched again when it resolves; a verdict first drops its post from the
 * cached list, and every action revalidates the statistics. Lists of other
 * tabs, pages or orders are not mounted: SWR fetches them again when shown.
 */
export function useReviewActions(view: DashboardState, { onRemoved, onBulkDone }: Handlers) {
  const listKey = adminPostsKey(view);
  const { mutate } = useSWRConfig();
  const [busyId, setBusyId] = useState<number | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  // The flags the server named when it refused an approval, by post: the card then offers "Approve anyway".
  const [refusedFlags, setRefusedFlags] = useState<Record<number, string[]>>({});
  // The posts whose decision was refused because the draft had changed: their cards say so over the new text.
  const [stale, setStale] = useState<ReadonlySet<number>>(new Set());

  function markStale(ids: readonly number[], isStaleNow: boolean) {
    setStale((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (isStaleNow) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }

  /** After a refusal of a stale draft: the notice, and the list fetched again so the cards show the new text. */
  function showStale(ids: readonly number[]) {
    markStale(ids, true);
    void mutate(listKey);
    for (const id of ids) void mutate(historyKey(id));
  }

  // A verdict answers the post it decided: the cached list is written without it, then fetched again.
  const verdictOptions = {
    populateCache: (decided: Post, list: PostList | undefined) => afterVerdict(list, decided),
    revalidate: true,
  };
  const approval = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => approvePost(arg.id, arg.draftVersion, arg.edited, arg.override),
    verdictOptions,
  );
  const rejection = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => rejectPost(arg.id, arg.draftVersion, arg.reason),
    verdictOptions,
  );
  const marking = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => markPosted(arg.id, arg.draftVersion),
    verdictOptions,
  );
  const givingUp = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => giveUp(arg.id, arg.draftVersion),
    verdictOptions,
  );
  const regeneration = useSWRMutation<Post, unknown, string, Regeneration, PostList | undefined>(
    listKey,
    (_key, { arg }) => regeneratePost(arg.id, arg.instruction, arg.draftVersion),
    { populateCache: (post: Post, list: PostList | undefined) => withPost(list, post), revalidate: true },
  );
  const bulkJudgement = useSWRMutation<{ results: BulkResult[] }, unknown, string, BulkArg>(
    listKey,
    (_key, { arg }) => bulkReview(arg.items, arg.action, arg.reason),
  );
  // A profile post is for the platform the admin is looking at (the first configured one when all are shown).
  const generation = useSWRMutation<unknown, unknown, string>(listKey, () => generateProfileTweet(view.platform));
  const resumption = useSWRMutation<unknown, unknown, string>(SPEND_KEY, () => resumeOps());

  function revalidateStats() {
    void mutate(isAdminStatsKey);
    // An approval joins the posts waiting to send.
    void mutate(isQueuedKey);
  }

  /**
   * Marks every cached page and order of the tab stale after a verdict, so
   * the page shown next (the one before, after the last card of a page went)
   * is fetched again even within SWR's deduping interval.
   */
  function revalidateTab() {
    void mutate((key) => key !== listKey && isAdminPostsKeyOfTab(key, view.tab));
  }

  /** Reports a failed action; a refused session needs no banner, as request() already left for the login. */
  function failed(err: unknown, text: string) {
    if (statusOf(err) !== 401) setNotice({ kind: 'error', text });
  }

  async function decide(post: Post, approve: boolean, edited?: string, override?: boolean, reason?: string) {
    setBusyId(post.id);
    setNotice(null);
    markStale([post.id], false);
    try {
      const mutation = approve ? approval : rejection;
      // The version of the card's text: what the admin saw is what is decided.
      const decided = await mutation.trigger({ id: post.id, draftVersion: post.draft_version, edited, override, reason });
      if (decided.status === 'awaiting_manual') {
        // It stays listed, now with its "Post on X" button.
        setNotice({ kind: 'success', text: REVIEW_MESSAGES.approvedManual });
      } else {
        const approved = decided.queued ? REVIEW_MESSAGES.approvedQueued : REVIEW_MESSAGES.approved;
        setNotice({ kind: 'success', text: approve ? approved : REVIEW_MESSAGES.rejected });
        revalidateTab();
        onRemoved(post);
      }
      revalidateStats();
    } catch (err) {
      const flags = err instanceof ApiError && err.status === 422 ? err.flags : undefined;
      if (approve && flags) setRefusedFlags((m) => ({ ...m, [post.id]: flags }));
      if (isStale(err)) {
        setNotice({ kind: 'error', text: REVIEW_MESSAGES.stale });
        showStale([post.id]);
      } else {
        failed(err, approve ? `${REVIEW_MESSAGES.approveFailed}: ${errorDetail(err)}` : REVIEW_MESSAGES.rejectFailed);
      }
    } finally {
      setBusyId(null);
    }
  }

  /** Ends a hand-posting: marked posted, or given up; either way the post leaves the list. */
  async function settle(post: Post, posted: boolean) {
    setBusyId(post.id);
    setNotice(null);
    try {
      await (posted ? marking : givingUp).trigger({ id: post.id, draftVersion: post.draft_version });
      setNotice({ kind: 'success', text: posted ? REVIEW_MESSAGES.markedPosted : REVIEW_MESSAGES.gaveUp });
      revalidateTab();
      onRemoved(post);
      revalidateStats();
    } catch (err) {
      failed(err, `${posted ? REVIEW_MESSAGES.markFailed : REVIEW_MESSAGES.giveUpFailed}: ${errorDetail(err)}`);
    } finally {
      setBusyId(null);
    }
  }

  /** Asks for a new draft; true when the request was taken (the draft may still be on its way). */
  async function regenerate(post: Post, instruction: string): Promise<boolean> {
    setBusyId(post.id);
    setNotice(null);
    markStale([post.id], false);
    try {
      const answered = await regeneration.trigger({ id: post.id, instruction, draftVersion: post.draft_version });
      const fresh = answered.proposed_response !== post.proposed_response;
      setNotice({ kind: 'success', text: fresh ? REVIEW_MESSAGES.regenerated : REVIEW_MESSAGES.regenerateQueued });
      void mutate(historyKey(post.id));
      // A new draft may have read more of the conversation, or lost its note.
      void mutate(conversationKey(post.id));
      revalidateStats();
      return true;
    } catch (err) {
      if (isStale(err)) {
        setNotice({ kind: 'error', text: REVIEW_MESSAGES.stale });
        showStale([post.id]);
      } else {
        failed(err, `${REVIEW_MESSAGES.regenerateFailed}: ${errorDetail(err)}`);
      }
      return false;
    } finally {
      setBusyId(null);
    }
  }

  /** Approves or rejects the selected posts together, each on the draft its card shows, and reports each result. */
  async function bulk(action: BulkAction, posts: readonly Post[], reason?: string) {
    if (posts.length === 0) return;
    setNotice(null);
    markStale(
      posts.map((p) => p.id),
      false,
    );
    try {
      const items = posts.map((p) => ({ id: p.id, draftVersion: p.draft_version }));
      const { results } = await bulkJudgement.trigger({ items, action, reason });
      const report = bulkReport(action, results);
      setNotice({ kind: report.failed ? 'error' : 'success', text: report.summary, details: report.lines });
      const changed = results.filter((r) => r.status === 409 && r.draft_version !== undefined).map((r) => r.id);
      if (changed.length > 0) showStale(changed);
      revalidateTab();
      revalidateStats();
      onBulkDone(results.filter((r) => r.ok).map((r) => r.id));
    } catch (err) {
      failed(err, `${REVIEW_MESSAGES.bulkFailed}: ${errorDetail(err)}`);
    }
  }

  async function resume() {
    setNotice(null);
    try {
      await resumption.trigger();
      setNotice({ kind: 'success', text: REVIEW_MESSAGES.resumed });
    } catch (err) {
      failed(err, `${REVIEW_MESSAGES.resumeFailed}: ${errorDetail(err)}`);
    }
  }

  async function generate() {
    setNotice(null);
    try {
      await generation.trigger();
      setNotice({ kind: 'success', text: REVIEW_MESSAGES.generated });
      revalidateStats();
    } catch (err) {
      failed(err, REVIEW_MESSAGES.generateFailed);
    }
  }

  return {
    /** The post whose verdict is on its way, if any. */
    busyId,
    generating: generation.isMutating,
    notice,
    clearNotice: () => setNotice(null),
    /** The flags of a refused approval, by post id. */
    refusedFlags,
    /** The posts whose decision met a changed draft, now shown. */
    stale,
    approve: (post: Post, edited: string | undefined, override = false) => void decide(post, true, edited, override),
    /** Rejects the draft shown, with the admin's optional reason. */
    reject: (post: Post, reason?: string) => void decide(post, false, undefined, undefined, reason),
    markPosted: (post: Post) => void settle(post, true),
    giveUp: (post: Post) => void settle(post, false),
    regenerate,
    /** Approves or rejects posts together; a rejection with the admin's optional reason. */
    bulk: (action: BulkAction, posts: readonly Post[], reason?: string) => void bulk(action, posts, reason),
    bulkBusy: bulkJudgement.isMutating,
    resuming: resumption.isMutating,
    resume: () => void resume(),
    generate: () => void generate(),
    /** Fetches the list shown and the statistics again. */
    refresh: () => {
      void mutate(listKey);
      void mutate(SPEND_KEY);
      revalidateStats();
    },
  };
}
