package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DecisionEvent is one step of a draft, for the weekly learning series:
// Kind is "draft" (a first draft written), "approved" (approved as
// written), "edited" (approved after an edit, with the writer's Draft and
// the Final text) or "rejected".
type DecisionEvent struct {
	Kind  string
	At    time.Time
	Draft string
	Final string
}

// learningEventsSQL reads the steps of the posts the scans returned from $1
// until $2, of source $3 ("" for every one but the profile's), as
// Insights reads its range (posts_inserted_idx).
const learningEventsSQL = `
WITH r AS MATERIALIZED (
	SELECT p.id, p.status, p.drafted_at, p.approved_at, p.rejected_at, p.edited, p.proposed_response
	FROM posts p
	WHERE p.source <> 'profile' AND p.inserted_at >= $1 AND p.inserted_at < $2 AND ($3 = '' OR p.source = $3)
)
SELECT 'draft' AS kind, drafted_at AS at, '' AS draft, '' AS final FROM r WHERE drafted_at IS NOT NULL
UNION ALL
SELECT 'approved', approved_at, '', '' FROM r WHERE approved_at IS NOT NULL AND NOT edited AND status <> 'rejected'
UNION ALL
SELECT 'edited', r.approved_at,
	coalesce((SELECT v.text FROM post_versions v WHERE v.post_id = r.id AND v.origin <> 'admin' ORDER BY v.id DESC LIMIT 1), ''),
	r.proposed_response
FROM r WHERE r.approved_at IS NOT NULL AND r.edited AND r.status <> 'rejected'
UNION ALL
SELECT 'rejected', rejected_at, '', '' FROM r WHERE status = 'rejected' AND rejected_at IS NOT NULL`

// DecisionEvents returns the drafts and decisions of the posts the scans
// returned from from until to, of source ("" for every one but the
// profile's), for the weekly learning series.
func (s *Store) DecisionEvents(ctx context.Context, from, to time.Time, source string) ([]DecisionEvent, error) {
	rows, err := s.pool.Query(ctx, learningEventsSQL, from, to, source)
	if err != nil {
		return nil, fmt.Errorf("store: decision events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DecisionEvent, error) {
		var e DecisionEvent
		err := row.Scan(&e.Kind, &e.At, &e.Draft, &e.Final)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: decision events: %w", err)
	}
	return out, nil
}
