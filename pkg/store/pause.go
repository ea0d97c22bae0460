package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pause is an account-wide stop of scanning and sending, after a refusal
// that concerns the whole account (402, usage cap, suspension).
type Pause struct {
	// Refusal names the refusal (platform.Refusal) that paused the account.
	Refusal string
	// Reason says why, in words for the administrator.
	Reason string
	// Since is when the pause began.
	Since time.Time
	// Until is when it lifts by itself; nil when only the admin lifts it.
	Until *time.Time
}

// SetPause pauses scanning and sending; a pause already in force keeps its
// start and takes the newer reason.
func (s *Store) SetPause(ctx context.Context, p Pause) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO ops_pause (id, refusal, reason, until) VALUES (true, $1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET refusal = excluded.refusal, reason = excluded.reason, until = excluded.until`,
		p.Refusal, p.Reason, p.Until)
	if err != nil {
		return fmt.Errorf("store: set pause: %w", err)
	}
	return nil
}

// ActivePause returns the pause in force at now, nil when none; a pause
// whose Until has passed is lifted on the way.
func (s *Store) ActivePause(ctx context.Context, now time.Time) (*Pause, error) {
	// One round trip (every send asks): the expired pause is deleted, and
	// the select, which sees the table as it was before the delete, leaves it out.
	var p Pause
	err := s.pool.QueryRow(ctx, `
		WITH lifted AS (DELETE FROM ops_pause WHERE until IS NOT NULL AND until <= $1)
		SELECT refusal, reason, since, until FROM ops_pause WHERE until IS NULL OR until > $1`, now).
		Scan(&p.Refusal, &p.Reason, &p.Since, &p.Until)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: pause: %w", err)
	}
	return &p, nil
}

// Resume lifts the account-wide pause; lifted reports whether one was in force.
func (s *Store) Resume(ctx context.Context) (lifted bool, err error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ops_pause`)
	if err != nil {
		return false, fmt.Errorf("store: resume: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}
