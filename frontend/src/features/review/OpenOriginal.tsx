import type { PlatformInfo } from '../../lib/platforms';
import { openLabel, pageHref } from './original';

interface Props {
  /** The original post's page (the post's url); "" shows nothing. */
  url: string;
  platform: string;
  /** The table of platforms (GET /api/platforms), for the platform's label. */
  platforms: readonly PlatformInfo[];
}

/** The link that opens the original post on its platform, in a new tab: "Open on Mastodon". */
export function OpenOriginal({ url, platform, platforms }: Props) {
  const href = pageHref(url);
  if (!href) return null;
  return (
    <p className="review-open">
      <a href={href} target="_blank" rel="noopener noreferrer" data-testid="open-original">
        {openLabel(platform, platforms)}
        <span className="visually-hidden"> (opens in a new tab)</span>
      </a>
    </p>
  );
}
