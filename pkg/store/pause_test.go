package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// ActivePause answers the pause in force, and lifts (deletes) one whose
// Until has passed: asked again as of an earlier time, it is gone.
func TestActivePauseLiftsExpired(t *testing.T) {
	t.Parallel()
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
		{name: "until later", set: &store.Pause{Platform: "x", Refusal: "rate", Reason: "429", Until: &later}, wantActive: true, wantBefore: true},
		{name: "until passed", set: &store.Pause{Platform: "x", Refusal: "rate", Reason: "429", Until: &earlier}},
		{name: "no end", set: &store.Pause{Platform: "x", Refusal: "suspended", Reason: "403"}, wantActive: true, wantBefore: true},
		{name: "every platform until passed", set: &store.Pause{Refusal: "operator", Reason: "op", Until: &earlier}},
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
			p, err := s.ActivePause(ctx, "x", now)
			if err != nil || (p != nil) != tt.wantActive {
				t.Fatalf("ActivePause = %+v, %v; want one: %v", p, err, tt.wantActive)
			}
			if p != nil && (p.Reason != tt.set.Reason || p.Platform != tt.set.Platform) {
				t.Errorf("pause = %+v, want %+v", p, tt.set)
			}
			p, err = s.ActivePause(ctx, "x", now.Add(-2*time.Hour))
			if err != nil || (p != nil) != tt.wantBefore {
				t.Fatalf("ActivePause an hour before = %+v, %v; want one: %v", p, err, tt.wantBefore)
			}
		})
	}
}

// A platform's pause stops that platform only; the every-platform pause
// (the operator's) stops them all; of both, the longer is answered; Resume
// lifts them all.
func TestPauseByPlatform(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Second)
	soon, later := now.Add(time.Hour), now.Add(2*time.Hour)
	xCap := store.Pause{Platform: "x", Refusal: "usage_capped", Reason: "cap", Until: &soon}
	xSuspended := store.Pause{Platform: "x", Refusal: "suspended", Reason: "suspended"}
	operator := store.Pause{Refusal: "operator", Reason: "paused from Telegram"}
	operatorSoon := store.Pause{Refusal: "operator", Reason: "paused for an hour", Until: &soon}
	blueskyLater := store.Pause{Platform: "bluesky", Refusal: "usage_capped", Reason: "cap", Until: &later}
	tests := []struct {
		name string
		set  []store.Pause
		// want is the reason of the pause answered per platform, "" for none.
		want map[string]string
		// wantAll lists the platforms of ActivePauses, in order.
		wantAll []string
	}{
		{name: "none", want: map[string]string{"x": "", "bluesky": ""}, wantAll: []string{}},
		{name: "x only", set: []store.Pause{xCap},
			want: map[string]string{"x": "cap", "bluesky": ""}, wantAll: []string{"x"}},
		{name: "operator pauses every platform", set: []store.Pause{operator},
			want: map[string]string{"x": "paused from Telegram", "bluesky": "paused from Telegram"}, wantAll: []string{""}},
		{name: "the longer of a platform's and every platform's", set: []store.Pause{xSuspended, operatorSoon, blueskyLater},
			want:    map[string]string{"x": "suspended", "bluesky": "cap", "sandbox": "paused for an hour"},
			wantAll: []string{"", "bluesky", "x"}},
		{name: "a second pause of a platform replaces the first", set: []store.Pause{xCap, xSuspended},
			want: map[string]string{"x": "suspended", "bluesky": ""}, wantAll: []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.New(t)
			ctx := context.Background()
			for _, p := range tt.set {
				if err := s.SetPause(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			for platform, want := range tt.want {
				p, err := s.ActivePause(ctx, platform, now)
				if err != nil {
					t.Fatal(err)
				}
				got := ""
				if p != nil {
					got = p.Reason
				}
				if got != want {
					t.Errorf("ActivePause(%q) = %+v, want reason %q", platform, p, want)
				}
				pw, _, err := s.PauseWithSettings(ctx, platform, now, nil)
				if err != nil || !reflect.DeepEqual(pw, p) {
					t.Errorf("PauseWithSettings(%q) = %+v, %v; want %+v as ActivePause", platform, pw, err, p)
				}
			}
			all, err := s.ActivePauses(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			platforms := []string{}
			for _, p := range all {
				platforms = append(platforms, p.Platform)
			}
			if !reflect.DeepEqual(platforms, tt.wantAll) {
				t.Errorf("ActivePauses platforms = %q, want %q", platforms, tt.wantAll)
			}
			lifted, err := s.Resume(ctx)
			if err != nil || lifted != (len(tt.set) > 0) {
				t.Errorf("Resume = %v, %v; want %v", lifted, err, len(tt.set) > 0)
			}
			if all, err := s.ActivePauses(ctx, now); err != nil || len(all) != 0 {
				t.Errorf("after Resume: %+v, %v", all, err)
			}
		})
	}
}

// A timeline pause begins once and is kept by a second refusal while in
// force; it pauses that timeline of that platform only, until it lapses,
// when a new refusal begins it again; the list leaves out (and deletes)
// the lapsed ones.
func TestTimelinePauses(t *testing.T) {
	t.Parallel()
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

// ScanPauses answers the account pause that applies to the platform with
// the timeline's, as ActivePause and TimelinePaused do.
func TestScanPauses(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	if err := s.SetPause(ctx, store.Pause{Platform: "x", Refusal: "out_of_credits", Reason: "credits"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PauseTimeline(ctx, store.TimelinePause{Platform: "bluesky", Timeline: "mentions", Reason: "400", Since: now}, time.Hour); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		platform, timeline        string
		wantAccount, wantTimeline bool
	}{
		{"x", "mentions", true, false},
		{"bluesky", "mentions", false, true},
		{"bluesky", "search", false, false},
	}
	for _, tt := range tests {
		account, tl, err := s.ScanPauses(ctx, tt.platform, tt.timeline, now)
		if err != nil || (account != nil) != tt.wantAccount || (tl != nil) != tt.wantTimeline {
			t.Errorf("ScanPauses(%s, %s) = %+v, %+v, %v; want account %v, timeline %v",
				tt.platform, tt.timeline, account, tl, err, tt.wantAccount, tt.wantTimeline)
		}
	}
}
