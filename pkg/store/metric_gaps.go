package store

import (
	"context"
	"fmt"
	"time"
)

// MetricGap is a period when the replies' metrics could not be read.
type MetricGap struct {
	// Reason says why: a budget pause, an account pause, a rate limit.
	Reason    string    `json:"reason"`
	StartedAt time.Time `json:"started_at"`
	// EndedAt is nil while the gap lasts.
	EndedAt *time.Time `json:"ended_at"`
}

// OpenMetricGap records that the metrics could not be read at at, for
// reason: it opens a gap, or keeps the one open (with its start and the
// newer reason).
func (s *Store) OpenMetricGap(ctx context.Context, reason string, at time.Time) error {
	// metric_gaps_open_idx holds at most one open gap.
	_, err := s.pool.Exec(ctx, `
		INSERT INTO metric_gaps (reason, started_at) VALUES ($1, $2)
		ON CONFLICT ((true)) WHERE ended_at IS NULL DO UPDATE SET reason = excluded.reason`, reason, at)
	if err != nil {
		return fmt.Errorf("store: open metric gap: %w", err)
	}
	return nil
}

// CloseMetricGap ends the open gap, if any, at at: the metrics were read.
func (s *Store) CloseMetricGap(ctx context.Context, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE metric_gaps SET ended_at = greatest($1, started_at) WHERE ended_at IS NULL`, at); err != nil {
		return fmt.Errorf("store: close metric gap: %w", err)
	}
	return nil
}
