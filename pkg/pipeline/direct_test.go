package pipeline_test

import (
	"context"
	"testing"

	"infernal/pkg/insights"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/tasks"
)

// A Mastodon direct mention, while mastodon.reply_to_direct is off, is
// kept in the scan ledger as skipped with reason direct_message, never
// recorded as a post; the other visibilities are recorded to be drafted.
func TestDirectMentionIsSkippedInTheLedger(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	direct := srv.Post("dave", "@infernal just us", "", "direct")
	private := srv.Post("erin", "@infernal followers only", "", "private")
	public := srv.Post("alice", "@infernal everyone", "", "public")
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token})
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
}
