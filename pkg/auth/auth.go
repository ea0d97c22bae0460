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
	"net/netip"
	"runtime"
	"time"

	"infernal/pkg/store"
)

// Throttling limits: failures are counted over Window. Beyond MaxPerUsername
// for one name from one address, or MaxPerAddress from one address, logins
// from there are refused until the oldest failure leaves the window. An
// address is an IPv4 address or an IPv6 /64. Failures for one name from
// every address never lock it out: beyond SlowAfter, each attempt for that
// name waits a little longer, up to MaxDelay, and the log says so.
const (
	Window         = 15 * time.Minute
	MaxPerUsername = 5
	MaxPerAddress  = 20
	SlowAfter      = 5
	MaxDelay       = 2 * time.Second
)

// ErrInvalidCredentials is the one answer to any failed login.
var ErrInvalidCredentials = errors.New("auth: invalid credentials")

// ErrUnauthenticated means a token is missing, unknown, expired or revoked.
var ErrUnauthenticated = errors.New("authentication required")

// ThrottledError refuses a login while too many recent ones failed, or while
// too many passwords are being checked at once.
type ThrottledError struct {
	RetryAfter time.Duration
	// Reason says why; empty means too many recent failures.
	Reason string
}

// Error says why and how long to wait.
func (e *ThrottledError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "too many failed logins"
	}
	return fmt.Sprintf("%s; try again in %d seconds", reason, int(e.RetryAfter.Seconds()+0.999))
}

// Store is what auth keeps in the database.
type Store interface {
	AdminByUsername(ctx context.Context, username string) (store.Admin, error)
	SetAdmin(ctx context.Context, username, passwordHash string, onlyIfUnusable bool) (bool, error)
	CreateSession(ctx context.Context, adminID int64, tokenHash []byte, expiresAt time.Time) error
	SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (store.Session, error)
	RevokeSession(ctx context.Context, tokenHash []byte) error
	RevokeAdminSessions(ctx context.Context, adminID int64) error
	DeleteSessionsBefore(ctx context.Context, t time.Time) error
	DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error
	ReserveLoginAttempt(ctx context.Context, username, address string, at time.Time, lim store.LoginLimits) (store.LoginAttempt, error)
	ReleaseLoginAttempt(ctx context.Context, id int64) error
	ClearLoginFailures(ctx context.Context, username, address string) error
}

