package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// Context posts: a read replaces what was kept, a later "gone" does not
// erase a post once read, found posts are known too, and pruning forgets
// by age.
func TestContextPosts(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	if err := st.SaveContextPosts(ctx, []store.ContextPost{
		{Platform: "x", PlatformPostID: "1", AuthorUsername: "a", Text: "first words\x00", CreatedAt: &at},
		{Platform: "x", PlatformPostID: "2", Gone: true},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveContextPosts(ctx, []store.ContextPost{{Platform: "x", PlatformPostID: "1", Gone: true}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.ContextPosts(ctx, "x", []string{"1", "2", "3"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		id       string
		wantText string
		wantGone bool
		wantOK   bool
	}{
		{name: "read, then missed: kept as read", id: "1", wantText: "first words", wantOK: true},
		{name: "gone", id: "2", wantGone: true, wantOK: true},
		{name: "never kept", id: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.id]
			if ok != tt.wantOK || p.Text != tt.wantText || p.Gone != tt.wantGone {
				t.Errorf("%s: %+v %v, want text %q gone %v present %v", tt.id, p, ok, tt.wantText, tt.wantGone, tt.wantOK)
			}
		})
	}
	if err := st.SaveContextPosts(ctx, []store.ContextPost{{Platform: "x"}}); err == nil {
		t.Error("a context post without an id must be refused")
	}
	if other, err := st.ContextPosts(ctx, "sandbox", []string{"1"}); err != nil || len(other) != 0 {
		t.Errorf("another platform's posts: %v %v, want none", other, err)
	}
	n, err := st.PruneContextPosts(ctx, time.Now().Add(time.Hour))
	if err != nil || n != 2 {
		t.Errorf("pruned %d (%v), want 2", n, err)
	}
}
