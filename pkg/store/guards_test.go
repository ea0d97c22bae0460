package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The guards' moves keep to the status table: only a post in drafting is
// skipped or passes the guards, only a skipped one is drafted anyway; an
// unknown post is ErrNotFound and a post elsewhere a *post.StateError.
func TestGuardMoves(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id, _, err := s.UpsertFound(ctx, found("g1", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	drafted := pending(t, s, "g2", post.SourceMention, "burn")
	var stateErr *post.StateError
	tests := []struct {
		name string
		do   func() error
		want func(error) bool
	}{
		{name: "draft anyway a post in drafting", do: func() error { _, err := s.DraftAnyway(ctx, id, nil, post.ByWeb); return err },
			want: func(err error) bool { return errors.As(err, &stateErr) && stateErr.Have == post.StatusDrafting }},
		{name: "skip", do: func() error { return s.Skip(ctx, id, "own post") }, want: func(err error) bool { return err == nil }},
		{name: "skip twice", do: func() error { return s.Skip(ctx, id, "own post") },
			want: func(err error) bool { return errors.As(err, &stateErr) && stateErr.Have == post.StatusSkipped }},
		{name: "pass guards of a skipped post", do: func() error { _, err := passGuards(t, s, id, guard.Caps{}); return err },
			want: func(err error) bool { return errors.Is(err, store.ErrConflict) }},
		{name: "skip a pending post", do: func() error { return s.Skip(ctx, drafted, "x") },
			want: func(err error) bool { return errors.Is(err, store.ErrConflict) }},
		{name: "skip an unknown post", do: func() error { return s.Skip(ctx, 424242, "x") },
			want: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},
		{name: "draft anyway an unknown post", do: func() error { _, err := s.DraftAnyway(ctx, 424242, nil, post.ByWeb); return err },
			want: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},
		{name: "draft anyway", do: func() error { _, err := s.DraftAnyway(ctx, id, nil, post.ByWeb); return err }, want: func(err error) bool { return err == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); !tt.want(err) {
				t.Errorf("got %v", err)
			}
		})
	}
	p, err := s.Post(ctx, id)
	if err != nil || p.Status != post.StatusDrafting || p.GuardedAt == nil || p.SkipReason != "" {
		t.Errorf("drafted anyway: %+v %v", p, err)
	}
	// Guarded, it counts against the cap of its conversation.
	other, _, err := s.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "g3",
		ConversationID: "cg1", AuthorUsername: "someone", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if reason, err := passGuards(t, s, other, guard.Caps{}); err != nil || reason != "cap: conversation (1 of 1)" {
		t.Errorf("second post of the conversation: %q %v", reason, err)
	}
}

// The Skipped and failed view lists skipped posts of every source with
// their reasons and failed ones with their errors;
// the near-duplicate guard reads the persona's drafts and posts of the window.
func TestListSkippedAndRecentTexts(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	for i, src := range []post.Source{post.SourceMention, post.SourceConversation, post.SourceTargeted} {
		id, _, err := s.UpsertFound(ctx, found("s"+string(rune('a'+i)), src))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Skip(ctx, id, "reason "+string(src)); err != nil {
			t.Fatal(err)
		}
	}
	pending(t, s, "p1", post.SourceMention, "a draft")
	// A post that failed to draft is listed too, with its error.
	failed, _, err := s.UpsertFound(ctx, found("f1", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FailDraft(ctx, failed, "writer: gave up"); err != nil {
		t.Fatal(err)
	}
	list, total, err := s.ListSkipped(ctx, post.SortDate, 1, 2)
	if err != nil || total != 4 || len(list) != 2 || list[0].ID != failed || list[0].Status != post.StatusFailed || list[0].Error != "writer: gave up" ||
		list[1].SkipReason == "" || list[1].Status != post.StatusSkipped {
		t.Fatalf("skipped page: %+v total %d %v", list, total, err)
	}
	if _, _, err := s.ListSkipped(ctx, post.Sort("evil"), 1, 2); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad sort: %v", err)
	}
	texts, err := s.RecentPersonaTexts(ctx, time.Now().Add(-time.Hour), 10)
	if err != nil || !slices.Equal(texts, []string{"a draft"}) {
		t.Errorf("recent texts %q %v", texts, err)
	}
	if texts, err := s.RecentPersonaTexts(ctx, time.Now().Add(time.Hour), 10); err != nil || len(texts) != 0 {
		t.Errorf("recent texts after the window: %q %v", texts, err)
	}
}

// passGuards runs Store.PassGuards on post id as it stands.
func passGuards(t *testing.T, s *store.Store, id int64, caps guard.Caps) (string, error) {
	t.Helper()
	p, err := s.Post(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s.PassGuards(context.Background(), p, caps)
}

// The per-author cap counts by the author's stable id where the post has
// one: a renamed author keeps its count, the next owner of a handle does
// not take it over, and posts from before ids were kept (an empty author_id)
// still count by handle, as every post does for a post without an id.
func TestAuthorCapByID(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	caps := guard.Caps{PerConversation: 100, PerAuthorPerDay: 1}
	type author struct{ id, handle string }
	tests := []struct {
		name   string
		before author // the author of a post guarded an hour ago
		now    author // the author of the post the guards judge now
		capped bool
	}{
		{name: "same author", before: author{"100", "same"}, now: author{"100", "same"}, capped: true},
		{name: "renamed author keeps its count", before: author{"101", "oldname"}, now: author{"101", "newname"}, capped: true},
		{name: "handle taken over starts from none", before: author{"102", "taken"}, now: author{"103", "taken"}, capped: false},
		{name: "legacy row without id counts by handle", before: author{"", "legacy"}, now: author{"104", "Legacy"}, capped: true},
		{name: "legacy row of another handle does not count", before: author{"", "someoneelse"}, now: author{"105", "fresh"}, capped: false},
		{name: "post without id counts every post by handle", before: author{"106", "noid"}, now: author{"", "NoId"}, capped: true},
		{name: "post without id, other handle", before: author{"107", "first"}, now: author{"", "second"}, capped: false},
		{name: "the same id on another platform does not count", before: author{"did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", "cross.bsky.social"}, now: author{"did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", "cross.bsky.social"}, capped: false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: fmt.Sprintf("ab%d", i),
				ConversationID: fmt.Sprintf("cab%d", i), AuthorUsername: tt.before.handle, AuthorID: tt.before.id, CreatedAt: time.Now()}
			if strings.HasPrefix(tt.before.id, "did:") {
				before.Platform = post.BlueskyPlatform
			}
			id, _, err := s.UpsertFound(ctx, before)
			if err != nil {
				t.Fatal(err)
			}
			if reason, err := passGuards(t, s, id, caps); err != nil || reason != "" {
				t.Fatalf("the first post: %q %v", reason, err)
			}
			now := post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: fmt.Sprintf("an%d", i),
				ConversationID: fmt.Sprintf("can%d", i), AuthorUsername: tt.now.handle, AuthorID: tt.now.id, CreatedAt: time.Now()}
			id, _, err = s.UpsertFound(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			reason, err := passGuards(t, s, id, caps)
			want := ""
			if tt.capped {
				want = guard.ReasonAuthorCap + " (1 of 1 today)"
			}
			if err != nil || reason != want {
				t.Errorf("got %q %v, want %q", reason, err, want)
			}
			p, err := s.Post(ctx, id)
			if err != nil || (p.GuardedAt != nil) == tt.capped || (p.Status == post.StatusSkipped) != tt.capped {
				t.Errorf("the post after the guards: %+v %v", p, err)
			}
		})
	}
}
