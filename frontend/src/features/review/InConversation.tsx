import { useId, useState, type ReactNode } from 'react';
import type { ConversationItem } from '../../api/types';
import { useConversation } from './useConversation';
import { PostMedia } from './PostMedia';
import { ContentWarning } from './ContentWarning';
import { authorHandle, earlierToggleLabel, splitConversation } from './conversation';
import { formatTimestamp, relativeTime } from '../../lib/time';

export const CONVERSATION_FAILED = 'The conversation could not be read';

interface Props {
  postId: number;
  /** Whether the post answers anything (a profile post answers nothing, so nothing is fetched). */
  enabled: boolean;
  now: number;
  /** The mortal's post itself, shown between its thread and what it quotes. */
  children: ReactNode;
}

/**
 * The mortal's post in its conversation: the thread above it (the last two
 * posts open, the earlier ones behind a toggle), the quoted post below it,
 * and the note when the draft could not see everything. Nothing shows while
 * loading or when there is no conversation; a failed read is one muted line.
 */
export function InConversation({ postId, enabled, now, children }: Props) {
  const ids = useId();
  const [showEarlier, setShowEarlier] = useState(false);
  const { data, error } = useConversation(postId, enabled);
  const { earlier, visible, quoted } = splitConversation(data?.items);
  const note = data?.note?.trim() ?? '';

  return (
    <>
      {error && (
        <p className="muted context-failed" data-testid="context-failed">
          {CONVERSATION_FAILED}
        </p>
      )}
      {note && (
        <p className="context-note" data-testid="context-note">
          {note}
        </p>
      )}
      {earlier.length + visible.length > 0 && (
        <div className="context-thread" data-testid="context-thread">
          {earlier.length > 0 && (
            <button
              type="button"
              className="link-button"
              aria-expanded={showEarlier}
              aria-controls={`${ids}-thread`}
              onClick={() => setShowEarlier((open) => !open)}
              data-testid="context-toggle"
            >
              {earlierToggleLabel(earlier.length, showEarlier)}
            </button>
          )}
          <ol id={`${ids}-thread`} className="context-list" aria-label="Earlier in the conversation">
            {(showEarlier ? [...earlier, ...visible] : visible).map((item, i) => (
              <li
                key={`${item.platform_post_id}-${i}`}
                className={`context-post${item.relation === 'persona' ? ' is-persona' : ''}`}
                data-testid="context-post"
                data-relation={item.relation}
              >
                <ContextHead item={item} now={now} />
                <ContentWarning text={item.content_warning ?? ''} />
                <p className="context-text">{item.text}</p>
                <PostMedia media={item.media} link={item.link} />
              </li>
            ))}
          </ol>
        </div>
      )}
      {children}
      {quoted.map((item, i) => (
        <figure key={`${item.platform_post_id}-${i}`} className="context-quoted" data-testid="context-quoted">
          <figcaption>
            <ContextHead item={item} now={now} prefix="Quoting" />
          </figcaption>
          <ContentWarning text={item.content_warning ?? ''} />
          <blockquote className="context-text">{item.text}</blockquote>
          <PostMedia media={item.media} link={item.link} />
        </figure>
      ))}
    </>
  );
}

function ContextHead({ item, now, prefix }: { item: ConversationItem; now: number; prefix?: string }) {
  return (
    <p className="context-head">
      {prefix && <span>{prefix}</span>}
      <span className="context-handle">{authorHandle(item.author_username)}</span>
      {item.relation === 'persona' && <span className="badge badge-persona">Persona</span>}
      {item.created_at && (
        <time dateTime={item.created_at} title={formatTimestamp(item.created_at)}>
          {relativeTime(item.created_at, now)}
        </time>
      )}
    </p>
  );
}
