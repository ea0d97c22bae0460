package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// BeginSend marks an approved post as being sent and returns it; started is
// the earlier mark, non-nil when a previous attempt may already have posted.
// A post that is not approved gets a *post.StateError (ErrConflict).
func (s *Store) BeginSend(ctx context.Context, id int64) (p post.Post, started *time.Time, err error) {
	// One statement, so one round trip: the subquery locks the row and reads
	// the earlier mark, the update sets it once; the post returned carries
	// the earlier mark, as the row was before.
	p, err = queryPost(ctx, s.pool, `
		UPDATE posts SET send_started_at = coalesce(old.prior_start, now()), updated_at = now()
		FROM (SELECT id AS old_id, send_started_at AS prior_start FROM posts WHERE id = $1 AND status = $2 FOR UPDATE) old
		WHERE posts.id = old.old_id AND (posts.send_after IS NULL OR posts.send_after <= now())
		RETURNING `+strings.Replace(postColumns, "send_started_at", "old.prior_start AS send_started_at", 1), id, post.StatusApproved)
	if errors.Is(err, pgx.ErrNoRows) {
		// Sending is no move of its own: it happens while the post stays approved.
		return post.Post{}, nil, s.stateError(ctx, id, "begin send", post.StatusApproved)
	}
	if err != nil {
		return post.Post{}, nil, fmt.Errorf("store: begin send %d: %w", id, err)
	}
	return p, p.SendStartedAt, nil
}

// MarkPosted records that the response went out as responseID at postedAt,
// and appends the exchange to the public log in the same statement.
func (s *Store) MarkPosted(ctx context.Context, id int64, responseID string, postedAt time.Time) error {
	_, err := queryPost(ctx, s.pool, postAndLog(`
		UPDATE posts SET status = 'posted', response_post_id = $2, posted_at = $3, error = '', updated_at = now()
		WHERE id = $1 AND status = ANY($4) RETURNING *`), id, responseID, postedAt, from(post.StatusPosted))
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: mark posted %d: %w: not approved", id, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: mark posted %d: %w", id, err)
	}
	return nil
}

// ToManual moves an approved post whose reply X refused to the API to
// awaiting_manual, for hand-posting, keeping why.
func (s *Store) ToManual(ctx context.Context, id int64, reason string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE posts SET status = 'awaiting_manual', reply_route = 'manual', error = $2, updated_at = now()
		WHERE id = $1 AND status = $3`, id, reason, post.StatusApproved)
	if err != nil {
		return fmt.Errorf("store: to manual %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "to manual", post.StatusApproved)
	}
	return nil
}

// MarkManualPosted records that the hand-posted reply of a post awaiting
// it went out (responseID may be empty when the administrator does not
// know it), and appends the exchange to the public log. It is the
// administrator's decision, made on draft version shown (nil: the current
// one) through channel by, and recorded; any other status gets a
// *post.StateError (ErrConflict).
func (s *Store) MarkManualPosted(ctx context.Context, id int64, responseID string, postedAt time.Time, shown *int, by post.Channel) (post.Post, error) {
	return s.decideOn(ctx, id, decisionOn{what: "mark posted", want: post.StatusAwaitingManual, action: post.ActionMarkPosted, shown: shown, by: by},
		func(tx pgx.Tx) (post.Post, error) {
			return queryPost(ctx, tx, markManualSQL(), id, responseID, postedAt, post.StatusAwaitingManual, "")
		})
}

// MarkHandPostedFound records the hand-posted reply of a post awaiting it,
// found on the platform as responseID with text: the text as posted
// replaces the draft (the administrator may have edited it on the
// platform's page), so the statistics and the public log show what was
// actually posted. It is the worker's finding, not a decision: the
// history keeps none. Any other status gets a *post.StateError
// (ErrConflict).
func (s *Store) MarkHandPostedFound(ctx context.Context, id int64, responseID, text string, postedAt time.Time) (post.Post, error) {
	if responseID == "" || strings.TrimSpace(text) == "" {
		return post.Post{}, fmt.Errorf("store: mark hand-posted %d: %w: reply id and text are required", id, ErrInvalid)
	}
	p, err := queryPost(ctx, s.pool, markManualSQL(), id, responseID, postedAt, post.StatusAwaitingManual, text)
	if errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, s.stateError(ctx, id, "mark posted", post.StatusAwaitingManual)
	}
	if err != nil {
		return post.Post{}, fmt.Errorf("store: mark posted %d: %w", id, err)
	}
	return p, nil
}

// markManualSQL moves post $1 from awaiting_manual ($4) to posted as
// responseID $2 at $3, with text $5 as its response when not empty, and
// files it in the public log.
func markManualSQL() string {
	return postAndLog(`
		UPDATE posts SET status = 'posted', response_post_id = nullif($2, ''), posted_at = $3, error = '',
			proposed_response = coalesce(nullif($5, ''), proposed_response), updated_at = now()
		WHERE id = $1 AND status = $4 RETURNING *`)
}

// FailSend marks an approved post as failed with the platform's message.
func (s *Store) FailSend(ctx context.Context, id int64, reason string) error {
	return s.failFrom(ctx, id, "fail send", post.StatusApproved, reason)
}

// NoteError keeps the latest transient error on a post without changing its state.
func (s *Store) NoteError(ctx context.Context, id int64, reason string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE posts SET error = $2, updated_at = now() WHERE id = $1`, id, reason); err != nil {
		return fmt.Errorf("store: note error %d: %w", id, err)
	}
	return nil
}

// SendKey returns the key the send of post id writes under: the one an
// earlier attempt stored, or else candidate, stored now, before the
// platform is called, so that every attempt of the send uses the same key.
func (s *Store) SendKey(ctx context.Context, id int64, candidate string) (string, error) {
	if candidate == "" {
		return "", fmt.Errorf("store: send key of post %d: %w: empty key", id, ErrInvalid)
	}
	var key string
	err := s.pool.QueryRow(ctx, `UPDATE posts SET send_key = COALESCE(send_key, $2) WHERE id = $1 RETURNING send_key`, id, candidate).Scan(&key)
	if err != nil {
		return "", notFound(err, fmt.Sprintf("send key of post %d", id))
	}
	return key, nil
}
