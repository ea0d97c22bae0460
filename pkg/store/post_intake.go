package store

import (
	"context"
	"fmt"

	"infernal/pkg/post"
)

// UpsertFound records a post found on a platform, in status drafting. A post
// seen before keeps its row and state; only its public metrics are refreshed.
// created tells whether the row is new. Until it is drafted it carries
// post.DefaultLLMParameter, the one source of that value (the schema's
// DEFAULT only backs it up).
func (s *Store) UpsertFound(ctx context.Context, p post.Post) (id int64, created bool, err error) {
	if p.OriginalPostID == "" || !p.Source.Valid() || p.Source == post.SourceProfile {
		return 0, false, fmt.Errorf("store: upsert post: %w: a found post needs an id and a mortal source", ErrInvalid)
	}
	err = s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_id, conversation_id, original_post_text, original_post_user,
			author_username, author_profile_image, media_url, created_at, likes_count, retweets_count, replies_count,
			temperature, presence_penalty, frequency_penalty, reply_route, in_reply_to_id, quoted_id, author_id, media, link,
			content_warning, web_url, language)
		VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $14, $15, $16, $17, $18, $19, $20,
			$21, $22, $23)
		ON CONFLICT (platform, original_post_id) DO UPDATE
			SET likes_count = excluded.likes_count, retweets_count = excluded.retweets_count,
			    replies_count = excluded.replies_count, updated_at = now()
		RETURNING id, (xmax = 0)`,
		p.Platform, p.Source, p.OriginalPostID, p.ConversationID, p.OriginalPostText, p.OriginalPostUser,
		p.AuthorUsername, p.AuthorProfileImage, p.MediaURL, p.CreatedAt, p.Likes, p.Retweets, p.Replies,
		post.DefaultLLMParameter, routeOf(p.ReplyRoute), p.InReplyToID, p.QuotedID, post.StorableText(p.AuthorID),
		nonNilMedia(p.Media), p.Link, post.StorableText(p.ContentWarning), p.WebURL, post.Language(p.Language),
	).Scan(&id, &created)
	if err != nil {
		return 0, false, fmt.Errorf("store: upsert post: %w", err)
	}
	return id, created, nil
}

// routeOf is a found post's reply route as stored: the API's unless it is
// said to be manual.
func routeOf(r post.Route) string {
	if r == post.RouteManual {
		return string(post.RouteManual)
	}
	return string(post.RouteAPI)
}

// CreateProfileDraft makes a new profile post, in status drafting, to be
// written; until then it carries post.DefaultLLMParameter.
func (s *Store) CreateProfileDraft(ctx context.Context, platform, persona string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_user, author_username, temperature, presence_penalty, frequency_penalty)
		VALUES ($1, 'profile', $2, $2, $3, $3, $3) RETURNING id`, platform, persona, post.DefaultLLMParameter).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create profile draft: %w", err)
	}
	return id, nil
}

// DeleteDraft removes a post still in drafting, when the work to draft it
// could not even be queued; a post in any other state is kept (ErrConflict).
func (s *Store) DeleteDraft(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM posts WHERE id = $1 AND status = $2`, id, post.StatusDrafting)
	if err != nil {
		return fmt.Errorf("store: delete draft %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "delete draft", post.StatusDrafting)
	}
	return nil
}
