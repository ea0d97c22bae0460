package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TargetUserID returns the platform id of a targeted account, "" when it has
// not been looked up yet.
func (s *Store) TargetUserID(ctx context.Context, platform, username string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT user_id FROM targets WHERE platform = $1 AND username = $2`, platform, username).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: target %s: %w", username, err)
	}
	return id, nil
}

// PutTarget remembers a targeted account's platform id.
func (s *Store) PutTarget(ctx context.Context, platform, username, userID string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO targets (platform, username, user_id) VALUES ($1, $2, $3)
		ON CONFLICT (platform, username) DO UPDATE SET user_id = excluded.user_id`, platform, username, userID); err != nil {
		return fmt.Errorf("store: put target %s: %w", username, err)
	}
	return nil
}
