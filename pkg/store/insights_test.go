package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The insights cache answers a range while it is fresh, is computed again
// by RefreshInsightsCache for the ranges asked for lately, and forgets the
// others.
func TestInsightsCache(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	now := time.Now().Add(time.Minute).Truncate(time.Microsecond)
	key := store.InsightsKey{Days: 7, TZ: "UTC"}
	if _, ok, err := s.CachedInsights(ctx, key, now.Add(-time.Hour)); err != nil || ok {
		t.Fatalf("an empty cache: ok %v, %v", ok, err)
	}
	if _, err := s.ComputeInsights(ctx, key, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UpsertFound(ctx, post.Post{Platform: "x", Source: post.SourceMention, OriginalPostID: "1", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		freshAfter time.Time
		wantOK     bool
		wantSeen   int64
	}{
		{name: "fresh: the computed figures, without the newer post", freshAfter: now.Add(-time.Minute), wantOK: true, wantSeen: 0},
		{name: "stale", freshAfter: now.Add(time.Minute), wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok, err := s.CachedInsights(ctx, key, tt.freshAfter)
			if err != nil || ok != tt.wantOK {
				t.Fatalf("ok %v, %v; want %v", ok, err, tt.wantOK)
			}
			var seen int64
			for _, f := range c.Fates {
				seen += f.N
			}
			if ok && (seen != tt.wantSeen || !c.To.Equal(now)) {
				t.Errorf("seen %d computed at %s, want %d at %s", seen, c.To, tt.wantSeen, now)
			}
		})
	}
	later := now.Add(time.Minute)
	if n, err := s.RefreshInsightsCache(ctx, now.Add(-time.Hour), later); err != nil || n != 1 {
		t.Fatalf("refresh computed %d, %v; want the one range", n, err)
	}
	c, ok, err := s.CachedInsights(ctx, key, later)
	if err != nil || !ok || len(c.Fates) != 1 || c.Fates[0].N != 1 {
		t.Errorf("after the refresh: %+v %v %v; want the new post counted", c.Fates, ok, err)
	}
	if n, err := s.RefreshInsightsCache(ctx, time.Now().Add(time.Hour), later); err != nil || n != 0 {
		t.Errorf("a range not asked for since: %d computed, %v; want it forgotten", n, err)
	}
	if _, ok, err := s.CachedInsights(ctx, key, now.Add(-time.Hour)); err != nil || ok {
		t.Errorf("a forgotten range is still answered: %v %v", ok, err)
	}
}
