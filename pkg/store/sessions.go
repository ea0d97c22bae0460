package store

import (
	"context"
	"fmt"
	"time"
)

// Session is a signed-in administrator's bearer token, known only by its hash.
type Session struct {
	ID        int64
	AdminID   int64
	ExpiresAt time.Time
}

// CreateSession stores a new token hash for admin, valid until expiresAt.
func (s *Store) CreateSession(ctx context.Context, adminID int64, tokenHash []byte, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO sessions (admin_id, token_hash, expires_at) VALUES ($1, $2, $3)`,
		adminID, tokenHash, expiresAt); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// SessionByTokenHash returns the live session of a token hash: ErrNotFound
// when it is unknown, revoked, expired at now, or its admin was disabled.
func (s *Store) SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (Session, error) {
	var ss Session
	err := s.pool.QueryRow(ctx, `SELECT s.id, s.admin_id, s.expires_at FROM sessions s JOIN admins a ON a.id = s.admin_id
		WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND a.disabled_at IS NULL`, tokenHash, now).
		Scan(&ss.ID, &ss.AdminID, &ss.ExpiresAt)
	if err != nil {
		return Session{}, notFound(err, "session")
	}
	return ss, nil
}

// RevokeSession ends the session of a token hash; revoking twice is harmless.
func (s *Store) RevokeSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL`, tokenHash); err != nil {
		return fmt.Errorf("store: revoke session: %w", err)
	}
	return nil
}

// RevokeAdminSessions ends every live session of one admin ("log out
// everywhere").
func (s *Store) RevokeAdminSessions(ctx context.Context, adminID int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET revoked_at = now() WHERE admin_id = $1 AND revoked_at IS NULL`, adminID); err != nil {
		return fmt.Errorf("store: revoke admin sessions: %w", err)
	}
	return nil
}

// DeleteSessionsBefore removes sessions that expired before t.
func (s *Store) DeleteSessionsBefore(ctx context.Context, t time.Time) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at < $1`, t); err != nil {
		return fmt.Errorf("store: delete old sessions: %w", err)
	}
	return nil
}
