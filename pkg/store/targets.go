package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Target is what is known of a targeted account.
type Target struct {
	// UserID is its platform id, "" when not looked up yet or not found.
	UserID string
	// NotFoundAt is when the platform last answered that it does not know
	// the username, zero when it did not (or the settings changed since).
	NotFoundAt time.Time
}

// Target returns what is known of a targeted account; a zero Target when it
// has not been looked up yet.
func (s *Store) Target(ctx context.Context, platform, username string) (Target, error) {
	var (
		t        Target
		notFound *time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT user_id, not_found_at FROM targets WHERE platform = $1 AND username = $2`,
		platform, username).Scan(&t.UserID, &notFound)
	if errors.Is(err, pgx.ErrNoRows) {
		return Target{}, nil
	}
	if err != nil {
		return Target{}, fmt.Errorf("store: target %s: %w", username, err)
	}
	if notFound != nil {
		t.NotFoundAt = notFound.UTC()
	}
	return t, nil
}

// TargetNotFound records that the platform does not know username, at at.
func (s *Store) TargetNotFound(ctx context.Context, platform, username string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO targets (platform, username, user_id, not_found_at) VALUES ($1, $2, '', $3)
		ON CONFLICT (platform, username) DO UPDATE SET user_id = '', not_found_at = excluded.not_found_at`, platform, username, at); err != nil {
		return fmt.Errorf("store: target %s not found: %w", username, err)
	}
	return nil
}

// TargetsNotFound lists the usernames of platform it does not know, in
// name order.
func (s *Store) TargetsNotFound(ctx context.Context, platform string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT username FROM targets WHERE platform = $1 AND not_found_at IS NOT NULL ORDER BY username`, platform)
	if err != nil {
		return nil, fmt.Errorf("store: targets not found: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: targets not found: %w", err)
	}
	return names, nil
}

// PutTarget remembers a targeted account's platform id.
func (s *Store) PutTarget(ctx context.Context, platform, username, userID string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO targets (platform, username, user_id) VALUES ($1, $2, $3)
		ON CONFLICT (platform, username) DO UPDATE SET user_id = excluded.user_id, not_found_at = NULL`, platform, username, userID); err != nil {
		return fmt.Errorf("store: put target %s: %w", username, err)
	}
	return nil
}
