package store

import (
	"context"
	"fmt"
	"time"
)

// MetricGap is a period when the replies' metrics could not be read.
type MetricGap struct {
	// Platform names the platform whose metrics could not be read; empty
	// for a gap recorded before gaps were kept per platform.
	Platform string `json:"platform"`
	// Reason says why: a budget pause, an account pause, a rate limit.
	Reason    string    `json:"reason"`
	StartedAt time.Time `json:"started_at"`
	// EndedAt is nil while the gap lasts.
	EndedAt *time.Time `json:"ended_at"`
}

// OpenMetricGap records that the metrics of platform could not be read at
// at, for reason: it opens a gap, or keeps the platform's open one (with
// its start and the newer reason).
func (s *Store) OpenMetricGap(ctx context.Context, platform, reason string, at time.Time) error {
	// metric_gaps_open_idx holds at most one open gap per platform.
	_, err := s.pool.Exec(ctx, `
		INSERT INTO metric_gaps (platform, reason, started_at) VALUES ($1, $2, $3)
		ON CONFLICT (platform) WHERE ended_at IS NULL DO UPDATE SET reason = excluded.reason`, platform, reason, at)
	if err != nil {
		return fmt.Errorf("store: open metric gap: %w", err)
	}
	return nil
}

// CloseMetricGap ends platform's open gap, if any, at at: its metrics were
// read. An open gap recorded before gaps were kept per platform ends too.
func (s *Store) CloseMetricGap(ctx context.Context, platform string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE metric_gaps SET ended_at = greatest($1, started_at)
		WHERE ended_at IS NULL AND platform IN ($2, '')`, at, platform); err != nil {
		return fmt.Errorf("store: close metric gap: %w", err)
	}
	return nil
}
