import type { Post } from '../../api/types';
import { formatTimestamp, relativeTime } from '../../lib/time';
import { InConversation } from './InConversation';
import { ContentWarning } from './ContentWarning';

interface Props {
  post: Post;
  now: number;
}

/** Who wrote the post a side list shows, its source and age, and its text in its conversation. */
export function PostOrigin({ post, now }: Props) {
  return (
    <>
      <p className="review-sub">
        <strong className="review-name">{post.original_post_user || `@${post.author_username}`}</strong>
        {post.author_username && <span>@{post.author_username}</span>}
        <span className="badge">{post.source}</span>
        <time dateTime={post.created_at} title={formatTimestamp(post.created_at)}>
          {relativeTime(post.created_at, now)}
        </time>
      </p>
      <InConversation postId={post.id} enabled={post.original_post_id !== ''} now={now}>
        <ContentWarning text={post.content_warning ?? ''} />
        {post.original_post_text && <blockquote className="review-original">{post.original_post_text}</blockquote>}
      </InConversation>
    </>
  );
}
