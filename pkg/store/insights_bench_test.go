package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// BenchmarkInsights90Days reads the insights of 90 days from a generated
// history of INSIGHTS_POSTS posts (100,000 unless set; make bench's figure
// is at 1,000,000) over two years, as GET /api/insights?days=90 does:
// computed, and from the insights cache.
func BenchmarkInsights90Days(b *testing.B) {
	posts := 100_000
	if v := os.Getenv("INSIGHTS_POSTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("INSIGHTS_POSTS=%q: want a positive integer", v)
		}
		posts = n
	}
	s := storetest.New(b)
	ctx := context.Background()
	if err := storetest.Generate(ctx, s.Pool(), posts, posts/10); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	q := store.InsightsQuery{From: now.Add(-90 * 24 * time.Hour), To: now, TZ: "Europe/Paris"}
	in, err := s.Insights(ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	if len(in.Fates) == 0 || len(in.Days) < 90 {
		b.Fatalf("insights of the generated history: %d fates, %d days", len(in.Fates), len(in.Days))
	}
	// computed: what a request pays when the cache holds no fresh answer
	// (and the worker pays at each metrics refresh).
	b.Run("computed", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Insights(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	// cached: what the admin's requests pay while the worker keeps the range computed.
	key := store.InsightsKey{Days: 90, TZ: q.TZ}
	if _, err := s.ComputeInsights(ctx, key, now); err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := s.CachedInsights(ctx, key, now.Add(-time.Minute)); err != nil || !ok {
				b.Fatalf("cached insights: ok %v, %v", ok, err)
			}
		}
	})
}
