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

// The guards' moves keep to the status table: only a post in drafting is
// skipped or passes the guards, only a skipped one is drafted anyway; an
// unknown post is ErrNotFound and a post elsewhere a *post.StateError.
func TestGuardMoves(t *testing.T) {
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
		{name: "draft anyway a post in drafting", do: func() error { _, err := s.DraftAnyway(ctx, id); return err },
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
		{name: "draft anyway an unknown post", do: func() error { _, err := s.DraftAnyway(ctx, 424242); return err },
			want: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},
		{name: "draft anyway", do: func() error { _, err := s.DraftAnyway(ctx, id); return err }, want: func(err error) bool { return err == nil }},
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
