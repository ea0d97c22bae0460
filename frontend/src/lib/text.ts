/** Log previews are cut at this many characters. */
export const PREVIEW_LENGTH = 100;

/**
 * The first `max` characters of a text (counted as code points, so an emoji is
 * never split), followed by '...' when something was cut.
 */
export function preview(text: unknown, max: number = PREVIEW_LENGTH): string {
  if (typeof text !== 'string') return '';
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join('')}...`;
}
