// Pure helpers of what a review card says about the judge's verdict and the
// persona version its draft was written with.
import type { PostReview } from '../../api/types';

/** The best score the judge gives. */
export const MAX_REVIEW_SCORE = 5;
/** Scores at or below this are shown as a warning. */
export const LOW_REVIEW_SCORE = 2;

/** The badge of a verdict: "Review 4/5". */
export function reviewBadge(review: PostReview): string {
  return `Review ${review.score}/${MAX_REVIEW_SCORE}`;
}

/** Who judged: the offline rules, or the model by name. */
export function judgeLabel(by: string): string {
  if (by === 'offline') return 'the offline judge';
  return by.trim() || 'an unnamed judge';
}

/** The verdict's line on a card: its reason, and who judged. */
export function reviewDetail(review: PostReview): string {
  const reason = review.reason.trim().replace(/\.$/, '');
  return `${reason || 'No reason given'} (judged by ${judgeLabel(review.by)}).`;
}

export function isLowScore(score: number): boolean {
  return score <= LOW_REVIEW_SCORE;
}

/** "persona v3", or null when the version is unknown. */
export function personaVersionLabel(version: number | null | undefined): string | null {
  return typeof version === 'number' ? `persona v${version}` : null;
}
