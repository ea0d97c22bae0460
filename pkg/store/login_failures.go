package store

import (
	"context"
	"fmt"
	"time"
)

// RecordLoginFailure notes a failed login for username from address.
func (s *Store) RecordLoginFailure(ctx context.Context, username, address string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO login_failures (username, address, at) VALUES ($1, $2, $3)`,
		username, address, at); err != nil {
		return fmt.Errorf("store: record login failure: %w", err)
	}
	return nil
}

// LoginFailures reports the failures since a moment, for one username and for
// one address, and when the oldest of the larger group happened.
type LoginFailures struct {
	ByUsername int
	ByAddress  int
	// Oldest is the earliest failure counted in the larger of the two groups.
	Oldest time.Time
}

// CountLoginFailures counts the failures since since for username and for address.
func (s *Store) CountLoginFailures(ctx context.Context, username, address string, since time.Time) (LoginFailures, error) {
	var f LoginFailures
	var oldestUser, oldestAddr *time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE username = $1), count(*) FILTER (WHERE address = $2),
		       min(at) FILTER (WHERE username = $1), min(at) FILTER (WHERE address = $2)
		FROM login_failures WHERE at >= $3 AND (username = $1 OR address = $2)`, username, address, since).
		Scan(&f.ByUsername, &f.ByAddress, &oldestUser, &oldestAddr)
	if err != nil {
		return LoginFailures{}, fmt.Errorf("store: count login failures: %w", err)
	}
	if f.ByUsername >= f.ByAddress && oldestUser != nil {
		f.Oldest = *oldestUser
	} else if oldestAddr != nil {
		f.Oldest = *oldestAddr
	}
	return f, nil
}

// ClearLoginFailures forgets the failures of username after a good login.
func (s *Store) ClearLoginFailures(ctx context.Context, username string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE username = $1`, username); err != nil {
		return fmt.Errorf("store: clear login failures: %w", err)
	}
	return nil
}

// DeleteLoginFailuresBefore drops failures older than t.
func (s *Store) DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE at < $1`, t); err != nil {
		return fmt.Errorf("store: delete old login failures: %w", err)
	}
	return nil
}
