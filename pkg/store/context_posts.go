package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// ContextPost is a post of the platform kept as some draft's context (a
// parent, an ancestor, a quoted post), or one of the persona's own replies
// read from posts.
type ContextPost struct {
	Platform       string
	PlatformPostID string
	ConversationID string
	InReplyToID    string
	QuotedID       string
	AuthorID       string
	AuthorUsername string
	AuthorName     string
	Text           string
	// CreatedAt is when the post was made; nil when the platform did not say.
	CreatedAt *time.Time
	// Gone means the platform no longer shows the post (deleted, protected).
	Gone bool
	// Media are the post's images, at most post.MaxMedia; Link its link
	// card, nil when none.
	Media []post.Media
	Link  *post.Link
	// ContentWarning is the warning its author put over it, "" when none.
	ContentWarning string
}

// contextPostColumns are the columns of a context_posts row, in scan order.
const contextPostColumns = `platform, platform_post_id, conversation_id, in_reply_to_id, quoted_id,
	author_id, author_username, author_name, text, created_at, gone, media, link, content_warning`

// SaveContextPosts keeps posts read as context, one row per platform post:
// a post read again replaces what was kept of it, except that a post once
// read is not made gone by a later read that merely missed it.
func (s *Store) SaveContextPosts(ctx context.Context, posts []ContextPost) error {
	if len(posts) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, p := range posts {
		if p.Platform == "" || p.PlatformPostID == "" {
			return fmt.Errorf("store: save context post: %w: a context post needs a platform and an id", ErrInvalid)
		}
		batch.Queue(`INSERT INTO context_posts (`+contextPostColumns+`, fetched_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())
			ON CONFLICT (platform, platform_post_id) DO UPDATE SET
				conversation_id = CASE WHEN excluded.gone THEN context_posts.conversation_id ELSE excluded.conversation_id END,
				in_reply_to_id = CASE WHEN excluded.gone THEN context_posts.in_reply_to_id ELSE excluded.in_reply_to_id END,
				quoted_id = CASE WHEN excluded.gone THEN context_posts.quoted_id ELSE excluded.quoted_id END,
				author_id = CASE WHEN excluded.gone THEN context_posts.author_id ELSE excluded.author_id END,
				author_username = CASE WHEN excluded.gone THEN context_posts.author_username ELSE excluded.author_username END,
				author_name = CASE WHEN excluded.gone THEN context_posts.author_name ELSE excluded.author_name END,
				text = CASE WHEN excluded.gone THEN context_posts.text ELSE excluded.text END,
				created_at = coalesce(excluded.created_at, context_posts.created_at),
				media = CASE WHEN excluded.gone THEN context_posts.media ELSE excluded.media END,
				link = CASE WHEN excluded.gone THEN context_posts.link ELSE excluded.link END,
				content_warning = CASE WHEN excluded.gone THEN context_posts.content_warning ELSE excluded.content_warning END,
				gone = excluded.gone AND context_posts.text = '',
				fetched_at = now()`,
			p.Platform, p.PlatformPostID, p.ConversationID, p.InReplyToID, p.QuotedID,
			post.StorableText(p.AuthorID), post.StorableText(p.AuthorUsername), post.StorableText(p.AuthorName),
			post.StorableText(p.Text), p.CreatedAt, p.Gone, nonNilMedia(p.Media), p.Link, post.StorableText(p.ContentWarning))
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: save context posts: %w", err)
	}
	return nil
}

// ContextPosts returns the posts of platform with the given ids that are
// known without asking the platform, by id: the kept context posts, and
// the mortals' posts the scans found (a post answered earlier can be a
// later post's parent). Ids known neither way are absent.
func (s *Store) ContextPosts(ctx context.Context, platform string, ids []string) (map[string]ContextPost, error) {
	out := make(map[string]ContextPost, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// Found posts first: a kept context row of the same post, read later, wins.
	rows, err := s.pool.Query(ctx, `
		SELECT platform, original_post_id, coalesce(conversation_id, ''), in_reply_to_id, quoted_id,
			'', author_username, original_post_user, original_post_text, created_at, false, media, link, content_warning, 0 AS rank
		FROM posts WHERE platform = $1 AND original_post_id = ANY($2)
		UNION ALL
		SELECT `+contextPostColumns+`, 1 FROM context_posts WHERE platform = $1 AND platform_post_id = ANY($2)
		ORDER BY rank`, platform, ids)
	if err != nil {
		return nil, fmt.Errorf("store: context posts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ContextPost, error) {
		var (
			p    ContextPost
			rank int
		)
		err := r.Scan(&p.Platform, &p.PlatformPostID, &p.ConversationID, &p.InReplyToID, &p.QuotedID,
			&p.AuthorID, &p.AuthorUsername, &p.AuthorName, &p.Text, &p.CreatedAt, &p.Gone, &p.Media, &p.Link, &p.ContentWarning, &rank)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: context posts: %w", err)
	}
	for _, p := range list {
		out[p.PlatformPostID] = p
	}
	return out, nil
}

// MaxPersonaReplies bounds how many of the persona's earlier replies in a
// conversation a draft's context holds (the latest ones).
const MaxPersonaReplies = 10

// PersonaReplies returns the persona's replies posted in conversationID of
// platform before the post with id exceptID was answered, oldest first, at
// most MaxPersonaReplies (the latest). A reply is the post's response: its
// response_post_id, the persona's text and when it was posted; the author
// fields are left for the caller, who knows the persona's handle.
func (s *Store) PersonaReplies(ctx context.Context, platform, conversationID string, exceptID int64) ([]ContextPost, error) {
	if conversationID == "" {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT * FROM (
			SELECT coalesce(response_post_id, ''), coalesce(original_post_id, ''), proposed_response, posted_at
			FROM posts
			WHERE platform = $1 AND conversation_id = $2 AND status = $3 AND id <> $4
			ORDER BY posted_at DESC LIMIT $5) latest
		ORDER BY posted_at`,
		platform, conversationID, post.StatusPosted, exceptID, MaxPersonaReplies)
	if err != nil {
		return nil, fmt.Errorf("store: persona replies: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ContextPost, error) {
		p := ContextPost{Platform: platform, ConversationID: conversationID}
		err := r.Scan(&p.PlatformPostID, &p.InReplyToID, &p.Text, &p.CreatedAt)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: persona replies: %w", err)
	}
	return out, nil
}

// SetContextNote records what the post's draft could not see of its
// conversation ("" when it saw everything).
func (s *Store) SetContextNote(ctx context.Context, id int64, note string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE posts SET context_note = $2 WHERE id = $1 AND context_note <> $2`, id, note); err != nil {
		return fmt.Errorf("store: context note of %d: %w", id, err)
	}
	return nil
}

// PruneContextPosts forgets context posts read before before; a later
// draft that needs one reads it again.
func (s *Store) PruneContextPosts(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM context_posts WHERE fetched_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune context posts: %w", err)
	}
	return tag.RowsAffected(), nil
}
