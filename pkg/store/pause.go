package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/settings"
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
	p, err := scanPause(s.pool.QueryRow(ctx, activePauseSQL, now))
	if err != nil {
		return nil, fmt.Errorf("store: pause: %w", err)
	}
	return p, nil
}

// activePauseSQL reads the pause in force at $1 in one round trip (every
// send asks): the expired pause is deleted, and the select, which sees the
// table as it was before the delete, leaves it out.
const activePauseSQL = `
	WITH lifted AS (DELETE FROM ops_pause WHERE until IS NOT NULL AND until <= $1)
	SELECT refusal, reason, since, until FROM ops_pause WHERE until IS NULL OR until > $1`

// scanPause reads a row of activePauseSQL; nil when there is none.
func scanPause(row pgx.Row) (*Pause, error) {
	var p Pause
	err := row.Scan(&p.Refusal, &p.Reason, &p.Since, &p.Until)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// PauseWithSettings is ActivePause and CachedSettings in one round trip:
// what a send asks before it starts. A nil c reads the settings every time.
func (s *Store) PauseWithSettings(ctx context.Context, now time.Time, c *SettingsCache) (*Pause, settings.Settings, error) {
	var b pgx.Batch
	var pause *Pause
	var version int64
	b.Queue(activePauseSQL, now).QueryRow(func(row pgx.Row) error {
		var err error
		pause, err = scanPause(row)
		return err
	})
	b.Queue(settingsVersionSQL).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, settings.Settings{}, fmt.Errorf("store: pause and settings version: %w", err)
	}
	set, err := s.settingsAt(ctx, c, version)
	if err != nil {
		return nil, settings.Settings{}, err
	}
	return pause, set, nil
}

// Resume lifts the account-wide pause; lifted reports whether one was in force.
func (s *Store) Resume(ctx context.Context) (lifted bool, err error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ops_pause`)
	if err != nil {
		return false, fmt.Errorf("store: resume: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}
