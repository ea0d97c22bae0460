import { useState } from 'react';
import type { Post } from '../../api/types';
import { flagLabel, NEAR_DUPLICATE } from './flags';
import { isLowScore, personaVersionLabel, reviewBadge } from './judgement';
import { formatTimestamp, relativeTime } from '../../lib/time';
import { platformLabel } from '../../lib/platforms';
import { usePlatforms } from '../../api/usePlatforms';

interface Props {
  post: Post;
  now: number;
  /** The flags shown: the post's, or those the server named refusing an approval. */
  flags: readonly string[];
  /** The useId prefix of the card: the title's and the review reason's ids. */
  ids: string;
  /** Whether the card may be selected for a bulk action, and whether it is. */
  reviewable: boolean;
  selected: boolean;
  onToggleSelect: (post: Post) => void;
}

/** A review card's header: the bulk checkbox, the author's avatar, name and handle, the age and persona version, and the badges. */
export function ReviewCardHead({ post, now, flags, ids, reviewable, selected, onToggleSelect }: Props) {
  const [avatarFailed, setAvatarFailed] = useState(false);
  const handle = post.author_username ? `@${post.author_username}` : '';
  const name = post.original_post_user || handle || 'The persona';
  const manual = post.reply_route === 'manual';
  const review = post.review ?? null;
  const personaVersion = personaVersionLabel(post.persona_version);
  const platforms = usePlatforms();
  return (
    <header className="review-head">
      {reviewable && (
        <input
          type="checkbox"
          className="review-select"
          checked={selected}
          onChange={() => onToggleSelect(post)}
          aria-label={`Select post #${post.id}`}
          data-testid="select-card"
          data-shortcut="select"
        />
      )}
      {post.author_profile_image && !avatarFailed ? (
        <img
          className="avatar"
          src={post.author_profile_image}
          alt=""
          width={44}
          height={44}
          loading="lazy"
          referrerPolicy="no-referrer"
          onError={() => setAvatarFailed(true)}
        />
      ) : (
        <span className="avatar avatar-placeholder" aria-hidden="true">
          {name.replace(/^@/, '').charAt(0).toUpperCase() || '?'}
        </span>
      )}
      <div className="review-who">
        <h3 id={`${ids}-title`} className="review-name">
          {name}
        </h3>
        <p className="review-sub">
          {handle && <span>{handle}</span>}
          <time dateTime={post.created_at} title={formatTimestamp(post.created_at)}>
            {relativeTime(post.created_at, now)}
          </time>
          {personaVersion && (
            <span className="review-persona" data-testid="persona-version">
              {personaVersion}
            </span>
          )}
        </p>
      </div>
      <ul className="badges" aria-label="Tags">
        {post.platform && !platforms.find((p) => p.name === post.platform)?.simulated && (
          <li className={`badge badge-platform is-${post.platform}`} data-testid="platform-badge">
            {platformLabel(post.platform, platforms)}
          </li>
        )}
        {post.platform_running === false && (
          <li className="badge badge-failed" data-testid="platform-not-running">
            Not running
          </li>
        )}
        {post.category && <li className="badge badge-sin">{post.category}</li>}
        {review && (
          <li
            className={`badge badge-review${isLowScore(review.score) ? ' is-low' : ''}`}
            data-testid="review-score"
            aria-describedby={`${ids}-review`}
          >
            {reviewBadge(review)}
          </li>
        )}
        {post.is_mention && <li className="badge">Mention</li>}
        {post.is_profile_tweet && <li className="badge">Profile Tweet</li>}
        {post.status === 'failed' && <li className="badge badge-failed">Failed</li>}
        {manual && <li className="badge badge-manual">Hand-posting</li>}
        {flags.map((f) => (
          <li key={f} className={`badge badge-flag${f === NEAR_DUPLICATE ? ' is-soft' : ''}`} data-testid="flag">
            {flagLabel(f)}
          </li>
        ))}
      </ul>
    </header>
  );
}
