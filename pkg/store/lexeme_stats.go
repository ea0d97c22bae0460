package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// LexemeStatsAge is how long the statistics of a text-search column's
// commonest lexemes are kept before they are read again. PostgreSQL renews
// them when it analyzes the table (autovacuum, after many rows change), so
// a minute-old copy is as good as a fresh one.
const LexemeStatsAge = time.Minute

// lexemeStatsSQL reads what PostgreSQL's statistics (pg_stats) say of the
// most common lexemes of a tsvector column $2 of table $1 in the current
// schema: each lexeme and the rows estimated to hold it. Reading pg_stats
// costs about 7 ms of CPU (the view checks privileges and the elements are
// parsed from their text form): once a minute, not once per draft.
const lexemeStatsSQL = `
	SELECT u.lexeme, (u.freq * greatest(r.reltuples, 0))::float8 AS rows
	FROM pg_stats s
	JOIN pg_class r ON r.relname = s.tablename AND r.relkind = 'r'
	CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(lexeme, freq)
	WHERE s.schemaname = current_schema() AND s.tablename = $1 AND s.attname = $2
		AND r.relnamespace = current_schema()::regnamespace
		-- most_common_elem_freqs ends with three figures of its own (the least and greatest
		-- frequency and that of nulls), which unnest pairs with no lexeme.
		AND u.lexeme IS NOT NULL`

// lexemeStats are a column's commonest lexemes and the rows estimated to
// hold each, as two arrays that a query unnests together.
type lexemeStats struct {
	lexemes []string
	rows    []float64
	read    time.Time
}

// lexemeCache keeps each column's lexemeStats for LexemeStatsAge.
type lexemeCache struct {
	mu    sync.Mutex
	stats map[string]lexemeStats
}

// lexemeStats returns the statistics of the commonest lexemes of column of
// table, read again when older than LexemeStatsAge; none before the table
// was first analyzed, and then read again at every call.
func (s *Store) lexemeStats(ctx context.Context, table, column string) (lexemeStats, error) {
	key := table + "." + column
	s.lexemes.mu.Lock()
	st, ok := s.lexemes.stats[key]
	s.lexemes.mu.Unlock()
	if ok && time.Since(st.read) < LexemeStatsAge {
		return st, nil
	}
	rows, err := s.pool.Query(ctx, lexemeStatsSQL, table, column)
	if err != nil {
		return lexemeStats{}, fmt.Errorf("store: lexeme statistics of %s: %w", key, err)
	}
	defer rows.Close()
	st = lexemeStats{lexemes: []string{}, rows: []float64{}, read: time.Now()}
	for rows.Next() {
		var lexeme string
		var n float64
		if err := rows.Scan(&lexeme, &n); err != nil {
			return lexemeStats{}, fmt.Errorf("store: lexeme statistics of %s: %w", key, err)
		}
		st.lexemes, st.rows = append(st.lexemes, lexeme), append(st.rows, n)
	}
	if err := rows.Err(); err != nil {
		return lexemeStats{}, fmt.Errorf("store: lexeme statistics of %s: %w", key, err)
	}
	if len(st.lexemes) == 0 {
		// Not analyzed yet: read again next time, so that the first
		// statistics count at once (the reading costs little until then).
		return st, nil
	}
	s.lexemes.mu.Lock()
	if s.lexemes.stats == nil {
		s.lexemes.stats = map[string]lexemeStats{}
	}
	s.lexemes.stats[key] = st
	s.lexemes.mu.Unlock()
	return st, nil
}
