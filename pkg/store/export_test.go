package store

import "github.com/jackc/pgx/v5/pgxpool"

// PublicPool exposes the public read path's pool to the tests.
func (s *Store) PublicPool() *pgxpool.Pool { return s.public }
