import { useState } from 'react';
import { useSWRConfig } from 'swr';
import useSWRMutation from 'swr/mutation';
import { REVIEW_MESSAGES, type DashboardState } from '../lib/reviewQueues';
import { approvePost, generateProfileTweet, rejectPost } from './admin';
import { ApiError, statusOf } from './client';
import type { Post, PostList } from './types';
import { adminPostsKey } from './useAdminPosts';
import { ADMIN_STATS_KEY } from './useAdminStats';

/** The banner an action leaves: a success message or an error. */
export interface Notice {
  kind: 'success' | 'error';
  text: string;
}

interface Handlers {
  /** After a post left the list shown (approved or rejected). */
  onRemoved: (post: Post) => void;
  /** When an action was refused for want of a valid session. */
  onUnauthorized: () => void;
}

interface Verdict {
  id: number;
  /** The admin's text when it differs from the draft. */
  edited?: string;
}

function errorDetail(err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

function withoutPost(list: PostList | undefined, id: number): PostList | undefined {
  return list && { ...list, posts: list.posts.filter((p) => p.id !== id) };
}

/**
 * The admin's actions on the list shown (view): approve, reject and generate,
 * which post is busy, the banner they leave, and the revalidation they need.
 * Each action is an SWR mutation keyed by the list shown, so the list is
 * fetched again when it resolves; a verdict first drops its post from the
 * cached list, and every action revalidates the statistics. Lists of other
 * tabs, pages or orders are not mounted: SWR fetches them again when shown.
 */
export function useReviewActions(view: DashboardState, { onRemoved, onUnauthorized }: Handlers) {
  const listKey = adminPostsKey(view);
  const { mutate } = useSWRConfig();
  const [busyId, setBusyId] = useState<number | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);

  // A verdict answers the post it decided: the cached list is written without it, then fetched again.
  const verdictOptions = {
    populateCache: (decided: Post, list: PostList | undefined) => withoutPost(list, decided.id),
    revalidate: true,
  };
  const approval = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => approvePost(arg.id, arg.edited),
    verdictOptions,
  );
  const rejection = useSWRMutation<Post, unknown, string, Verdict, PostList | undefined>(
    listKey,
    (_key, { arg }) => rejectPost(arg.id),
    verdictOptions,
  );
  const generation = useSWRMutation<unknown, unknown, string>(listKey, () => generateProfileTweet());

  function revalidateStats() {
    void mutate(ADMIN_STATS_KEY);
  }

  /** Reports a failed action, or hands a lost session to onUnauthorized. */
  function failed(err: unknown, text: string) {
    if (statusOf(err) === 401) onUnauthorized();
    else setNotice({ kind: 'error', text });
  }

  async function decide(post: Post, approve: boolean, edited?: string) {
    setBusyId(post.id);
    setNotice(null);
    try {
      const mutation = approve ? approval : rejection;
      await mutation.trigger({ id: post.id, edited });
      setNotice({ kind: 'success', text: approve ? REVIEW_MESSAGES.approved : REVIEW_MESSAGES.rejected });
      onRemoved(post);
      revalidateStats();
    } catch (err) {
      failed(err, approve ? `${REVIEW_MESSAGES.approveFailed}: ${errorDetail(err)}` : REVIEW_MESSAGES.rejectFailed);
    } finally {
      setBusyId(null);
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
    approve: (post: Post, edited: string | undefined) => void decide(post, true, edited),
    reject: (post: Post) => void decide(post, false),
    generate: () => void generate(),
    /** Fetches the list shown and the statistics again. */
    refresh: () => {
      void mutate(listKey);
      revalidateStats();
    },
  };
}
