package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// ActivePause answers the pause in force, and lifts (deletes) one whose
// Until has passed: asked again as of an earlier time, it is gone.
func TestActivePauseLiftsExpired(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	tests := []struct {
		name       string
		set        *store.Pause
		wantActive bool
		// wantBefore is whether the pause is still there as of an hour before now.
		wantBefore bool
	}{
		{name: "none"},
		{name: "until later", set: &store.Pause{Refusal: "rate", Reason: "429", Until: &later}, wantActive: true, wantBefore: true},
		{name: "until passed", set: &store.Pause{Refusal: "rate", Reason: "429", Until: &earlier}},
		{name: "no end", set: &store.Pause{Refusal: "suspended", Reason: "403"}, wantActive: true, wantBefore: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.New(t)
			ctx := context.Background()
			if tt.set != nil {
				if err := s.SetPause(ctx, *tt.set); err != nil {
					t.Fatal(err)
				}
			}
			p, err := s.ActivePause(ctx, now)
			if err != nil || (p != nil) != tt.wantActive {
				t.Fatalf("ActivePause = %+v, %v; want one: %v", p, err, tt.wantActive)
			}
			if p != nil && p.Reason != tt.set.Reason {
				t.Errorf("reason = %q, want %q", p.Reason, tt.set.Reason)
			}
			p, err = s.ActivePause(ctx, now.Add(-2*time.Hour))
			if err != nil || (p != nil) != tt.wantBefore {
				t.Fatalf("ActivePause an hour before = %+v, %v; want one: %v", p, err, tt.wantBefore)
			}
		})
	}
}

// A timeline pause begins once and is kept by a second refusal while in
// force; it pauses that timeline of that platform only, until it lapses,
// when a new refusal begins it again; the list leaves out (and deletes)
// the lapsed ones.
func TestTimelinePauses(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	const d = 6 * time.Hour
	search := store.TimelinePause{Platform: "x", Timeline: "search", Reason: "the platform rejects the request", Since: now}
	type pauseAt struct {
		p         store.TimelinePause
		wantBegan bool
	}
	type check struct {
		platform, timeline string
		at                 time.Time
		want               bool
	}
	tests := []struct {
		name   string
		pauses []pauseAt
		// checks are asked after the list, in time order.
		checks []check
		// listAt is when TimelinePauses is asked; want is its answer.
		listAt time.Time
		want   []store.TimelinePause
	}{
		{name: "none", checks: []check{{"x", "search", now, false}}, listAt: now, want: []store.TimelinePause{}},
		{
			name: "kept while in force",
			pauses: []pauseAt{
				{search, true},
				{store.TimelinePause{Platform: "x", Timeline: "search", Reason: "again", Since: now.Add(time.Hour)}, false},
			},
			checks: []check{
				{"x", "search", now.Add(time.Minute), true},
				{"x", "search", now.Add(d - time.Second), true},
				{"x", "search", now.Add(d), false},
				{"x", "mentions", now.Add(time.Minute), false},
				{"bluesky", "search", now.Add(time.Minute), false},
			},
			listAt: now.Add(time.Hour),
			want:   []store.TimelinePause{{Platform: "x", Timeline: "search", Reason: search.Reason, Since: now, Until: now.Add(d)}},
		},
		{
			name: "begun again once lapsed",
			pauses: []pauseAt{
				{search, true},
				{store.TimelinePause{Platform: "x", Timeline: "search", Reason: "again", Since: now.Add(d)}, true},
			},
			checks: []check{{"x", "search", now.Add(d + time.Hour), true}, {"x", "search", now.Add(2 * d), false}},
			listAt: now.Add(d),
			want:   []store.TimelinePause{{Platform: "x", Timeline: "search", Reason: "again", Since: now.Add(d), Until: now.Add(2 * d)}},
		},
		{
			name: "listed by platform and timeline, the lapsed left out",
			pauses: []pauseAt{
				{store.TimelinePause{Platform: "x", Timeline: "search", Reason: "r", Since: now.Add(-d)}, true},
				{store.TimelinePause{Platform: "x", Timeline: "mentions", Reason: "r", Since: now}, true},
				{store.TimelinePause{Platform: "bluesky", Timeline: "search", Reason: "r", Since: now}, true},
			},
			listAt: now.Add(time.Minute),
			want: []store.TimelinePause{
				{Platform: "bluesky", Timeline: "search", Reason: "r", Since: now, Until: now.Add(d)},
				{Platform: "x", Timeline: "mentions", Reason: "r", Since: now, Until: now.Add(d)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.New(t)
			ctx := context.Background()
			for _, pa := range tt.pauses {
				began, err := s.PauseTimeline(ctx, pa.p, d)
				if err != nil || began != pa.wantBegan {
					t.Fatalf("PauseTimeline(%+v) began %v, %v; want %v", pa.p, began, err, pa.wantBegan)
				}
			}
			got, err := s.TimelinePauses(ctx, tt.listAt)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("TimelinePauses = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Platform != w.Platform || g.Timeline != w.Timeline || g.Reason != w.Reason || !g.Since.Equal(w.Since) || !g.Until.Equal(w.Until) {
					t.Errorf("TimelinePauses[%d] = %+v, want %+v", i, g, w)
				}
			}
			// In time order: asked after a pause lapsed, the store deletes it.
			for _, c := range tt.checks {
				paused, err := s.TimelinePaused(ctx, c.platform, c.timeline, c.at)
				if err != nil || paused != c.want {
					t.Errorf("TimelinePaused(%s, %s, %v) = %v, %v; want %v", c.platform, c.timeline, c.at, paused, err, c.want)
				}
				account, tl, err := s.ScanPauses(ctx, c.platform, c.timeline, c.at)
				if err != nil || account != nil || (tl != nil) != c.want {
					t.Errorf("ScanPauses(%s, %s, %v) = %+v, %+v, %v; want a timeline pause: %v", c.platform, c.timeline, c.at, account, tl, err, c.want)
				}
			}
		})
	}
}

// ScanPauses answers the account-wide pause with the timeline's, as
// ActivePause and TimelinePaused do.
func TestScanPauses(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := s.PauseTimeline(ctx, store.TimelinePause{Platform: "bluesky", Timeline: "mentions", Reason: "400", Since: now}, time.Hour); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		platform, timeline        string
		accountPaused             bool
		wantAccount, wantTimeline bool
	}{
		{"bluesky", "mentions", false, false, true},
		{"bluesky", "search", false, false, false},
		{"bluesky", "mentions", true, true, true},
		{"bluesky", "search", true, true, false},
	}
	for _, tt := range tests {
		if tt.accountPaused {
			if err := s.SetPause(ctx, store.Pause{Refusal: "out_of_credits", Reason: "credits"}); err != nil {
				t.Fatal(err)
			}
		}
		account, tl, err := s.ScanPauses(ctx, tt.platform, tt.timeline, now)
		if err != nil || (account != nil) != tt.wantAccount || (tl != nil) != tt.wantTimeline {
			t.Errorf("ScanPauses(%s, %s) = %+v, %+v, %v; want account %v, timeline %v",
				tt.platform, tt.timeline, account, tl, err, tt.wantAccount, tt.wantTimeline)
		}
	}
}