// Service signs the administrator in and checks tokens.
type Service struct {
	store Store
	ttl   time.Duration
	now   func() time.Time
	log   *slog.Logger
	// cost is what new password hashes cost.
	cost HashCost
	// dummyHash is checked when the username is unknown, so that a wrong name
	// takes as long as a wrong password.
	dummyHash string
	// checks holds one token per password check under way: each argon2id
	// check takes 19 MiB, so their number bounds the memory logins use.
	checks chan struct{}
	// check is CheckPassword; tests count the checks through it.
	check func(hash, password string) (bool, error)
	// sleep waits out the progressive delay; tests record it instead.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option adjusts a Service made by NewService.
type Option func(*Service)

// WithLogger sets where the Service reports what an operator must know, such
// as many failed logins for one name; the default is slog.Default().
func WithLogger(log *slog.Logger) Option {
	return func(s *Service) { s.log = log }
}

// WithConcurrentChecks bounds how many passwords are checked at once; the
// default is twice GOMAXPROCS. Logins beyond it get a *ThrottledError.
func WithConcurrentChecks(n int) Option {
	return func(s *Service) {
		if n > 0 {
			s.checks = make(chan struct{}, n)
		}
	}
}

// WithHashCost sets what the passwords the Service hashes cost; the
// default, DefaultHashCost, is the one a deployment uses. Tests of other
// packages lower it, so that each test's administrator costs a millisecond
// instead of a fifth of a second under the race detector. A cost argon2id
// refuses leaves the default.
func WithHashCost(c HashCost) Option {
	return func(s *Service) {
		if c.valid() {
			s.cost = c
		}
	}
}

// NewService returns a Service whose tokens live for ttl.
func NewService(s Store, ttl time.Duration, now func() time.Time, opts ...Option) (*Service, error) {
	svc := &Service{store: s, ttl: ttl, now: now, cost: DefaultHashCost(), log: slog.Default(),
		checks: make(chan struct{}, 2*runtime.GOMAXPROCS(0)), check: CheckPassword, sleep: sleepCtx}
	for _, o := range opts {
		o(svc)
	}
	// Hashed at the Service's cost, so that an unknown name is checked as
	// slowly as a known one.
	dummy, err := svc.cost.Hash(RandomPassword())
	if err != nil {
		return nil, err
	}
	svc.dummyHash = dummy
	return svc, nil
}

// Bootstrap makes username the one enabled administrator, in one
// transaction: other admins (an earlier ADMIN_USERNAME) are disabled and
// their sessions revoked. With a password given, the admin gets it, and when
// it differs from the stored one every session of the admin is revoked.
// Without one, when the admin does not exist or was disabled, a random
// password is set and returned, for the caller to show once outside the log;
// otherwise the returned password is empty.
func (s *Service) Bootstrap(ctx context.Context, username, password string, log *slog.Logger) (generated string, err error) {
	if password != "" {
		hash, err := s.keepOrHash(ctx, username, password)
		if err != nil {
			return "", err
		}
		changed, err := s.store.SetAdmin(ctx, username, hash, false)
		if err != nil {
			return "", err
		}
		if changed {
			log.Info("set the administrator's password; sessions made with an earlier one are revoked", "username", username)
		}
		return "", nil
	}
	generated = RandomPassword()
	hash, err := s.cost.Hash(generated)
	if err != nil {
		return "", err
	}
	written, err := s.store.SetAdmin(ctx, username, hash, true)
	if err != nil || !written {
		return "", err
	}
	return generated, nil
}

// keepOrHash returns the admin's stored hash when it already matches
// password, so that a restart with the same ADMIN_PASSWORD revokes nothing,
// and a new hash otherwise.
func (s *Service) keepOrHash(ctx context.Context, username, password string) (string, error) {
	a, err := s.store.AdminByUsername(ctx, username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	if err == nil {
		// A malformed stored hash is simply replaced, hence the error is not fatal.
		if ok, err := CheckPassword(a.PasswordHash, password); err == nil && ok {
			return a.PasswordHash, nil
		}
	}
	return s.cost.Hash(password)
}

// Login checks a username and password from address and returns a new token.
// Every failure is ErrInvalidCredentials, or a *ThrottledError while too many
// recent logins for that name from that address, or from that address,
// failed, or while too many passwords are being checked at once.
func (s *Service) Login(ctx context.Context, username, password, address string) (token string, expiresAt time.Time, err error) {
	now := s.now()
	bucket := throttleAddress(address)
	attempt, err := s.store.ReserveLoginAttempt(ctx, username, bucket, now,
		store.LoginLimits{Since: now.Add(-Window), PerPair: MaxPerUsername, PerAddress: MaxPerAddress})
	if err != nil {
		return "", time.Time{}, err
	}
	if attempt.ID == 0 {
		return "", time.Time{}, &ThrottledError{RetryAfter: max(attempt.RetryAt.Sub(now), time.Second)}
	}
	// From here the attempt counts as a failure unless taken back.
	release := func(cause error) error {
		// The attempt is taken back even when the client has gone away.
		if err := s.store.ReleaseLoginAttempt(context.WithoutCancel(ctx), attempt.ID); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}
	if attempt.ByUsername >= SlowAfter {
		if attempt.ByUsername%SlowAfter == 0 {
			s.log.Warn("many failed logins for one name from several addresses; logins for it are slowed down",
				"username", username, "failures", attempt.ByUsername, "window", Window.String(), "address", bucket)
		}
		if err := s.sleep(ctx, slowDown(attempt.ByUsername)); err != nil {
			return "", time.Time{}, release(err)
		}
	}
	select {
	case s.checks <- struct{}{}:
	default:
		return "", time.Time{}, release(&ThrottledError{RetryAfter: time.Second, Reason: "too many logins in progress"})
	}
	admin, ok, err := s.checkCredentials(ctx, username, password)
	<-s.checks
	if err != nil {
		return "", time.Time{}, release(err)
	}
	if !ok {
		return "", time.Time{}, ErrInvalidCredentials
	}
	if err := s.store.ClearLoginFailures(ctx, username, bucket); err != nil {
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

// checkCredentials looks the admin up and checks the password; an unknown
// name is checked against a dummy hash, so it takes as long as a known one.
func (s *Service) checkCredentials(ctx context.Context, username, password string) (store.Admin, bool, error) {
	admin, err := s.store.AdminByUsername(ctx, username)
	hash := admin.PasswordHash
	if errors.Is(err, store.ErrNotFound) {
		hash = s.dummyHash
	} else if err != nil {
		return store.Admin{}, false, err
	}
	ok, err := s.check(hash, password)
	if err != nil {
		return store.Admin{}, false, err
	}
	return admin, ok && admin.ID != 0, nil
}

// slowDown is the wait before checking a password for a name that failed
// failures times from everywhere: doubling from 100 ms at SlowAfter, at most
// MaxDelay.
func slowDown(failures int) time.Duration {
	d := 100 * time.Millisecond
	for i := SlowAfter; i < failures && d < MaxDelay; i++ {
		d *= 2
	}
	return min(d, MaxDelay)
}

// sleepCtx waits d, or less when ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// throttleAddress is the bucket an address is throttled in: an IPv4 address
// itself, and an IPv6 address's /64, which one subscriber usually holds
// whole. Anything else is its own bucket.
func throttleAddress(address string) string {
	a, err := netip.ParseAddr(address)
	if err != nil {
		return address
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
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

// LogoutAll revokes every session of the admin whose live token this is
// ("log out everywhere").
func (s *Service) LogoutAll(ctx context.Context, token string) error {
	session, err := s.store.SessionByTokenHash(ctx, HashToken(token), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return ErrUnauthenticated
	}
	if err != nil {
		return err
	}
	return s.store.RevokeAdminSessions(ctx, session.AdminID)
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
