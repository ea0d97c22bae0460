package pipeline_test

import (
	"context"
	"testing"

	"infernal/pkg/settings"
	"infernal/pkg/tasks"
)

// The scans read targets and topics from the settings at each run: an edit
// takes effect at the next scan, a new query has a cursor of its own, and
// no topics or no targets make a scan that reads nothing.
func TestScansFollowTheSettings(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	put := func(topics, targets []string) {
		t.Helper()
		s, err := settings.Settings{SearchTopics: topics, TargetUsernames: targets}.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.PutSettings(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	scan := func() {
		t.Helper()
		if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
			t.Fatal(err)
		}
		if err := e.pipe.Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
			t.Fatal(err)
		}
	}
	cursor := func(name string) string {
		t.Helper()
		c, err := e.store.Cursor(ctx, "sandbox", name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name         string
		topics       []string
		targets      []string
		wantSearches int32
		wantCursor   string
	}{
		{name: "no topics, no targets: nothing read", wantSearches: 0},
		{name: "topics: one search", topics: []string{"monday"}, wantSearches: 1, wantCursor: "search:monday -is:retweet"},
		{name: "edited topics: the new query", topics: []string{"monday", "cold brew"}, targets: []string{"G1"}, wantSearches: 1,
			wantCursor: `search:(monday OR "cold brew") -is:retweet`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			put(tt.topics, tt.targets)
			before := e.plat.searches.Load()
			scan()
			if got := e.plat.searches.Load() - before; got != tt.wantSearches {
				t.Errorf("%d searches, want %d", got, tt.wantSearches)
			}
			if tt.wantCursor != "" && cursor(tt.wantCursor) == "" {
				t.Errorf("no cursor %q after the scan", tt.wantCursor)
			}
		})
	}
	if cursor("targeted:g1") == "" {
		t.Error("the target added in the settings was not scanned")
	}
}
