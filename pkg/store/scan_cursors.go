package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Cursor returns the newest id a scan has seen on a platform, "" when none.
func (s *Store) Cursor(ctx context.Context, platform, name string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM scan_cursors WHERE platform = $1 AND name = $2`, platform, name).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: cursor %s/%s: %w", platform, name, err)
	}
	return v, nil
}

// SetCursor keeps the newest id a scan has seen.
func (s *Store) SetCursor(ctx context.Context, platform, name, value string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO scan_cursors (platform, name, value) VALUES ($1, $2, $3)
		ON CONFLICT (platform, name) DO UPDATE SET value = excluded.value, updated_at = now()`, platform, name, value); err != nil {
		return fmt.Errorf("store: set cursor %s/%s: %w", platform, name, err)
	}
	return nil
}
