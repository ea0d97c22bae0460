// Package store is the only place that speaks SQL. It keeps every entity in
// PostgreSQL, the source of truth, through a pgx pool, and applies the
// embedded migrations at start.
package store

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"infernal/pkg/post"
)

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrNotFound means no row has the given key.
	ErrNotFound = errors.New("not found")
	// ErrConflict means the row is not in a state that allows the change.
	// It is the domain's post.ErrConflict, so a *post.StateError is one.
	ErrConflict = post.ErrConflict
	// ErrInvalid means the change would store content the domain forbids.
	// It is the domain's post.ErrInvalid, so a *post.LengthError is one.
	ErrInvalid = post.ErrInvalid
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store reads and writes every entity.
type Store struct {
	pool *retryPool
	// public serves the public read path (home statistics, memorable quotes,
	// the latest response, the public log). It is pool itself unless
	// WithPublicPool gave it connections of its own.
	public *retryPool
	// lexemes caches the statistics the retrieval queries read (see
	// lexemeStats).
	lexemes *lexemeCache
}

// DefaultStatementTimeout is how long PostgreSQL lets one statement of the
// product run before cancelling it, unless WithStatementTimeout says
// otherwise: the backstop that stops work nobody waits for any more.
const DefaultStatementTimeout = 30 * time.Second

// publicStatementTimeout bounds each statement of the public read path:
// its pages are cached, so a statement that runs longer is already a fault.
const publicStatementTimeout = 5 * time.Second

// options are the settings Open takes through Option values.
type options struct {
	maxConns         int
	publicConns      int
	statementTimeout time.Duration
	failoverWait     time.Duration
	// noIdlePing stops pgxpool pinging connections idle over a second
	// before handing them out, so that the failover tests meet dead
	// connections whatever the machine's load.
	noIdlePing bool
}

// Option tunes Open.
type Option func(*options)

// WithMaxConns bounds the connections the Store holds in all (its pools
// together); zero keeps the URL's pool_max_conns or pgx's default.
func WithMaxConns(n int) Option { return func(o *options) { o.maxConns = n } }

// WithPublicPool gives the public read path a pool of its own of n
// connections, taken out of WithMaxConns, so that a flood of public
// requests waits for those n and never for the connections of the admin
// API, the login and the health checks.
func WithPublicPool(n int) Option { return func(o *options) { o.publicConns = n } }

// WithStatementTimeout sets PostgreSQL's statement_timeout for the Store's
// connections (DefaultStatementTimeout when unset).
func WithStatementTimeout(d time.Duration) Option {
	return func(o *options) { o.statementTimeout = d }
}

// Open connects to databaseURL and brings the schema up to date. Migrations
// run under a Postgres advisory lock, so several replicas may start at once,
// on connections of their own without a statement timeout (an index built
// on a large table may take minutes).
func Open(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	o := options{statementTimeout: DefaultStatementTimeout, failoverWait: failoverWait}
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: parse DATABASE_URL: %w", err)
	}
	if err := migrateWith(ctx, cfg.Copy()); err != nil {
		return nil, err
	}
	if o.maxConns > 0 {
		cfg.MaxConns = int32(o.maxConns)
	}
	if o.publicConns > 0 && int32(o.publicConns) >= cfg.MaxConns {
		return nil, fmt.Errorf("store: a public pool of %d connections leaves none of %d for the rest", o.publicConns, cfg.MaxConns)
	}
	publicCfg := cfg.Copy()
	cfg.MaxConns -= int32(o.publicConns)
	setStatementTimeout(cfg, o.statementTimeout)
	if o.noIdlePing {
		cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	s := &Store{pool: &retryPool{Pool: pool, wait: o.failoverWait}, lexemes: &lexemeCache{}}
	s.public = s.pool
	if o.publicConns > 0 {
		publicCfg.MaxConns = int32(o.publicConns)
		setStatementTimeout(publicCfg, min(o.statementTimeout, publicStatementTimeout))
		public, err := pgxpool.NewWithConfig(ctx, publicCfg)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("store: connect public pool: %w", err)
		}
		s.public = &retryPool{Pool: public, wait: o.failoverWait}
	}
	return s, nil
}

// setStatementTimeout makes every connection of cfg start with statement_timeout d.
func setStatementTimeout(cfg *pgxpool.Config, d time.Duration) {
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(d.Milliseconds(), 10)
}

// migrateWith waits for the server and applies the migrations over a pool
// of its own, closed afterwards.
func migrateWith(ctx context.Context, cfg *pgxpool.Config) error {
	// The session lock holds one connection while goose applies on another.
	cfg.MaxConns, cfg.MinConns = 2, 0
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("store: connect: %w", err)
	}
	defer pool.Close()
	if err := waitForServer(ctx, pool); err != nil {
		return err
	}
	return migrate(ctx, pool)
}

// waitForServer pings until PostgreSQL answers, for up to 30 seconds, so that
// processes started together with the database wait for it instead of dying.
func waitForServer(ctx context.Context, pool *pgxpool.Pool) error {
	deadline := time.Now().Add(30 * time.Second)
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		err := pool.Ping(ctx)
		if err == nil {
			return nil
		}
		if !IsUnavailable(err) || time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("store: ping: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("store: ping: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("store: migration lock: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Close releases every connection.
func (s *Store) Close() {
	if s.public != s.pool {
		s.public.Close()
	}
	s.pool.Close()
}

// Ping checks that PostgreSQL answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// inTx runs fn in a transaction, committed when fn returns nil, and run
// again when a failover broke it before the commit (retryPool.inTx).
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.pool.inTx(ctx, pgx.TxOptions{}, fn)
}

// notFound turns pgx's "no rows" into ErrNotFound, naming what was looked for.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

// SchemaDigest identifies the embedded migrations, so that a prepared
// database can be reused exactly as long as the schema is unchanged.
func SchemaDigest() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations, "migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := migrations.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("store: schema digest: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// IsUnavailable reports whether err means PostgreSQL could not be reached,
// rather than that it refused the request.
func IsUnavailable(err error) bool {
	// No server took the statement, the session died under it, or no
	// answer came in time: a failover or an outage, not an answer.
	return neverRan(err) || connLost(err) || pgconn.Timeout(err)
}
