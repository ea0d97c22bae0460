// parseTweet's own module, not the package's index: the index pulls in all
// of twitter-text (autolinking, hashtags, …) for one function.
import parseTweet from 'twitter-text/dist/esm/parseTweet';
import type { LengthRule } from '../api/types';

/** The limit of a weighted length when nothing else is known (twitter-text v3's). */
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

/** The number of user-perceived characters (extended grapheme clusters) of text. */
export function graphemeLength(text: string): number {
  return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)).length;
}

const URL_PATTERN = /https?:\/\/[^\s<>"]+/g;
const REMOTE_MENTION = /(@[A-Za-z0-9_]+)@[A-Za-z0-9.-]+[A-Za-z0-9]/g;

/** The length of a text in characters (code points), every URL as 23 and a mention @user@domain as @user. */
export function characterLength(text: string): number {
  return Array.from(text.replace(URL_PATTERN, 'x'.repeat(23)).replace(REMOTE_MENTION, '$1')).length;
}

/**
 * A response's length under its platform's length rule (GET /api/platforms):
 * graphemes, characters, or twitter-text's weighted length (also when the rule is not known).
 */
export function responseLength(text: string, rule?: LengthRule): number {
  if (rule === 'graphemes') return graphemeLength(text);
  if (rule === 'characters') return characterLength(text);
  return weightedLength(text);
}

/** The response limit of a post: the server's max_length, else its platform's from the table, else RESPONSE_LIMIT. */
export function responseLimit(post: { max_length?: number }, tableLimit?: number): number {
  if (post.max_length && post.max_length > 0) return post.max_length;
  return tableLimit && tableLimit > 0 ? tableLimit : RESPONSE_LIMIT;
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
