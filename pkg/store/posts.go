package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// postColumns lists the columns scanPost reads, in order.
const postColumns = `id, platform, source, status, coalesce(original_post_id, ''), coalesce(conversation_id, ''),
	original_post_text, original_post_user, author_username, author_profile_image, media_url, created_at,
	category, likes_count, retweets_count, replies_count, proposed_response,
	temperature, presence_penalty, frequency_penalty,
	approved_at, rejected_at, send_started_at, posted_at, coalesce(response_post_id, ''), error, updated_at`

func scanPost(row pgx.Row) (post.Post, error) {
	var p post.Post
	err := row.Scan(&p.ID, &p.Platform, &p.Source, &p.Status, &p.OriginalPostID, &p.ConversationID,
		&p.OriginalPostText, &p.OriginalPostUser, &p.AuthorUsername, &p.AuthorProfileImage, &p.MediaURL, &p.CreatedAt,
		&p.Category, &p.Likes, &p.Retweets, &p.Replies, &p.ProposedResponse,
		&p.Temperature, &p.PresencePenalty, &p.FrequencyPenalty,
		&p.ApprovedAt, &p.RejectedAt, &p.SendStartedAt, &p.PostedAt, &p.ResponsePostID, &p.Error, &p.UpdatedAt)
	return p, err
}

func collectPosts(rows pgx.Rows) ([]post.Post, error) {
	defer rows.Close()
	var out []post.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// UpsertFound records a post found on a platform, in status drafting. A post
// seen before keeps its row and state; only its public metrics are refreshed.
// created tells whether the row is new.
func (s *Store) UpsertFound(ctx context.Context, p post.Post) (id int64, created bool, err error) {
	if p.OriginalPostID == "" || !p.Source.Valid() || p.Source == post.SourceProfile {
		return 0, false, fmt.Errorf("store: upsert post: %w: a found post needs an id and a mortal source", ErrInvalid)
	}
	err = s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_id, conversation_id, original_post_text, original_post_user,
			author_username, author_profile_image, media_url, created_at, likes_count, retweets_count, replies_count)
		VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (platform, original_post_id) DO UPDATE
			SET likes_count = excluded.likes_count, retweets_count = excluded.retweets_count,
			    replies_count = excluded.replies_count, updated_at = now()
		RETURNING id, (xmax = 0)`,
		p.Platform, p.Source, p.OriginalPostID, p.ConversationID, p.OriginalPostText, p.OriginalPostUser,
		p.AuthorUsername, p.AuthorProfileImage, p.MediaURL, p.CreatedAt, p.Likes, p.Retweets, p.Replies,
	).Scan(&id, &created)
	if err != nil {
		return 0, false, fmt.Errorf("store: upsert post: %w", err)
	}
	return id, created, nil
}

// CreateProfileDraft makes a new profile post, in status drafting, to be written.
func (s *Store) CreateProfileDraft(ctx context.Context, platform, persona string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_user, author_username)
		VALUES ($1, 'profile', $2, $2) RETURNING id`, platform, persona).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create profile draft: %w", err)
	}
	return id, nil
}

