package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// Each platform has its own gap: one read well does not end another's,
// and a gap kept from before gaps were per platform ends at the next read.
func TestMetricGapsPerPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO metric_gaps (reason, started_at) VALUES ('older', $1)`, t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		do    func() error
		wantX bool
		wantB bool
		// wantOld is whether the gap from before is still open.
		wantOld bool
	}{
		{name: "x cannot read", do: func() error { return s.OpenMetricGap(ctx, "x", "paused: 402", t0) }, wantX: true, wantOld: true},
		{name: "x again keeps one gap", do: func() error { return s.OpenMetricGap(ctx, "x", "budget: daily", t0.Add(time.Minute)) }, wantX: true, wantOld: true},
		{name: "bluesky cannot read", do: func() error { return s.OpenMetricGap(ctx, "bluesky", "rate limit", t0) }, wantX: true, wantB: true, wantOld: true},
		{name: "bluesky reads", do: func() error { return s.CloseMetricGap(ctx, "bluesky", t0.Add(2*time.Minute)) }, wantX: true},
		{name: "x reads", do: func() error { return s.CloseMetricGap(ctx, "x", t0.Add(3*time.Minute)) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		in, err := s.Insights(ctx, store.InsightsQuery{From: t0.Add(-2 * time.Hour), To: time.Now().Add(time.Hour), TZ: "UTC"})
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]int{}
		for _, g := range in.Gaps {
			if g.EndedAt == nil {
				open[g.Platform]++
			}
		}
		if (open["x"] == 1) != st.wantX || (open["bluesky"] == 1) != st.wantB || (open[""] == 1) != st.wantOld || open["x"] > 1 {
			t.Errorf("%s: open gaps by platform %v; want x %v, bluesky %v, older %v", st.name, open, st.wantX, st.wantB, st.wantOld)
		}
	}
}
