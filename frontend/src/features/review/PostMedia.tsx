import type { LinkCard, Media } from '../../api/types';
import { imageLabel, linkHost, loadsFrom, NO_DESCRIPTION } from './media';
import { useAdminStats } from './useAdminStats';

interface Props {
  media: readonly Media[];
  link: LinkCard | null;
}

/**
 * A post's images and link card as the platform returned them: each image a
 * thumbnail with its alt text when it comes from MEDIA_HOSTS (the answer's
 * media_hosts, the content security policy's img-src), else a link to it;
 * the link card's title and host. Nothing when the post shows neither.
 */
export function PostMedia({ media, link }: Props) {
  const { data: stats } = useAdminStats();
  const hosts = stats?.media_hosts ?? [];
  if (media.length === 0 && !link) return null;
  return (
    <div className="post-media" data-testid="post-media">
      {media.length > 0 && (
        <ul className="post-media-list" aria-label={media.length === 1 ? '1 image' : `${media.length} images`}>
          {media.map((m, i) => {
            const thumb = m.preview_url || m.url;
            const full = m.url || m.preview_url;
            const label = imageLabel(m.alt, i + 1, m.type);
            return (
              <li key={`${thumb}-${i}`} className="post-media-item" data-testid="post-media-item">
                {loadsFrom(thumb, hosts) ? (
                  <figure>
                    <a href={full} target="_blank" rel="noopener noreferrer">
                      <img
                        src={thumb}
                        alt={label}
                        referrerPolicy="no-referrer"
                        loading="lazy"
                        decoding="async"
                        data-testid="post-media-thumb"
                      />
                    </a>
                    <figcaption className={m.alt.trim() ? '' : 'muted'}>{m.alt.trim() || NO_DESCRIPTION}</figcaption>
                  </figure>
                ) : (
                  <p className="post-media-elsewhere">
                    <a href={full} target="_blank" rel="noopener noreferrer" data-testid="post-media-link">
                      {label}
                      <span className="visually-hidden"> (opens in a new tab)</span>
                    </a>
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {link && (
        <p className="post-link-card" data-testid="post-link-card">
          <a href={link.url} target="_blank" rel="noopener noreferrer">
            <span className="post-link-title">{link.title.trim() || linkHost(link.url) || link.url}</span>
            <span className="post-link-host muted">{linkHost(link.url)}</span>
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        </p>
      )}
    </div>
  );
}
