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
)

// A Mastodon post keeps its content warning and its web page as found, and
// the limit in force when its draft was written; the approval, the edit and
// the regenerated draft keep to that limit less the warning (the reply
// carries it), and the latest limit is the platform's for an import.
func TestMastodonPostLimitAndWarning(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	if n, err := s.LatestMaxLength(ctx, post.MastodonPlatform); err != nil || n != 0 {
		t.Fatalf("LatestMaxLength before any draft = %d, %v; want 0", n, err)
	}
	warning := strings.Repeat("w", 100)
	p := post.Post{Platform: post.MastodonPlatform, Source: post.SourceMention, OriginalPostID: "113", ConversationID: "113",
		OriginalPostText: "@infernal spoilers", AuthorUsername: "alice@m.example", CreatedAt: time.Now(),
		ContentWarning: "  " + warning + "\x00", WebURL: "https://m.example/@alice/113"}
	id, _, err := s.UpsertFound(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDraft(ctx, id, store.Draft{Response: "@alice@m.example burn", Category: "wrath", MaxLength: 1000}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Post(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.ContentWarning != "  "+warning || got.WebURL != p.WebURL || got.MaxLength != 1000 {
		t.Fatalf("kept warning %q url %q limit %d", got.ContentWarning, got.WebURL, got.MaxLength)
	}
	// "@alice@m.example " counts 7 (the domain does not); the warning 102.
	if got.Limit() != 898 {
		t.Fatalf("Limit = %d, want 898", got.Limit())
	}
	if n, err := s.LatestMaxLength(ctx, post.MastodonPlatform); err != nil || n != 1000 {
		t.Fatalf("LatestMaxLength = %d, %v; want 1000", n, err)
	}
	if n, err := s.LatestMaxLength(ctx, post.XPlatform); err != nil || n != 0 {
		t.Fatalf("LatestMaxLength of X = %d, %v; want 0", n, err)
	}

	fits, over := strings.Repeat("a", 891), strings.Repeat("a", 892)
	edit := func(text string) error { _, err := s.SaveEdit(ctx, id, text, nil, nil, post.ByWeb); return err }
	approve := func(text string) error {
		_, err := s.ApproveWith(ctx, id, store.Approval{Edited: &text, By: post.ByWeb})
		return err
	}
	tests := []struct {
		name    string
		do      func(text string) error
		text    string
		wantMax int // 0 when taken
	}{
		{name: "edit over", do: edit, text: over, wantMax: 898},
		{name: "edit within", do: edit, text: fits},
		{name: "approve over", do: approve, text: over, wantMax: 898},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do(tt.text)
			var le *post.LengthError
			switch {
			case tt.wantMax == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantMax != 0 && (!errors.As(err, &le) || le.Max != tt.wantMax || le.Unit != "characters"):
				t.Fatalf("= %v, want a length error over %d characters", err, tt.wantMax)
			}
		})
	}

	// A regenerated draft keeps the limit it was written under; zero is the default.
	regen, err := s.SaveRegenerated(ctx, id, store.Draft{Response: "@alice@m.example again", Category: "wrath"}, "", nil)
	if err != nil || regen.MaxLength != 0 || regen.Limit() != 500-102 {
		t.Fatalf("regenerated: limit %d (%d), %v; want the default less the warning, 398", regen.MaxLength, regen.Limit(), err)
	}
	if _, err := s.ApproveWith(ctx, id, store.Approval{Edited: &fits, By: post.ByWeb}); err == nil {
		t.Fatal("891 characters approved under the default limit less the warning")
	}
}

// A context post keeps its content warning; a found post answers its own.
func TestContextPostWarning(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	if err := s.SaveContextPosts(ctx, []store.ContextPost{
		{Platform: post.MastodonPlatform, PlatformPostID: "1", Text: "the parent", ContentWarning: "politics"},
	}); err != nil {
		t.Fatal(err)
	}
	// A later read that missed it keeps the warning as read.
	if err := s.SaveContextPosts(ctx, []store.ContextPost{{Platform: post.MastodonPlatform, PlatformPostID: "1", Gone: true}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UpsertFound(ctx, post.Post{Platform: post.MastodonPlatform, Source: post.SourceMention, OriginalPostID: "2",
		OriginalPostText: "found", CreatedAt: time.Now(), ContentWarning: "food"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ContextPosts(ctx, post.MastodonPlatform, []string{"1", "2"})
	if err != nil {
		t.Fatal(err)
	}
	if got["1"].ContentWarning != "politics" || got["2"].ContentWarning != "food" {
		t.Errorf("warnings %q %q, want politics and food", got["1"].ContentWarning, got["2"].ContentWarning)
	}
}
