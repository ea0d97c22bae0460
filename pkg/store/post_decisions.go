package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"infernal/pkg/post"
)

// RecordDecision records a decision that changes nothing in the post's row
// by itself: a regenerate asked of the writer.
func (s *Store) RecordDecision(ctx context.Context, id int64, action post.Action, by post.Channel, version int) error {
	return addDecision(ctx, s.pool, id, action, by, version, nil)
}

// execer runs a statement on the pool or inside a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// addDecision records a decision on post id, made through by on draft
// version, through q: the transaction that carries it out, or the pool.
func addDecision(ctx context.Context, q execer, id int64, action post.Action, by post.Channel, version int, detail map[string]any) error {
	if by == "" {
		by = post.ByWeb
	}
	if detail == nil {
		detail = map[string]any{}
	}
	raw, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("store: decision on post %d: %w", id, err)
	}
	if _, err := q.Exec(ctx, `INSERT INTO post_decisions (post_id, action, by, draft_version, detail) VALUES ($1, $2, $3, $4, $5)`,
		id, action, by, version, raw); err != nil {
		return fmt.Errorf("store: decision on post %d: %w", id, err)
	}
	return nil
}

// Decisions returns every decision on post id, oldest first.
func (s *Store) Decisions(ctx context.Context, id int64) ([]post.Decision, error) {
	rows, err := s.pool.Query(ctx, `SELECT action, by, draft_version, detail, at FROM post_decisions WHERE post_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: decisions on post %d: %w", id, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (post.Decision, error) {
		var d post.Decision
		var raw []byte
		if err := row.Scan(&d.Action, &d.By, &d.DraftVersion, &raw, &d.At); err != nil {
			return d, err
		}
		return d, json.Unmarshal(raw, &d.Detail)
	})
	if err != nil {
		return nil, fmt.Errorf("store: decisions on post %d: %w", id, err)
	}
	return out, nil
}

// AutopilotCounts returns how many autopilot approvals were made in the
// hour before the database's now (cancelled ones included), and whether a
// person edited or decided on post id: what the autopilot asks before it
// approves. The approval itself checks both again under its lock.
func (s *Store) AutopilotCounts(ctx context.Context, id int64) (recent int, human bool, err error) {
	if err := s.pool.QueryRow(ctx, autopilotCountsSQL, id, post.OriginAdmin, post.ByAutopilot, post.ActionApprove).Scan(&human, &recent); err != nil {
		return 0, false, fmt.Errorf("store: autopilot counts for post %d: %w", id, err)
	}
	return recent, human, nil
}

// autopilotCountsSQL answers whether a person edited (an admin version) or
// decided on post $1, and the autopilot approvals of the last hour.
const autopilotCountsSQL = `SELECT
	EXISTS (SELECT 1 FROM post_versions WHERE post_id = $1 AND origin = $2)
	OR EXISTS (SELECT 1 FROM post_decisions WHERE post_id = $1 AND by <> $3),
	(SELECT count(*) FROM post_decisions WHERE by = $3 AND action = $4 AND at > now() - interval '1 hour')`
