package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// Draft is what the writer produced for a post.
type Draft struct {
	Response         string
	Category         post.Category
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64
	// Flags are the outbound check's findings on Response (guard.Flag values).
	Flags []string
	// PersonaVersion is the persona version it was written in, zero for none.
	PersonaVersion int
	// Review is the judge's opinion of it, nil when there is none.
	Review *post.Review
	// Learned is what shaped it: the cases and lessons in its prompt.
	Learned post.LearnedFrom
	// MaxLength is the limit in force on the platform when it was written
	// (the server's own, on Mastodon), zero for the platform's default:
	// kept on the post as posts.max_length, the limit of its review.
	MaxLength int
}

// reviewColumns are a draft's review as the columns review_score,
// review_reason and review_by take it.
func (d Draft) reviewColumns() (score *int, reason, by string) {
	if d.Review == nil {
		return nil, "", ""
	}
	s := d.Review.Score
	return &s, d.Review.Reason, d.Review.By
}

// SaveDraft stores a draft, with its writer version, and makes the post
// pending. Only a post in drafting takes a draft; any other gets a
// *post.StateError (ErrConflict), so a redelivered draft task never
// overwrites what the administrator is reviewing.
func (s *Store) SaveDraft(ctx context.Context, id int64, d Draft) error {
	return s.saveDraft(ctx, id, d, post.StatusPending, "")
}

// SkipDraft stores a draft as SaveDraft does but skips the post with
// reason instead of making it pending: the judge found the draft below the
// administrator's minimum score. The draft stays in the post's history;
// "draft anyway" writes a new one. Only a post in drafting takes it.
func (s *Store) SkipDraft(ctx context.Context, id int64, d Draft, reason string) error {
	return s.saveDraft(ctx, id, d, post.StatusSkipped, reason)
}

// saveDraft stores d on post id, in drafting, and moves it to status with
// skipReason.
func (s *Store) saveDraft(ctx context.Context, id int64, d Draft, status post.Status, skipReason string) error {
	score, reason, by := d.reviewColumns()
	// One statement, so one round trip: the draft and its version are
	// written together or not at all. Guarded on drafting alone: a failed
	// post reaches pending only by a regenerated draft.
	tag, err := s.pool.Exec(ctx, `
		WITH saved AS (
			UPDATE posts SET status = $9, proposed_response = $2, category = $3,
				temperature = $4, presence_penalty = $5, frequency_penalty = $6,
				draft_attempts = draft_attempts + 1, error = '', flags = $8, skip_reason = $10,
				persona_version = $11, review_score = $12, review_reason = $13, review_by = $14,
				draft_version = draft_version + 1, updated_at = now(), drafted_at = coalesce(drafted_at, now()),
				learned_cases = $15, learned_lessons = $16, grounded_in = $17, max_length = $18
			WHERE id = $1 AND status = $7
			RETURNING id, proposed_response, learned_cases, learned_lessons, grounded_in)
		INSERT INTO post_versions (post_id, text, origin, learned_cases, learned_lessons, grounded_in)
		SELECT id, proposed_response, 'writer', learned_cases, learned_lessons, grounded_in FROM saved`,
		id, d.Response, d.Category, d.Temperature, d.PresencePenalty, d.FrequencyPenalty, post.StatusDrafting, nonNil(d.Flags),
		status, skipReason, nullInt(d.PersonaVersion), score, reason, by, nonNilIDs(d.Learned.Cases), nonNilIDs(d.Learned.Lessons), d.Learned.NonNil().Facts,
		nullInt(max(d.MaxLength, 0)))
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
	return s.failFrom(ctx, id, "fail draft", post.StatusDrafting, reason)
}

// LatestMaxLength is the limit in force on platform when its latest draft
// was written (posts.max_length, what the worker read from the server),
// zero when no draft kept one: the platform's default stands. It is the
// limit of a text written for no post (an imported case).
func (s *Store) LatestMaxLength(ctx context.Context, platform string) (int, error) {
	var n *int
	err := s.pool.QueryRow(ctx, `SELECT max_length FROM posts WHERE platform = $1 AND max_length IS NOT NULL
		ORDER BY id DESC LIMIT 1`, platform).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: latest max length of %s: %w", platform, err)
	}
	return derefInt(n), nil
}
