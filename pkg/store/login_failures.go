package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LoginLimits are the most failed logins counted since Since that a new
// attempt may follow: for one username from one address, and from one address.
type LoginLimits struct {
	Since      time.Time
	PerPair    int
	PerAddress int
}

// LoginAttempt is the outcome of ReserveLoginAttempt.
type LoginAttempt struct {
	// ID is the reserved attempt's row; 0 when a limit refused the attempt.
	ID int64
	// ByUsername counts the earlier failures for the username from every
	// address since the limits' Since.
	ByUsername int
	// RetryAt, when refused, is when the limit that refused it lets one more
	// attempt through.
	RetryAt time.Time
}

// ReserveLoginAttempt decides whether username may try a password from
// address at at, and if so records the attempt as a failure before the
// password is checked, so that concurrent attempts count each other. The
// count and the insert run under a lock on the address, which every limit
// involves; ClearLoginFailures takes the attempt back once the password
// proves right.
func (s *Store) ReserveLoginAttempt(ctx context.Context, username, address string, at time.Time, lim LoginLimits) (LoginAttempt, error) {
	var a LoginAttempt
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('infernal:login:' || $1, 0))`, address); err != nil {
			return err
		}
		var byPair, byAddress int
		var oldestPair, oldestAddress *time.Time
		if err := tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE address = $2 AND username = $1), count(*) FILTER (WHERE address = $2),
			       count(*) FILTER (WHERE username = $1),
			       min(at) FILTER (WHERE address = $2 AND username = $1), min(at) FILTER (WHERE address = $2)
			FROM login_failures WHERE at >= $3 AND (username = $1 OR address = $2)`, username, address, lim.Since).
			Scan(&byPair, &byAddress, &a.ByUsername, &oldestPair, &oldestAddress); err != nil {
			return err
		}
		window := at.Sub(lim.Since)
		if byPair >= lim.PerPair && oldestPair != nil {
			a.RetryAt = oldestPair.Add(window)
		}
		if byAddress >= lim.PerAddress && oldestAddress != nil && oldestAddress.Add(window).After(a.RetryAt) {
			a.RetryAt = oldestAddress.Add(window)
		}
		if !a.RetryAt.IsZero() {
			return nil
		}
		return tx.QueryRow(ctx, `INSERT INTO login_failures (username, address, at) VALUES ($1, $2, $3) RETURNING id`,
			username, address, at).Scan(&a.ID)
	})
	if err != nil {
		return LoginAttempt{}, fmt.Errorf("store: reserve login attempt: %w", err)
	}
	return a, nil
}

// ReleaseLoginAttempt takes back a reserved attempt whose password was never
// checked.
func (s *Store) ReleaseLoginAttempt(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: release login attempt: %w", err)
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

// ClearLoginFailures forgets the failures of username from address after a
// good login from there; other addresses' failures for the name still count.
func (s *Store) ClearLoginFailures(ctx context.Context, username, address string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE username = $1 AND address = $2`, username, address); err != nil {
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
