package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/twittertext"
)

func found(id string, src post.Source) post.Post {
	return post.Post{Platform: "sandbox", Source: src, OriginalPostID: id, ConversationID: "c" + id,
		OriginalPostText: "text " + id, OriginalPostUser: "Mortal", AuthorUsername: "mortal", Language: "pt-br",
		CreatedAt: time.Now().Add(-time.Hour), Likes: 1}
}

// pending makes a pending post with the given response.
func pending(t *testing.T, s *store.Store, id string, src post.Source, response string) int64 {
	t.Helper()
	ctx := context.Background()
	rowID, created, err := s.UpsertFound(ctx, found(id, src))
	if err != nil || !created {
		t.Fatalf("UpsertFound: %v created=%v", err, created)
	}
	if err := s.SaveDraft(ctx, rowID, store.Draft{Response: response, Category: "wrath", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}); err != nil {
		t.Fatalf("SaveDraft: %v", err)
	}
	return rowID
}

func TestUpsertFoundIsUnique(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	p := found("1", post.SourceMention)
	id1, created1, err := s.UpsertFound(ctx, p)
	if err != nil || !created1 {
		t.Fatalf("first upsert: %v %v", err, created1)
	}
	p.Likes = 9
	id2, created2, err := s.UpsertFound(ctx, p)
	if err != nil || created2 || id2 != id1 {
		t.Fatalf("second upsert: id %d vs %d created %v err %v", id2, id1, created2, err)
	}
	got, err := s.Post(ctx, id1)
	if err != nil || got.Likes != 9 || got.Status != post.StatusDrafting || got.Language != "pt-BR" {
		t.Fatalf("Post = %+v, %v", got, err)
	}
	// A language tag of another shape is no language.
	odd := found("odd", post.SourceMention)
	odd.Language = "not a tag"
	if id, _, err := s.UpsertFound(ctx, odd); err != nil {
		t.Fatal(err)
	} else if got, err := s.Post(ctx, id); err != nil || got.Language != "" {
		t.Fatalf("a malformed language is kept as %q (%v)", got.Language, err)
	}
	if _, _, err := s.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("upsert without id: %v, want ErrInvalid", err)
	}
}

func TestApproveRejectTransitions(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "burn")
	long := pending(t, s, "2", post.SourceMention, strings.Repeat("x", 281))
	other := pending(t, s, "3", post.SourceConversation, "sizzle")

	if _, err := s.ApproveWith(ctx, long, store.Approval{By: post.ByWeb}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("approve too long: %v, want ErrInvalid", err)
	}
	empty := ""
	if _, err := s.ApproveWith(ctx, long, store.Approval{Edited: &empty, By: post.ByWeb}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("approve empty edit: %v, want ErrInvalid", err)
	}
	edited := "shorter now"
	p, err := s.ApproveWith(ctx, long, store.Approval{Edited: &edited, By: post.ByWeb})
	if err != nil || p.Status != post.StatusApproved || p.ProposedResponse != edited || p.ApprovedAt == nil {
		t.Fatalf("approve edited: %+v %v", p, err)
	}
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second approve: %v, want ErrConflict", err)
	}
	if _, err := s.RejectWith(ctx, id, nil, post.ByWeb); !errors.Is(err, store.ErrConflict) {
		t.Errorf("reject approved: %v, want ErrConflict", err)
	}
	if _, err := s.ApproveWith(ctx, 999999, store.Approval{By: post.ByWeb}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("approve unknown: %v, want ErrNotFound", err)
	}
	if _, err := s.RejectWith(ctx, 999999, nil, post.ByWeb); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("reject unknown: %v, want ErrNotFound", err)
	}
	r, err := s.RejectWith(ctx, other, nil, post.ByWeb)
	if err != nil || r.Status != post.StatusRejected {
		t.Fatalf("reject: %+v %v", r, err)
	}
	if err := s.SaveDraft(ctx, other, store.Draft{Response: "again"}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("draft over a rejected post: %v, want ErrConflict", err)
	}
}

