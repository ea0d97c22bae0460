// parseTweet's own module, not the package's index: the index pulls in all
// of twitter-text (autolinking, hashtags, …) for one function.
import parseTweet from 'twitter-text/dist/esm/parseTweet';

/** The platform's limit on a response's weighted length. */
export const RESPONSE_LIMIT = 280;
/** Above this share of the limit the counter warns. */
export const WARNING_RATIO = 0.9;

export type CounterLevel = 'normal' | 'warning' | 'error';

/**
 * The length of a text as the platform counts it (twitter-text v3 weighting:
 * links count 23, emoji and most non-Latin characters count 2).
 */
export function weightedLength(text: string): number {
  return parseTweet(text).weightedLength;
}

/** Bluesky's limit on a post's text, in graphemes. */
export const BLUESKY_LIMIT = 300;

/** The number of user-perceived characters (extended grapheme clusters) of text, as Bluesky counts. */
export function graphemeLength(text: string): number {
  return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)).length;
}

/**
 * A response's length as its platform counts it: graphemes on Bluesky,
 * twitter-text's weighted length on X and the sandbox.
 */
export function responseLength(text: string, platform?: string): number {
  return platform === 'bluesky' ? graphemeLength(text) : weightedLength(text);
}

/** The response limit of a post: the server's max_length, else its platform's. */
export function responseLimit(post: { platform?: string; max_length?: number }): number {
  if (post.max_length && post.max_length > 0) return post.max_length;
  return post.platform === 'bluesky' ? BLUESKY_LIMIT : RESPONSE_LIMIT;
}

/** normal up to 90 % of the limit, warning above 90 %, error over the limit. */
export function counterLevel(length: number, limit: number = RESPONSE_LIMIT): CounterLevel {
  if (length > limit) return 'error';
  if (length > limit * WARNING_RATIO) return 'warning';
  return 'normal';
}

export function isTooLong(length: number, limit: number = RESPONSE_LIMIT): boolean {
  return length > limit;
}

/** The share of the limit used, as a percentage for a progress bar, capped at 100. */
export function fillPercent(length: number, limit: number = RESPONSE_LIMIT): number {
  if (limit <= 0 || length <= 0) return 0;
  return Math.min(100, (length / limit) * 100);
}
