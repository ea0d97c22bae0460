package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// origins lists the origin and text of each version.
func origins(vs []post.Version) []string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Origin)+":"+v.Text+":"+v.Instruction)
	}
	return out
}

func TestHistoryKeepsEveryVersionInOrder(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "first")
	if _, err := s.SaveRegenerated(ctx, id, store.Draft{Response: "second", Category: "pride"}, "shorter", []string{"link"}); err != nil {
		t.Fatalf("SaveRegenerated: %v", err)
	}
	edited := "third"
	// Approving with the same text records nothing; only the edit does.
	other := pending(t, s, "2", post.SourceMention, "same")
	same := "same"
	if _, err := s.ApproveWith(ctx, other, store.Approval{Edited: &same, By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveWith(ctx, id, store.Approval{Edited: &edited, By: post.ByWeb}); err != nil {
		t.Fatalf("Approve: %v", err)
	}

	tests := []struct {
		name string
		id   int64
		want []string
	}{
		{name: "writer, regenerate, admin", id: id, want: []string{"writer:first:", "regenerate:second:shorter", "admin:third:"}},
		{name: "approved unchanged", id: other, want: []string{"writer:same:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := s.History(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if got := origins(vs); !slices.Equal(got, tt.want) {
				t.Errorf("History = %q, want %q", got, tt.want)
			}
			for i := 1; i < len(vs); i++ {
				if vs[i].At.Before(vs[i-1].At) || vs[i].ID <= vs[i-1].ID {
					t.Errorf("version %d is not after version %d", i, i-1)
				}
			}
		})
	}
	p, err := s.Post(ctx, id)
	if err != nil || p.ProposedResponse != "third" {
		t.Errorf("post = %q, %v", p.ProposedResponse, err)
	}
}

func TestRegenerateGuards(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	pendingID := pending(t, s, "1", post.SourceMention, "draft")
	failedID := pending(t, s, "2", post.SourceMention, "draft")
	if _, err := s.ApproveWith(ctx, failedID, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if err := s.FailSend(ctx, failedID, "refused"); err != nil {
		t.Fatal(err)
	}
	rejectedID := pending(t, s, "3", post.SourceMention, "draft")
	if _, err := s.RejectWith(ctx, rejectedID, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	drafting, _, err := s.UpsertFound(ctx, found("4", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		id         int64
		wantErr    error
		wantStatus post.Status
	}{
		{name: "pending stays pending", id: pendingID, wantStatus: post.StatusPending},
		{name: "failed becomes pending", id: failedID, wantStatus: post.StatusPending},
		{name: "rejected refused", id: rejectedID, wantErr: store.ErrConflict},
		{name: "drafting refused", id: drafting, wantErr: store.ErrConflict},
		{name: "unknown", id: 1 << 40, wantErr: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.SaveRegenerated(ctx, tt.id, store.Draft{Response: "anew", Category: "envy"}, "", nil)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Status != tt.wantStatus || p.ProposedResponse != "anew" || p.Error != "" {
				t.Errorf("SaveRegenerated = %+v, %v", p, err)
			}
		})
	}
	// A failed post is not redrafted by a late draft task: only regenerate moves it.
	if err := s.SaveDraft(ctx, rejectedID, store.Draft{Response: "late"}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("SaveDraft on a rejected post: %v, want ErrConflict", err)
	}
}

func TestHistoryOfOldAndUnknownPosts(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "old draft")
	// As drafted before versions were kept.
	if _, err := s.Pool().Exec(ctx, `DELETE FROM post_versions WHERE post_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	vs, err := s.History(ctx, id)
	if err != nil || !slices.Equal(origins(vs), []string{"writer:old draft:"}) || vs[0].ID != 0 {
		t.Fatalf("History of an old post = %+v, %v", vs, err)
	}
	// Its first regenerated draft keeps the old text as the writer's version.
	if _, err := s.SaveRegenerated(ctx, id, store.Draft{Response: "new"}, "", nil); err != nil {
		t.Fatal(err)
	}
	vs, err = s.History(ctx, id)
	if err != nil || !slices.Equal(origins(vs), []string{"writer:old draft:", "regenerate:new:"}) {
		t.Fatalf("History after regenerate = %q, %v", origins(vs), err)
	}
	latest, err := s.LatestVersionID(ctx, id)
	if err != nil || latest != vs[1].ID {
		t.Errorf("LatestVersionID = %d, %v; want %d", latest, err, vs[1].ID)
	}
	drafting, _, err := s.UpsertFound(ctx, found("2", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := s.History(ctx, drafting); err != nil || len(vs) != 0 {
		t.Errorf("History of an undrafted post = %+v, %v", vs, err)
	}
	if _, err := s.History(ctx, 1<<40); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("History of an unknown post: %v, want ErrNotFound", err)
	}
}