func TestSendAndLogs(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "burn")
	if _, _, err := s.BeginSend(ctx, id); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("send before approval: %v, want ErrConflict", err)
	}
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	_, started, err := s.BeginSend(ctx, id)
	if err != nil || started != nil {
		t.Fatalf("first BeginSend: started %v err %v", started, err)
	}
	_, started, err = s.BeginSend(ctx, id)
	if err != nil || started == nil {
		t.Fatalf("second BeginSend must report the first: started %v err %v", started, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := s.MarkPosted(ctx, id, "r1", now); err != nil {
		t.Fatalf("MarkPosted: %v", err)
	}
	if err := s.MarkPosted(ctx, id, "r1", now); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second MarkPosted: %v, want ErrConflict", err)
	}
	profile, err := s.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDraft(ctx, profile, store.Draft{Response: "a thought", Category: "pride"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveWith(ctx, profile, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BeginSend(ctx, profile); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkPosted(ctx, profile, "r2", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	threads, more, err := s.Logs(ctx, 0, 15)
	if err != nil || more || len(threads) != 2 {
		t.Fatalf("Logs = %d threads, more %v, err %v", len(threads), more, err)
	}
	if threads[0].Type != store.ThreadBroadcast || threads[1].Type != store.ThreadInteraction {
		t.Errorf("thread order/types: %s, %s", threads[0].Type, threads[1].Type)
	}
	m := threads[1].Messages
	if len(m) != 1 || m[0].Response != "burn" || m[0].OriginalPostText != "text 1" || m[0].Temperature != 0.3 {
		t.Errorf("messages: %+v", m)
	}
	if _, _, err := s.Logs(ctx, -1, 15); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("negative offset: %v", err)
	}
}

func TestFailedPostsStayInViewAndCanBeRetried(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "burn")
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BeginSend(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.FailSend(ctx, id, "platform: 403 Forbidden: duplicate content"); err != nil {
		t.Fatal(err)
	}
	list, total, err := s.ListPending(ctx, post.SourceMention, post.SortDate, 1, 10)
	if err != nil || total != 1 || list[0].Status != post.StatusFailed || list[0].Error == "" {
		t.Fatalf("failed post not listed with its error: %+v %d %v", list, total, err)
	}
	edited := "burn, but differently"
	p, err := s.ApproveWith(ctx, id, store.Approval{Edited: &edited, By: post.ByWeb})
	if err != nil || p.Status != post.StatusApproved || p.Error != "" || p.SendStartedAt == nil {
		t.Fatalf("approve again: %+v %v (the earlier send mark must stay, so a retry checks the platform first)", p, err)
	}
	if err := s.FailDraft(ctx, id, "x"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("FailDraft on an approved post: %v, want ErrConflict", err)
	}
	other := pending(t, s, "2", post.SourceMention, "")
	if _, err := s.RejectWith(ctx, other, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RejectWith(ctx, other, nil, post.ByWeb); !errors.Is(err, store.ErrConflict) {
		t.Errorf("reject twice: %v, want ErrConflict", err)
	}
}

func TestListPendingSortsAndPages(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	for i, likes := range []int{5, 1, 9} {
		p := found(string(rune('a'+i)), post.SourceConversation)
		p.Likes = likes
		p.CreatedAt = time.Now().Add(time.Duration(i) * time.Minute)
		id, _, err := s.UpsertFound(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveDraft(ctx, id, store.Draft{Response: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	pending(t, s, "m", post.SourceMention, "r")
	tests := []struct {
		name      string
		sort      post.Sort
		page      int
		size      int
		wantLikes []int
	}{
		{name: "date newest first", sort: post.SortDate, page: 1, size: 10, wantLikes: []int{9, 1, 5}},
		{name: "likes", sort: post.SortLikes, page: 1, size: 10, wantLikes: []int{9, 5, 1}},
		{name: "engagement", sort: post.SortEngagement, page: 1, size: 10, wantLikes: []int{9, 5, 1}},
		{name: "second page", sort: post.SortLikes, page: 2, size: 2, wantLikes: []int{1}},
		{name: "past the end", sort: post.SortLikes, page: 5, size: 2, wantLikes: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			posts, total, err := s.ListPending(ctx, post.SourceConversation, tt.sort, tt.page, tt.size)
			if err != nil || total != 3 {
				t.Fatalf("ListPending: total %d err %v", total, err)
			}
			var likes []int
			for _, p := range posts {
				likes = append(likes, p.Likes)
			}
			if len(likes) != len(tt.wantLikes) {
				t.Fatalf("likes %v, want %v", likes, tt.wantLikes)
			}
			for i := range likes {
				if likes[i] != tt.wantLikes[i] {
					t.Fatalf("likes %v, want %v", likes, tt.wantLikes)
				}
			}
		})
	}
}

func TestEngagementSnapshots(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	e, err := s.LatestEngagement(ctx)
	if err != nil || e.WindowStart != nil {
		t.Fatalf("before any refresh: %+v %v, want no window", e, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	if err := s.RecordEngagement(ctx, store.Engagement{Likes: 1}, now.Add(-40*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordEngagement(ctx, store.Engagement{Likes: 5, Retweets: 2}, now); err != nil {
		t.Fatal(err)
	}
	e, err = s.LatestEngagement(ctx)
	if err != nil || e.Likes != 5 || e.WindowStart == nil || !e.WindowStart.Equal(now.Add(-24*time.Hour)) {
		t.Fatalf("latest: %+v %v", e, err)
	}
	if err := s.DeleteEngagementBefore(ctx, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if e, err := s.LatestEngagement(ctx); err != nil || e.Likes != 5 {
		t.Fatalf("pruning old snapshots lost the latest: %+v %v", e, err)
	}
	if err := s.DeleteEngagementBefore(ctx, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if e, err := s.LatestEngagement(ctx); err != nil || e.WindowStart != nil {
		t.Errorf("after deleting all: %+v %v", e, err)
	}
}

// A refused change carries its facts: where the post stands and where it
// should, or how long the response is.
func TestTypedErrors(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	long := pending(t, s, "1", post.SourceMention, strings.Repeat("x", 281))
	ok := pending(t, s, "2", post.SourceMention, "burn")
	if _, err := s.ApproveWith(ctx, ok, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		do        func() error
		wantState *post.StateError
		wantLen   int
	}{
		{name: "approve too long", do: func() error { _, err := s.ApproveWith(ctx, long, store.Approval{By: post.ByWeb}); return err }, wantLen: 281},
		{name: "approve twice", do: func() error { _, err := s.ApproveWith(ctx, ok, store.Approval{By: post.ByWeb}); return err },
			wantState: &post.StateError{ID: ok, Have: post.StatusApproved, Want: post.StatusPending}},
		{name: "reject approved", do: func() error { _, err := s.RejectWith(ctx, ok, nil, post.ByWeb); return err },
			wantState: &post.StateError{ID: ok, Have: post.StatusApproved, Want: post.StatusPending}},
		{name: "draft over a pending post", do: func() error { return s.SaveDraft(ctx, long, store.Draft{Response: "x"}) },
			wantState: &post.StateError{ID: long, Have: post.StatusPending, Want: post.StatusDrafting}},
		{name: "fail the draft of a pending post", do: func() error { return s.FailDraft(ctx, long, "no") },
			wantState: &post.StateError{ID: long, Have: post.StatusPending, Want: post.StatusDrafting}},
		{name: "fail the send of a pending post", do: func() error { return s.FailSend(ctx, long, "no") },
			wantState: &post.StateError{ID: long, Have: post.StatusPending, Want: post.StatusApproved}},
		{name: "send a pending post", do: func() error { _, _, err := s.BeginSend(ctx, long); return err },
			wantState: &post.StateError{ID: long, Have: post.StatusPending, Want: post.StatusApproved}},
		{name: "delete an approved post as a draft", do: func() error { return s.DeleteDraft(ctx, ok) },
			wantState: &post.StateError{ID: ok, Have: post.StatusApproved, Want: post.StatusDrafting}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			var stateErr *post.StateError
			var lengthErr *post.LengthError
			switch {
			case tt.wantState != nil:
				if !errors.Is(err, store.ErrConflict) || !errors.As(err, &stateErr) || *stateErr != *tt.wantState {
					t.Errorf("got %v, want ErrConflict carrying %+v", err, *tt.wantState)
				}
			default:
				if !errors.Is(err, store.ErrInvalid) || !errors.As(err, &lengthErr) || lengthErr.Length != tt.wantLen || lengthErr.Max != twittertext.MaxLength {
					t.Errorf("got %v, want ErrInvalid carrying length %d", err, tt.wantLen)
				}
			}
		})
	}
	if p, err := s.Post(ctx, long); err != nil || p.Status != post.StatusPending || p.Error != "" {
		t.Errorf("refused changes must leave the post as it was: %+v %v", p, err)
	}
}

// A post not drafted yet shows the domain's default sampling parameters.
func TestNewPostsCarryTheDefaultParameters(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	foundID, _, err := s.UpsertFound(ctx, found("1", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	profileID, err := s.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   int64
	}{
		{name: "found", id: foundID},
		{name: "profile", id: profileID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Post(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			want := post.DefaultLLMParameter
			if p.Temperature != want || p.PresencePenalty != want || p.FrequencyPenalty != want {
				t.Errorf("parameters %v %v %v, want %v", p.Temperature, p.PresencePenalty, p.FrequencyPenalty, want)
			}
		})
	}
}

// A Bluesky post is approved against Bluesky's limit, 300 graphemes, not X's.
func TestApproveCountsAgainstItsPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name, text string
		wantLen    int // 0 when approved
	}{
		{name: "300 emoji", text: strings.Repeat("🔥", 300)},
		{name: "301 graphemes", text: strings.Repeat("é", 301), wantLen: 301},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := found("at://did:plc:mortal/app.bsky.feed.post/"+tt.name, post.SourceMention)
			p.Platform = post.BlueskyPlatform
			id, _, err := s.UpsertFound(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SaveDraft(ctx, id, store.Draft{Response: "draft", Category: "wrath"}); err != nil {
				t.Fatal(err)
			}
			_, err = s.ApproveWith(ctx, id, store.Approval{Edited: &tt.text, By: post.ByWeb})
			var lengthErr *post.LengthError
			switch {
			case tt.wantLen == 0 && err != nil:
				t.Fatalf("Approve: %v", err)
			case tt.wantLen != 0 && (!errors.As(err, &lengthErr) || lengthErr.Length != tt.wantLen || lengthErr.Max != 300):
				t.Fatalf("Approve: %v, want a length error of %d over 300", err, tt.wantLen)
			}
		})
	}
}
