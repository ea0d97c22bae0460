// Pure helpers of the original post a card answers: its content warning
// and the link to its page on its platform.
import { platformLabel, type PlatformInfo } from '../../lib/platforms';

/** What labels a content warning on a card. */
export const CONTENT_WARNING_LABEL = 'Content warning:';

/** The text of the link to a post's page: "Open on Mastodon", by the platform's label from the table (GET /api/platforms). */
export function openLabel(platform: string, table: readonly PlatformInfo[] = []): string {
  return `Open on ${platformLabel(platform, table)}`;
}

/**
 * The address a link to a post's page may take: an absolute http(s) URL, else "".
 * The server answers nothing else; this keeps any other scheme (javascript:,
 * data:) out of an href even so.
 */
export function pageHref(url: string | null | undefined): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '';
  } catch {
    return '';
  }
}
