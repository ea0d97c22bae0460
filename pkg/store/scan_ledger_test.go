package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"infernal/pkg/insights"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The ledger keeps a dropped post once, leaves out a post recorded in
// posts, and forgets what is older than its keep.
func TestLedger(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	if _, _, err := s.UpsertFound(ctx, post.Post{Platform: "x", Source: post.SourceMention, OriginalPostID: "2", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	drops := []store.Dropped{{PostID: "1", Reason: insights.DropRetweet}, {PostID: "2", Reason: insights.DropNotSummoned}}
	for range 2 {
		if err := s.RecordDropped(ctx, "x", post.SourceConversation, drops); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordDropped(ctx, "x", post.SourceMention, []store.Dropped{{PostID: "1", Reason: insights.DropOwnPost}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, wantStatus, wantReason string
		wantRow                    bool
	}{
		{id: "1", wantStatus: insights.FateSkipped, wantReason: insights.DropRetweet},
		{id: "2", wantStatus: insights.FateWaiting, wantRow: true},
	}
	for _, tt := range tests {
		f, err := s.LookupPost(ctx, "x", tt.id)
		if err != nil || f.Status != tt.wantStatus || f.Reason != tt.wantReason || (f.PostID != 0) != tt.wantRow {
			t.Errorf("post %s: %+v, %v; want %s %q (a row: %v)", tt.id, f, err, tt.wantStatus, tt.wantReason, tt.wantRow)
		}
	}
	if _, err := s.LookupPost(ctx, "sandbox", "1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another platform's post: %v, want ErrNotFound", err)
	}
	if n, err := s.PruneLedger(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("pruned %d, %v; want nothing younger than the keep", n, err)
	}
	if n, err := s.PruneLedger(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("pruned %d, %v; want the one entry", n, err)
	}
	if _, err := s.LastScanOf(ctx, "x", "mentions"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("before any scan: %v, want ErrNotFound", err)
	}
	at := time.Now().Truncate(time.Microsecond)
	for _, newest := range []string{"9", ""} {
		if err := s.NoteScan(ctx, "x", "mentions", newest, at); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := s.LastScanOf(ctx, "x", "mentions"); err != nil || l.NewestID != "9" || !l.At.Equal(at) {
		t.Errorf("last scan %+v, %v; want at %s covering 9 (a scan that found nothing keeps it)", l, err, at)
	}
}

// A Bluesky post is found by its at:// URI, whether it names the author by
// DID or by the handle the author is known under.
func TestLookupBlueskyPostByHandle(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	uri := "at://did:plc:mortal234/app.bsky.feed.post/3kq2x"
	if _, _, err := s.UpsertFound(ctx, post.Post{Platform: post.BlueskyPlatform, Source: post.SourceMention, OriginalPostID: uri,
		AuthorUsername: "mortal.test", AuthorID: "did:plc:mortal234", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref string
		found     bool
	}{
		{name: "by did", ref: uri, found: true},
		{name: "by handle", ref: "at://mortal.test/app.bsky.feed.post/3kq2x", found: true},
		{name: "by handle in capitals", ref: "at://Mortal.Test/app.bsky.feed.post/3kq2x", found: true},
		{name: "another rkey", ref: "at://mortal.test/app.bsky.feed.post/3zzzz", found: false},
		{name: "an unknown handle", ref: "at://stranger.test/app.bsky.feed.post/3kq2x", found: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := s.LookupPost(ctx, post.BlueskyPlatform, tt.ref)
			if tt.found != (err == nil) || (!tt.found && !errors.Is(err, store.ErrNotFound)) {
				t.Fatalf("LookupPost(%s) = %+v, %v; want found %v", tt.ref, f, err, tt.found)
			}
			if tt.found && (f.PostID == 0 || f.Status != insights.FateWaiting) {
				t.Errorf("LookupPost(%s) = %+v; want the post, waiting", tt.ref, f)
			}
		})
	}
}
