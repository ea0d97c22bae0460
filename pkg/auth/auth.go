// Package auth signs the administrator in and out: argon2id passwords, random
// bearer tokens kept only as hashes, and throttling of repeated failures.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"infernal/pkg/store"
)

// Throttling limits: failures counted over Window; beyond MaxPerUsername for
// one name or MaxPerAddress from one address, logins are refused until the
// oldest failure leaves the window.
const (
	Window         = 15 * time.Minute
	MaxPerUsername = 5
	MaxPerAddress  = 20
)

// ErrInvalidCredentials is the one answer to any failed login.
var ErrInvalidCredentials = errors.New("auth: invalid credentials")

// ErrUnauthenticated means a token is missing, unknown, expired or revoked.
var ErrUnauthenticated = errors.New("authentication required")

// ThrottledError refuses a login while too many recent ones failed.
type ThrottledError struct {
	RetryAfter time.Duration
}

// Error says how long to wait.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed logins; try again in %d seconds", int(e.RetryAfter.Seconds()+0.999))
}

// Store is what auth keeps in the database.
type Store interface {
	AdminByUsername(ctx context.Context, username string) (store.Admin, error)
	CountAdmins(ctx context.Context) (int, error)
	PutAdmin(ctx context.Context, username, passwordHash string) error
	CreateAdminIfNone(ctx context.Context, username, passwordHash string) (bool, error)
	CreateSession(ctx context.Context, adminID int64, tokenHash []byte, expiresAt time.Time) error
	SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (store.Session, error)
	RevokeSession(ctx context.Context, tokenHash []byte) error
	DeleteSessionsBefore(ctx context.Context, t time.Time) error
	DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error
	RecordLoginFailure(ctx context.Context, username, address string, at time.Time) error
	CountLoginFailures(ctx context.Context, username, address string, since time.Time) (store.LoginFailures, error)
	ClearLoginFailures(ctx context.Context, username string) error
}

// Service signs the administrator in and checks tokens.
type Service struct {
	store Store
	ttl   time.Duration
	now   func() time.Time
	// dummyHash is checked when the username is unknown, so that a wrong name
	// takes as long as a wrong password.
	dummyHash string
}

// NewService returns a Service whose tokens live for ttl.
func NewService(s Store, ttl time.Duration, now func() time.Time) (*Service, error) {
	dummy, err := HashPassword(RandomPassword())
	if err != nil {
		return nil, err
	}
	return &Service{store: s, ttl: ttl, now: now, dummyHash: dummy}, nil
}

// Bootstrap makes sure the administrator exists. With a password given, the
// admin username gets that password. Without one, when no admin exists yet, a
// random password is generated and printed once in the log.
func (s *Service) Bootstrap(ctx context.Context, username, password string, log *slog.Logger) error {
	if password != "" {
		hash, err := HashPassword(password)
		if err != nil {
			return err
		}
		return s.store.PutAdmin(ctx, username, hash)
	}
	n, err := s.store.CountAdmins(ctx)
	if err != nil || n > 0 {
		return err
	}
	generated := RandomPassword()
	hash, err := HashPassword(generated)
	if err != nil {
		return err
	}
	created, err := s.store.CreateAdminIfNone(ctx, username, hash)
	if err != nil {
		return err
	}
	if created {
		log.Warn("created the administrator with a generated password; it is shown only this once",
			"username", username, "password", generated)
	}
	return nil
}

// Login checks a username and password from address and returns a new token.
// Every failure is ErrInvalidCredentials, or a *ThrottledError while too many
// recent logins for that name or from that address failed.
func (s *Service) Login(ctx context.Context, username, password, address string) (token string, expiresAt time.Time, err error) {
	now := s.now()
	f, err := s.store.CountLoginFailures(ctx, username, address, now.Add(-Window))
	if err != nil {
		return "", time.Time{}, err
	}
	if f.ByUsername >= MaxPerUsername || f.ByAddress >= MaxPerAddress {
		wait := f.Oldest.Add(Window).Sub(now)
		if wait < time.Second {
			wait = time.Second
		}
		return "", time.Time{}, &ThrottledError{RetryAfter: wait}
	}
	admin, err := s.store.AdminByUsername(ctx, username)
	hash := admin.PasswordHash
	if errors.Is(err, store.ErrNotFound) {
		hash = s.dummyHash
	} else if err != nil {
		return "", time.Time{}, err
	}
	ok, err := CheckPassword(hash, password)
	if err != nil {
		return "", time.Time{}, err
	}
	if !ok || admin.ID == 0 {
		if err := s.store.RecordLoginFailure(ctx, username, address, now); err != nil {
			return "", time.Time{}, err
		}
		return "", time.Time{}, ErrInvalidCredentials
	}
	if err := s.store.ClearLoginFailures(ctx, username); err != nil {
		return "", time.Time{}, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", time.Time{}, fmt.Errorf("auth: token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(raw)
	expiresAt = now.Add(s.ttl)
	if err := s.store.CreateSession(ctx, admin.ID, HashToken(token), expiresAt); err != nil {
		return "", time.Time{}, err
	}
	return token, expiresAt, nil
}

// Authenticate checks a bearer token: ErrUnauthenticated unless it is live.
func (s *Service) Authenticate(ctx context.Context, token string) error {
	if token == "" {
		return ErrUnauthenticated
	}
	_, err := s.store.SessionByTokenHash(ctx, HashToken(token), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return ErrUnauthenticated
	}
	return err
}

// Logout revokes a token.
func (s *Service) Logout(ctx context.Context, token string) error {
	return s.store.RevokeSession(ctx, HashToken(token))
}

// Prune forgets what can no longer matter: sessions expired a day ago or
// more, and failed logins older than the throttling window.
func (s *Service) Prune(ctx context.Context) error {
	now := s.now()
	if err := s.store.DeleteSessionsBefore(ctx, now.Add(-24*time.Hour)); err != nil {
		return err
	}
	return s.store.DeleteLoginFailuresBefore(ctx, now.Add(-Window))
}

// PruneEvery runs Prune every interval until ctx ends, logging failures.
func (s *Service) PruneEvery(ctx context.Context, interval time.Duration, log *slog.Logger) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if err := s.Prune(ctx); err != nil && ctx.Err() == nil {
			log.Warn("pruning old sessions failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// HashToken is the SHA-256 under which a token is stored; the token itself
// is 256 random bits, so no slow hash is needed.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
