package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostedSince returns the platform ids of the persona's responses posted at
// or after since, with the row ids they belong to.
func (s *Store) PostedSince(ctx context.Context, platform string, since time.Time) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT response_post_id, id FROM posts
		WHERE platform = $1 AND status = 'posted' AND posted_at >= $2 AND response_post_id IS NOT NULL`, platform, since)
	if err != nil {
		return nil, fmt.Errorf("store: posted since: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var rid string
		var id int64
		if err := rows.Scan(&rid, &id); err != nil {
			return nil, fmt.Errorf("store: posted since: %w", err)
		}
		out[rid] = id
	}
	return out, rows.Err()
}

// Metrics are public counters of a response.
type Metrics struct {
	Likes, Retweets, Replies int
}

// SetResponseMetrics stores the latest public counters of posted responses, by row id.
func (s *Store) SetResponseMetrics(ctx context.Context, metrics map[int64]Metrics) error {
	batch := &pgx.Batch{}
	for id, m := range metrics {
		batch.Queue(`UPDATE posts SET response_likes = $2, response_retweets = $3, response_replies = $4 WHERE id = $1`,
			id, m.Likes, m.Retweets, m.Replies)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: set response metrics: %w", err)
	}
	return nil
}
