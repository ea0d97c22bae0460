package insights_test

import (
	"testing"

	"infernal/pkg/insights"
	"infernal/pkg/post"
)

func TestFateOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status            post.Status
		skip, err         string
		approved          bool
		wantFate, wantWhy string
	}{
		{status: post.StatusDrafting, wantFate: insights.FateWaiting},
		{status: post.StatusSkipped, skip: `opt-out: "stop"`, wantFate: insights.FateSkipped, wantWhy: "opt-out"},
		{status: post.StatusSkipped, skip: "cap: conversation (1 of 1)", wantFate: insights.FateSkipped, wantWhy: "cap"},
		{status: post.StatusSkipped, skip: "retweet", wantFate: insights.FateSkipped, wantWhy: "retweet"},
		{status: post.StatusPending, wantFate: insights.FatePending},
		{status: post.StatusApproved, approved: true, wantFate: insights.FateSending},
		{status: post.StatusAwaitingManual, approved: true, wantFate: insights.FateAwaitingHandPost},
		{status: post.StatusPosted, approved: true, wantFate: insights.FatePosted},
		{status: post.StatusRejected, wantFate: insights.FateRejected},
		{status: post.StatusFailed, err: "refused", wantFate: insights.FateSkipped, wantWhy: insights.ReasonDraftFailed},
		{status: post.StatusFailed, err: "403", approved: true, wantFate: insights.FateFailed, wantWhy: "403"},
		{status: "teleported", wantFate: insights.FateWaiting, wantWhy: "teleported"},
	}
	for _, tt := range tests {
		fate, why := insights.FateOf(tt.status, tt.skip, tt.err, tt.approved)
		if fate != tt.wantFate || why != tt.wantWhy {
			t.Errorf("FateOf(%s, %q, %q, %v) = %s, %q; want %s, %q", tt.status, tt.skip, tt.err, tt.approved, fate, why, tt.wantFate, tt.wantWhy)
		}
	}
}

// Whatever mix of fates is added, the funnel's sums agree, and each post
// counts once.
func TestFunnelSumsAgree(t *testing.T) {
	t.Parallel()
	fates := []string{insights.FateWaiting, insights.FateSkipped, insights.FatePending, insights.FateRejected,
		insights.FateSending, insights.FatePosted, insights.FateAwaitingHandPost, insights.FateFailed, "unknown"}
	f := insights.NewFunnel()
	var total int64
	for i, fate := range fates {
		n := int64(i*7 + 1)
		f.Add(fate, "reason"+fate, n, n/2, n/3)
		total += n
		if !f.Check() {
			t.Fatalf("after %s: sums disagree: %+v", fate, f)
		}
	}
	if f.Seen != total {
		t.Errorf("seen %d, want %d", f.Seen, total)
	}
	var zero insights.Funnel
	zero.Add(insights.FateSkipped, "retweet", 2, 0, 0)
	if !zero.Check() || zero.Skipped["retweet"] != 2 {
		t.Errorf("a zero funnel: %+v", zero)
	}
	bad := insights.NewFunnel()
	bad.Seen = 1
	if bad.Check() {
		t.Error("a funnel whose sums disagree passes Check")
	}
}
