package pipeline_test

import (
	"context"
	"testing"

	"infernal/pkg/insights"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// A Mastodon direct mention, while platforms.mastodon.reply_to_direct is off, is
// kept in the scan ledger as skipped with reason direct_message, never
// recorded as a post; the other visibilities are recorded to be drafted.
// Switched on in the settings, the next scan records a direct mention,
// without a restart.
func TestDirectMentionIsSkippedInTheLedger(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	direct := srv.Post("dave", "@infernal just us", "", "direct")
	private := srv.Post("erin", "@infernal followers only", "", "private")
	public := srv.Post("alice", "@infernal everyone", "", "public")
	// Wired as the worker wires it: the admin's setting, read at each scan.
	var cache store.SettingsCache
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token,
		ReplyToDirect: func(ctx context.Context) (bool, error) {
			set, err := e.store.CachedSettings(ctx, &cache)
			return set.Platforms.On("mastodon", "reply_to_direct"), err
		}})
	if err != nil {
		t.Fatal(err)
	}
	sc := e.pipe.Scanner
	sc.Platform, sc.Self, sc.HandPosting = c, pipeline.NewSelf(c), nil
	if err := sc.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, fate, reason string
		recorded         bool
	}{
		{direct, insights.FateSkipped, insights.DropDirectMessage, false},
		{private, insights.FateWaiting, "", true},
		{public, insights.FateWaiting, "", true},
	}
	for _, tt := range tests {
		f, err := e.store.LookupPost(ctx, "mastodon", tt.id)
		if err != nil {
			t.Fatalf("post %s: %v", tt.id, err)
		}
		if f.Status != tt.fate || (tt.reason != "" && insights.ReasonCode(f.Reason) != tt.reason) || (f.PostID != 0) != tt.recorded {
			t.Errorf("post %s: fate %q reason %q (row %d), want %q %q (recorded %v)", tt.id, f.Status, f.Reason, f.PostID, tt.fate, tt.reason, tt.recorded)
		}
	}
	set, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.Platforms["mastodon"]["reply_to_direct"] = true
	if err := e.store.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	later := srv.Post("frank", "@infernal between us", "", "direct")
	if err := sc.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if f, err := e.store.LookupPost(ctx, "mastodon", later); err != nil || f.Status != insights.FateWaiting || f.PostID == 0 {
		t.Errorf("direct mention once switched on: %+v %v, want recorded to be drafted", f, err)
	}
}
