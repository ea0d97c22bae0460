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
// is at 1,000,000) over two years, as GET /api/insights?days=90 does.
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
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Insights(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
