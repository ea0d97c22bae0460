package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// addVersion records text as post id's newest version, in tx, the
// transaction that changes the post's text; it is called before the update
// for every origin but the writer's first draft. A post drafted before
// versions were kept first gets its current text as its writer version, so
// its history starts where it did.
func addVersion(ctx context.Context, tx pgx.Tx, id int64, text string, origin post.Origin, instruction string) error {
	if origin == post.OriginWriter {
		if _, err := tx.Exec(ctx, `INSERT INTO post_versions (post_id, text, origin) VALUES ($1, $2, 'writer')`, id, text); err != nil {
			return fmt.Errorf("store: version of post %d: %w", id, err)
		}
		return nil
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO post_versions (post_id, text, origin, at)
		SELECT id, proposed_response, 'writer', updated_at FROM posts
		WHERE id = $1 AND proposed_response <> '' AND NOT EXISTS (SELECT 1 FROM post_versions WHERE post_id = $1)`, id); err != nil {
		return fmt.Errorf("store: version of post %d: %w", id, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO post_versions (post_id, text, origin, instruction) VALUES ($1, $2, $3, $4)`,
		id, text, origin, instruction); err != nil {
		return fmt.Errorf("store: version of post %d: %w", id, err)
	}
	return nil
}

// History returns every version of post id's draft, oldest first. A post
// drafted before versions were kept shows its current text as its one
// writer version (ID zero); a post never drafted has none. An unknown id is
// ErrNotFound.
func (s *Store) History(ctx context.Context, id int64) ([]post.Version, error) {
	var out []post.Version
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var current string
		var at time.Time
		err := tx.QueryRow(ctx, `SELECT proposed_response, updated_at FROM posts WHERE id = $1`, id).Scan(&current, &at)
		if err != nil {
			return notFound(err, fmt.Sprintf("history of post %d", id))
		}
		rows, err := tx.Query(ctx, `SELECT id, text, origin, instruction, at, learned_cases, learned_lessons, grounded_in FROM post_versions WHERE post_id = $1 ORDER BY id`, id)
		if err != nil {
			return fmt.Errorf("store: history of post %d: %w", id, err)
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (post.Version, error) {
			var v post.Version
			err := row.Scan(&v.ID, &v.Text, &v.Origin, &v.Instruction, &v.At, &v.LearnedFrom.Cases, &v.LearnedFrom.Lessons, &v.LearnedFrom.Facts)
			return v, err
		})
		if err != nil {
			return fmt.Errorf("store: history of post %d: %w", id, err)
		}
		if len(out) == 0 && current != "" {
			out = []post.Version{{Text: current, Origin: post.OriginWriter, At: at}}
		}
		return nil
	})
	return out, err
}

// LatestVersionID returns the id of post id's newest version, zero when it
// has none; a regenerated draft is known by a newer one.
func (s *Store) LatestVersionID(ctx context.Context, id int64) (int64, error) {
	var latest int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM post_versions WHERE post_id = $1`, id).Scan(&latest); err != nil {
		return 0, fmt.Errorf("store: latest version of post %d: %w", id, err)
	}
	return latest, nil
}

// SaveRegenerated stores a regenerated draft of post id, with the
// instruction it was written to and the outbound check's flags, as its
// newest version; a failed post becomes pending again. Only a pending or
// failed post takes it: any other gets a *post.StateError (ErrConflict), so
// a draft written while the administrator approved or rejected the post is
// dropped.
func (s *Store) SaveRegenerated(ctx context.Context, id int64, d Draft, instruction string, flags []string) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := queryPost(ctx, tx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return notFound(err, fmt.Sprintf("regenerate post %d", id))
		}
		if !post.Regenerable(p.Status) {
			return fmt.Errorf("store: regenerate post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: post.StatusPending})
		}
		if err := addVersion(ctx, tx, id, d.Response, post.OriginRegenerate, instruction); err != nil {
			return err
		}
		// What shaped it, on the version just added and on the post.
		if _, err := tx.Exec(ctx, `UPDATE post_versions SET learned_cases = $2, learned_lessons = $3, grounded_in = $4
			WHERE id = (SELECT max(id) FROM post_versions WHERE post_id = $1)`,
			id, nonNilIDs(d.Learned.Cases), nonNilIDs(d.Learned.Lessons), d.Learned.NonNil().Facts); err != nil {
			return fmt.Errorf("store: regenerate post %d: %w", id, err)
		}
		if flags == nil {
			flags = []string{}
		}
		score, reason, by := d.reviewColumns()
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = 'pending', proposed_response = $2, category = $3,
				temperature = $4, presence_penalty = $5, frequency_penalty = $6, flags = $7, error = '',
				persona_version = $8, review_score = $9, review_reason = $10, review_by = $11,
				draft_version = draft_version + 1, updated_at = now(), learned_cases = $12, learned_lessons = $13, grounded_in = $14,
				max_length = $15
			WHERE id = $1 AND status IN ('pending', 'failed') RETURNING `+postColumns,
			id, d.Response, d.Category, d.Temperature, d.PresencePenalty, d.FrequencyPenalty, flags,
			nullInt(d.PersonaVersion), score, reason, by, nonNilIDs(d.Learned.Cases), nonNilIDs(d.Learned.Lessons), d.Learned.NonNil().Facts,
			nullInt(max(d.MaxLength, 0)))
		if err != nil {
			return fmt.Errorf("store: regenerate post %d: %w", id, err)
		}
		return nil
	})
	return out, err
}

// DraftQueue tells how caps.drafts_per_hour stands for post id: the first
// drafts written since since (the writer's versions, of every post), and
// the posts in drafting older than id, which are drafted before it. Both
// are read in one snapshot, so that a draft saved meanwhile is counted
// once, as written or as waiting.
func (s *Store) DraftQueue(ctx context.Context, id int64, since time.Time) (drafted, ahead int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM post_versions WHERE origin = 'writer' AND at >= $2),
		(SELECT count(*) FROM posts WHERE status = 'drafting' AND id < $1)`, id, since).Scan(&drafted, &ahead)
	if err != nil {
		return 0, 0, fmt.Errorf("store: draft queue of %d: %w", id, err)
	}
	return drafted, ahead, nil
}

// DraftCounts tells the admin how drafting stands: the first drafts
// written since since and the posts waiting in drafting.
func (s *Store) DraftCounts(ctx context.Context, since time.Time) (drafted, waiting int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM post_versions WHERE origin = 'writer' AND at >= $1),
		(SELECT count(*) FROM posts WHERE status = 'drafting')`, since).Scan(&drafted, &waiting)
	if err != nil {
		return 0, 0, fmt.Errorf("store: draft counts: %w", err)
	}
	return drafted, waiting, nil
}