// Post returns one post by id.
func (s *Store) Post(ctx context.Context, id int64) (post.Post, error) {
	p, err := scanPost(s.pool.QueryRow(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
	if err != nil {
		return post.Post{}, notFound(err, fmt.Sprintf("post %d", id))
	}
	return p, nil
}

// orderBy maps each list order to its SQL; every one ends on id so pages are stable.
var orderBy = map[post.Sort]string{
	post.SortDate:       "created_at DESC, id DESC",
	post.SortEngagement: "engagement_score DESC, id DESC",
	post.SortLikes:      "likes_count DESC, id DESC",
	post.SortRetweets:   "retweets_count DESC, id DESC",
	post.SortReplies:    "replies_count DESC, id DESC",
}

// ListPending returns one page (1-based) of the posts of a source that await
// the administrator, and how many there are in all: the pending ones, and
// the failed ones, kept in view with their error to be fixed and approved
// again, or rejected.
func (s *Store) ListPending(ctx context.Context, source post.Source, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	order, ok := orderBy[sort]
	if !ok || !source.Valid() || page < 1 || pageSize < 1 {
		return nil, 0, fmt.Errorf("store: list pending: %w: source %q sort %q page %d", ErrInvalid, source, sort, page)
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM posts WHERE source = $1 AND status IN ('pending', 'failed')`, source).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count pending: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+postColumns+` FROM posts WHERE source = $1 AND status IN ('pending', 'failed')
		ORDER BY `+order+` LIMIT $2 OFFSET $3`, source, pageSize, (page-1)*pageSize)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list pending: %w", err)
	}
	posts, err := collectPosts(rows)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list pending: %w", err)
	}
	return posts, total, nil
}

// Draft is what the writer produced for a post.
type Draft struct {
	Response         string
	Category         post.Category
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64
}

// SaveDraft stores a draft and makes the post pending. Only a post in
// drafting takes a draft; any other gets ErrConflict, so a redelivered draft
// task never overwrites what the administrator is reviewing.
func (s *Store) SaveDraft(ctx context.Context, id int64, d Draft) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE posts SET status = 'pending', proposed_response = $2, category = $3,
			temperature = $4, presence_penalty = $5, frequency_penalty = $6,
			draft_attempts = draft_attempts + 1, error = '', updated_at = now()
		WHERE id = $1 AND status = 'drafting'`,
		id, d.Response, d.Category, d.Temperature, d.PresencePenalty, d.FrequencyPenalty)
	if err != nil {
		return fmt.Errorf("store: save draft %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "save draft", post.StatusDrafting)
	}
	return nil
}

// FailDraft marks a post that could not be drafted as failed, keeping why.
func (s *Store) FailDraft(ctx context.Context, id int64, reason string) error {
	return s.transition(ctx, id, "fail draft", `status = 'failed', error = $2`, post.StatusDrafting, reason)
}

// Approve moves a pending (or failed) post to approved, storing an edited
// response first when edited is not nil. The response must be within the
// platform's limit (ErrInvalid); a post in any other state gets ErrConflict.
func (s *Store) Approve(ctx context.Context, id int64, edited *string) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := scanPost(tx.QueryRow(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return notFound(err, fmt.Sprintf("approve post %d", id))
		}
		if p.Status != post.StatusPending && p.Status != post.StatusFailed {
			return fmt.Errorf("store: approve post %d: %w: it is %s, not pending", id, ErrConflict, p.Status)
		}
		text := p.ProposedResponse
		if edited != nil {
			text = *edited
		}
		if n := post.WeightedLength(text); n == 0 || n > post.MaxLength {
			return fmt.Errorf("store: approve post %d: %w: the response is %d characters; it must be 1 to %d", id, ErrInvalid, n, post.MaxLength)
		}
		out, err = scanPost(tx.QueryRow(ctx, `
			UPDATE posts SET status = 'approved', proposed_response = $2, approved_at = now(), error = '', updated_at = now()
			WHERE id = $1 RETURNING `+postColumns, id, text))
		if err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		return nil
	})
	return out, err
}

// Reject moves a pending (or failed) post to rejected; any other state gets ErrConflict.
func (s *Store) Reject(ctx context.Context, id int64) (post.Post, error) {
	p, err := scanPost(s.pool.QueryRow(ctx, `
		UPDATE posts SET status = 'rejected', rejected_at = now(), updated_at = now()
		WHERE id = $1 AND status IN ('pending', 'failed') RETURNING `+postColumns, id))
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, fmt.Errorf("store: reject post %d: %w", id, err)
	}
	return post.Post{}, s.stateError(ctx, id, "reject post", post.StatusPending)
}

// BeginSend marks an approved post as being sent and returns it; started is
// the earlier mark, non-nil when a previous attempt may already have posted.
// A post that is not approved gets ErrConflict.
func (s *Store) BeginSend(ctx context.Context, id int64) (p post.Post, started *time.Time, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		p, err = scanPost(tx.QueryRow(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return notFound(err, fmt.Sprintf("begin send %d", id))
		}
		if p.Status != post.StatusApproved {
			return fmt.Errorf("store: begin send %d: %w: it is %s, not approved", id, ErrConflict, p.Status)
		}
		started = p.SendStartedAt
		if _, err := tx.Exec(ctx, `UPDATE posts SET send_started_at = coalesce(send_started_at, now()), updated_at = now() WHERE id = $1`, id); err != nil {
			return fmt.Errorf("store: begin send %d: %w", id, err)
		}
		return nil
	})
	return p, started, err
}

