package store

import "github.com/jackc/pgx/v5/pgxpool"

// Pool returns the connection pool, for the sandbox platform alone: it
// models an outside system and keeps its own tables (sandbox_posts,
// sandbox_clock) in the same database. The product's data is only ever
// read and written through the Store's methods.
func (s *Store) Pool() *pgxpool.Pool { return s.pool.Pool }
