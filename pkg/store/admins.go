package store

import (
	"context"
	"fmt"
)

// Admin is the administrator account.
type Admin struct {
	ID           int64
	Username     string
	PasswordHash string
}

// AdminByUsername returns the admin named username; ErrNotFound when none.
func (s *Store) AdminByUsername(ctx context.Context, username string) (Admin, error) {
	var a Admin
	err := s.pool.QueryRow(ctx, `SELECT id, username, password_hash FROM admins WHERE username = $1`, username).
		Scan(&a.ID, &a.Username, &a.PasswordHash)
	if err != nil {
		return Admin{}, notFound(err, "admin")
	}
	return a, nil
}

// CountAdmins tells how many admin accounts exist.
func (s *Store) CountAdmins(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM admins`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count admins: %w", err)
	}
	return n, nil
}

// PutAdmin creates the admin username, or sets its password hash when it exists.
func (s *Store) PutAdmin(ctx context.Context, username, passwordHash string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO admins (username, password_hash) VALUES ($1, $2)
		ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash`, username, passwordHash); err != nil {
		return fmt.Errorf("store: put admin: %w", err)
	}
	return nil
}

// CreateAdminIfNone creates the admin only when no admin exists at all, and
// tells whether it did; concurrent starts create at most one.
func (s *Store) CreateAdminIfNone(ctx context.Context, username, passwordHash string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO admins (username, password_hash)
		SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM admins) ON CONFLICT (username) DO NOTHING`, username, passwordHash)
	if err != nil {
		return false, fmt.Errorf("store: create admin: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
