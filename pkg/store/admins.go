package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Admin is the administrator account.
type Admin struct {
	ID           int64
	Username     string
	PasswordHash string
}

// AdminByUsername returns the enabled admin named username; ErrNotFound when
// there is none, or when that account was disabled.
func (s *Store) AdminByUsername(ctx context.Context, username string) (Admin, error) {
	var a Admin
	err := s.pool.QueryRow(ctx, `SELECT id, username, password_hash FROM admins
		WHERE username = $1 AND disabled_at IS NULL`, username).
		Scan(&a.ID, &a.Username, &a.PasswordHash)
	if err != nil {
		return Admin{}, notFound(err, "admin")
	}
	return a, nil
}

// SetAdmin makes username the one enabled administrator, in one transaction:
// the account is created, or enabled and given passwordHash; every other
// admin is disabled; and every session of an admin whose hash changed or who
// was disabled is revoked. With onlyIfUnusable, an account that exists and is
// enabled keeps its hash. It tells whether passwordHash was written.
// Concurrent calls are serialized, so concurrent starts write at most once.
func (s *Store) SetAdmin(ctx context.Context, username, passwordHash string, onlyIfUnusable bool) (bool, error) {
	written := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// One bootstrap at a time: a transaction-scoped lock on a fixed key.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('infernal:set-admin', 0))`); err != nil {
			return err
		}
		var id int64
		var hash string
		var disabled bool
		err := tx.QueryRow(ctx, `SELECT id, password_hash, disabled_at IS NOT NULL FROM admins WHERE username = $1`, username).
			Scan(&id, &hash, &disabled)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if err := tx.QueryRow(ctx, `INSERT INTO admins (username, password_hash) VALUES ($1, $2) RETURNING id`,
				username, passwordHash).Scan(&id); err != nil {
				return err
			}
			written = true
		case err != nil:
			return err
		case onlyIfUnusable && !disabled:
		case hash != passwordHash || disabled:
			if _, err := tx.Exec(ctx, `UPDATE admins SET password_hash = $2, disabled_at = NULL WHERE id = $1`, id, passwordHash); err != nil {
				return err
			}
			// Whoever held the old password may hold a token too.
			if _, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = now() WHERE admin_id = $1 AND revoked_at IS NULL`, id); err != nil {
				return err
			}
			written = true
		}
		if _, err := tx.Exec(ctx, `UPDATE admins SET disabled_at = now() WHERE id <> $1 AND disabled_at IS NULL`, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sessions SET revoked_at = now() WHERE admin_id <> $1 AND revoked_at IS NULL`, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: set admin: %w", err)
	}
	return written, nil
}
