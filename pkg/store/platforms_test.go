package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// onPlatform makes a post of platform, found and in drafting.
func onPlatform(t *testing.T, s *store.Store, platform, id string, src post.Source) int64 {
	t.Helper()
	p := found(platform+id, src)
	p.Platform = platform
	rowID, created, err := s.UpsertFound(context.Background(), p)
	if err != nil || !created {
		t.Fatalf("UpsertFound: %v created=%v", err, created)
	}
	return rowID
}

// twoPlatforms fills s with posts of X and Bluesky: pending mentions (two
// on X, one on Bluesky), a skipped mention on Bluesky, a failed
// conversation post on X, and a rejected one and a posted one on Bluesky.
func twoPlatforms(t *testing.T, s *store.Store) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	ids := map[string]int64{}
	for _, k := range []struct {
		name, platform string
		src            post.Source
	}{
		{"x1", post.XPlatform, post.SourceMention}, {"b1", post.BlueskyPlatform, post.SourceMention},
		{"x2", post.XPlatform, post.SourceMention}, {"b2", post.BlueskyPlatform, post.SourceMention},
		{"x3", post.XPlatform, post.SourceConversation}, {"b3", post.BlueskyPlatform, post.SourceConversation},
		{"b4", post.BlueskyPlatform, post.SourceMention},
	} {
		ids[k.name] = onPlatform(t, s, k.platform, k.name, k.src)
	}
	for _, name := range []string{"x1", "b1", "x2", "b3", "b4"} {
		if err := s.SaveDraft(ctx, ids[name], store.Draft{Response: "burn " + name, Category: "wrath"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SkipDraft(ctx, ids["b2"], store.Draft{Response: "meh"}, "low score"); err != nil {
		t.Fatal(err)
	}
	if err := s.FailDraft(ctx, ids["x3"], "the writer failed"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RejectWith(ctx, ids["b3"], nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveWith(ctx, ids["b4"], store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BeginSend(ctx, ids["b4"]); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkPosted(ctx, ids["b4"], "reply-b4", time.Now()); err != nil {
		t.Fatal(err)
	}
	return ids
}

func namesOf(ids map[string]int64, posts []post.Post) []string {
	var out []string
	for _, p := range posts {
		for name, id := range ids {
			if id == p.ID {
				out = append(out, name)
			}
		}
	}
	return out
}

// Each admin list keeps the posts of the platform asked for, counted
// alone; "" is every platform, and an unknown platform is refused.
func TestListsFilterByPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	ids := twoPlatforms(t, s)
	tests := []struct {
		name      string
		platform  string
		mentions  []string
		skipped   []string
		wantError bool
	}{
		{name: "every platform", platform: "", mentions: []string{"x2", "b1", "x1"}, skipped: []string{"x3", "b2"}},
		{name: "x", platform: post.XPlatform, mentions: []string{"x2", "x1"}, skipped: []string{"x3"}},
		{name: "bluesky", platform: post.BlueskyPlatform, mentions: []string{"b1"}, skipped: []string{"b2"}},
		{name: "sandbox has none", platform: post.SandboxPlatform},
		{name: "unknown platform", platform: "myspace", wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := s.ListPendingOn(ctx, post.SourceMention, tt.platform, post.SortDate, 1, 10)
			if tt.wantError {
				if !errors.Is(err, store.ErrInvalid) {
					t.Errorf("ListPendingOn(%q) = %v, want ErrInvalid", tt.platform, err)
				}
				if _, _, err := s.ListSkippedOn(ctx, tt.platform, post.SortDate, 1, 10); !errors.Is(err, store.ErrInvalid) {
					t.Errorf("ListSkippedOn(%q) = %v, want ErrInvalid", tt.platform, err)
				}
				if _, err := s.ListQueuedOn(ctx, tt.platform, 1, 10, guard.SendCaps{}); !errors.Is(err, store.ErrInvalid) {
					t.Errorf("ListQueuedOn(%q) = %v, want ErrInvalid", tt.platform, err)
				}
				return
			}
			if got := namesOf(ids, list); err != nil || !slices.Equal(got, tt.mentions) || total != len(tt.mentions) {
				t.Errorf("ListPendingOn(mention, %q) = %v total %d, %v; want %v", tt.platform, got, total, err, tt.mentions)
			}
			list, total, err = s.ListSkippedOn(ctx, tt.platform, post.SortDate, 1, 10)
			if got := namesOf(ids, list); err != nil || !slices.Equal(got, tt.skipped) || total != len(tt.skipped) {
				t.Errorf("ListSkippedOn(%q) = %v total %d, %v; want %v", tt.platform, got, total, err, tt.skipped)
			}
		})
	}
	// Pages of one platform count that platform's posts alone.
	list, total, err := s.ListPendingOn(ctx, post.SourceMention, post.XPlatform, post.SortDate, 2, 1)
	if got := namesOf(ids, list); err != nil || !slices.Equal(got, []string{"x1"}) || total != 2 {
		t.Errorf("second page on x = %v total %d, %v; want [x1] total 2", got, total, err)
	}
}

// The approvals waiting to send are filtered by platform; a page of one
// platform counts the approvals ahead and the sends of that platform only,
// whose send caps are its own.
func TestListQueuedOnPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	ids := twoPlatforms(t, s)
	sent := found("sent-on-x", post.SourceMention)
	sent.Platform = post.XPlatform
	sentID, _, err := s.UpsertFound(ctx, sent)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDraft(ctx, sentID, store.Draft{Response: "gone out", Category: "wrath"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveWith(ctx, sentID, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BeginSend(ctx, sentID); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x1", "b1", "x2"} {
		if _, err := s.ApproveWith(ctx, ids[name], store.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		platform   string
		page, size int
		want       []string
		wantAheads []int
		wantTotal  int
		wantSent   int
	}{
		{platform: "", page: 1, size: 10, want: []string{"x1", "b1", "x2"}, wantAheads: []int{0, 1, 2}, wantTotal: 3, wantSent: 2},
		{platform: post.XPlatform, page: 1, size: 10, want: []string{"x1", "x2"}, wantAheads: []int{0, 1}, wantTotal: 2, wantSent: 1},
		{platform: post.XPlatform, page: 2, size: 1, want: []string{"x2"}, wantAheads: []int{1}, wantTotal: 2, wantSent: 1},
		{platform: post.BlueskyPlatform, page: 1, size: 10, want: []string{"b1"}, wantAheads: []int{0}, wantTotal: 1, wantSent: 1},
		{platform: post.SandboxPlatform, page: 1, size: 10, want: nil, wantAheads: []int{}, wantTotal: 0},
	}
	for _, tt := range tests {
		q, err := s.ListQueuedOn(ctx, tt.platform, tt.page, tt.size, guard.SendCaps{PerDay: 10})
		if err != nil {
			t.Fatalf("ListQueuedOn(%q): %v", tt.platform, err)
		}
		if len(q.Queue.Sent) != tt.wantSent {
			t.Errorf("ListQueuedOn(%q) counts %d sends, want %d", tt.platform, len(q.Queue.Sent), tt.wantSent)
		}
		if got := namesOf(ids, q.Posts); !slices.Equal(got, tt.want) || !slices.Equal(q.Aheads, tt.wantAheads) || q.Total != tt.wantTotal {
			t.Errorf("ListQueuedOn(%q, page %d) = %v aheads %v total %d; want %v aheads %v total %d",
				tt.platform, tt.page, got, q.Aheads, q.Total, tt.want, tt.wantAheads, tt.wantTotal)
		}
	}
}

// The home figures keep their totals over every platform and break them
// down by platform, from counts that match a recount of the posts.
func TestHomeStatsByPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	twoPlatforms(t, s)
	var drift int
	err := s.Pool().QueryRow(ctx, `
		SELECT count(*) FROM (SELECT platform, source, status, count(*) AS n FROM posts GROUP BY 1, 2, 3) r
		FULL JOIN (SELECT * FROM platform_counts WHERE n <> 0) c USING (platform, source, status)
		WHERE r.n IS DISTINCT FROM c.n`).Scan(&drift)
	if err != nil || drift != 0 {
		t.Fatalf("platform_counts: %d keys differ from a recount, %v", drift, err)
	}
	h, err := s.HomeStats(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if h.Posted != 1 || h.Pending != 3 || h.Rejected != 1 || h.TotalMentions != 5 || h.TotalReplies != 1 {
		t.Errorf("totals %+v, want every platform's", h)
	}
	want := map[string]store.PlatformCounts{
		post.XPlatform:       {Pending: 2, TotalMentions: 2, Mentions24h: 2},
		post.BlueskyPlatform: {Posted: 1, Pending: 1, Rejected: 1, TotalMentions: 3, TotalReplies: 1, Mentions24h: 3, Replies24h: 1},
	}
	if len(h.ByPlatform) != len(want) {
		t.Fatalf("ByPlatform %+v, want %+v", h.ByPlatform, want)
	}
	for p, w := range want {
		if h.ByPlatform[p] != w {
			t.Errorf("ByPlatform[%s] = %+v, want %+v", p, h.ByPlatform[p], w)
		}
	}
}