// MarkPosted records that the response went out as responseID at postedAt,
// and appends the exchange to the public log in the same transaction.
func (s *Store) MarkPosted(ctx context.Context, id int64, responseID string, postedAt time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := scanPost(tx.QueryRow(ctx, `
			UPDATE posts SET status = 'posted', response_post_id = $2, posted_at = $3, error = '', updated_at = now()
			WHERE id = $1 AND status = 'approved' RETURNING `+postColumns, id, responseID, postedAt))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: mark posted %d: %w: not approved", id, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: mark posted %d: %w", id, err)
		}
		return appendLog(ctx, tx, p)
	})
}

// FailSend marks an approved post as failed with the platform's message.
func (s *Store) FailSend(ctx context.Context, id int64, reason string) error {
	return s.transition(ctx, id, "fail send", `status = 'failed', error = $2`, post.StatusApproved, reason)
}

// NoteError keeps the latest transient error on a post without changing its state.
func (s *Store) NoteError(ctx context.Context, id int64, reason string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE posts SET error = $2, updated_at = now() WHERE id = $1`, id, reason); err != nil {
		return fmt.Errorf("store: note error %d: %w", id, err)
	}
	return nil
}

// transition applies set to post id when it is in status from, else reports why not.
func (s *Store) transition(ctx context.Context, id int64, what, set string, from post.Status, reason string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE posts SET `+set+`, updated_at = now() WHERE id = $1 AND status = $3`, id, reason, from)
	if err != nil {
		return fmt.Errorf("store: %s %d: %w", what, id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, what, from)
	}
	return nil
}

// stateError explains why an update guarded by status want touched nothing:
// no such post, or a post in another state.
func (s *Store) stateError(ctx context.Context, id int64, what string, want post.Status) error {
	var status string
	err := s.pool.QueryRow(ctx, `SELECT status FROM posts WHERE id = $1`, id).Scan(&status)
	if err != nil {
		return notFound(err, fmt.Sprintf("%s %d", what, id))
	}
	return fmt.Errorf("store: %s %d: %w: it is %s, not %s", what, id, ErrConflict, status, want)
}

// IDsInStatus returns the ids of posts in status whose last change is older
// than before, oldest first, at most limit of them.
func (s *Store) IDsInStatus(ctx context.Context, status post.Status, before time.Time, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM posts WHERE status = $1 AND updated_at < $2 ORDER BY updated_at LIMIT $3`,
		status, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	return ids, nil
}

// PostedSince returns the platform ids of the persona's responses posted at
// or after since, with the row ids they belong to.
func (s *Store) PostedSince(ctx context.Context, platform string, since time.Time) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT response_post_id, id FROM posts
		WHERE platform = $1 AND status = 'posted' AND posted_at >= $2 AND response_post_id IS NOT NULL`, platform, since)
	if err != nil {
		return nil, fmt.Errorf("store: posted since: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var rid string
		var id int64
		if err := rows.Scan(&rid, &id); err != nil {
			return nil, fmt.Errorf("store: posted since: %w", err)
		}
		out[rid] = id
	}
	return out, rows.Err()
}

// Metrics are public counters of a response.
type Metrics struct {
	Likes, Retweets, Replies int
}

// SetResponseMetrics stores the latest public counters of posted responses, by row id.
func (s *Store) SetResponseMetrics(ctx context.Context, metrics map[int64]Metrics) error {
	batch := &pgx.Batch{}
	for id, m := range metrics {
		batch.Queue(`UPDATE posts SET response_likes = $2, response_retweets = $3, response_replies = $4 WHERE id = $1`,
			id, m.Likes, m.Retweets, m.Replies)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: set response metrics: %w", err)
	}
	return nil
}

// DeleteDraft removes a post still in drafting, when the work to draft it
// could not even be queued; a post in any other state is kept (ErrConflict).
func (s *Store) DeleteDraft(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM posts WHERE id = $1 AND status = 'drafting'`, id)
	if err != nil {
		return fmt.Errorf("store: delete draft %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "delete draft", post.StatusDrafting)
	}
	return nil
}
