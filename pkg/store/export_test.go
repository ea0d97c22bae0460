package store

import "github.com/jackc/pgx/v5/pgxpool"

// PublicPool exposes the public read path's pool to the tests.
func (s *Store) PublicPool() *pgxpool.Pool { return s.public.Pool }

// Retries counts the statements and transactions the Store ran again
// because a failover broke them.
func (s *Store) Retries() int64 { return s.pool.retries.Load() }

// WithoutIdlePing makes the Store use its pooled connections without
// pinging the idle ones first, as if each had just been used.
func WithoutIdlePing() Option { return func(o *options) { o.noIdlePing = true } }

// InsightsSQL is the statement Insights runs, for the plan the tests print.
const InsightsSQL = insightsSQL
