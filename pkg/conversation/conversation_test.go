package conversation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/conversation"
	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// idleQueue takes the send an approval starts and does nothing with it:
// the test marks the post posted itself.
type idleQueue struct{}

func (idleQueue) EnqueueSend(context.Context, int64) error                 { return nil }
func (idleQueue) EnqueueRegenerate(context.Context, int64, string) error   { return nil }
func (idleQueue) EnsureDraft(context.Context, int64, string) (bool, error) { return true, nil }

func at(min int) *time.Time {
	t := time.Date(2026, 11, 25, 12, min, 0, 0, time.UTC)
	return &t
}

// cp is a kept post: id, author, parent, minute.
func cp(id, author, parent string, min int) store.ContextPost {
	return store.ContextPost{Platform: "x", PlatformPostID: id, AuthorUsername: author, Text: "text of " + id,
		InReplyToID: parent, ConversationID: "c", CreatedAt: at(min)}
}

func keyed(posts ...store.ContextPost) map[string]store.ContextPost {
	m := map[string]store.ContextPost{}
	for _, p := range posts {
		m[p.PlatformPostID] = p
	}
	return m
}

// render writes items as "relation:author:id" for comparison.
func render(items []conversation.Item) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Relation) + ":" + it.AuthorUsername + ":" + it.PlatformPostID
	}
	return strings.Join(out, " ")
}

func TestAssemble(t *testing.T) {
	t.Parallel()
	// A thread 1 <- 2 <- 3 <- 4 <- 5 <- the mortal's post 6.
	thread := []store.ContextPost{cp("1", "a", "", 1), cp("2", "b", "1", 2), cp("3", "a", "2", 3), cp("4", "c", "3", 4), cp("5", "b", "4", 5)}
	gone := cp("4", "", "", 0)
	gone.Gone = true
	cycle := []store.ContextPost{cp("2", "a", "3", 2), cp("3", "b", "2", 3)}
	quoted := cp("q", "quoter", "", 0)
	tests := []struct {
		name    string
		p       post.Post
		known   map[string]store.ContextPost
		persona []store.ContextPost
		depth   int
		want    string
	}{
		{name: "standalone post", p: post.Post{OriginalPostID: "6"}, known: keyed(), depth: 5, want: ""},
		{name: "whole thread, oldest first", p: post.Post{OriginalPostID: "6", InReplyToID: "5"}, known: keyed(thread...), depth: 5,
			want: "ancestor:a:1 ancestor:b:2 ancestor:a:3 ancestor:c:4 parent:b:5"},
		{name: "depth bounds the chain to the nearest posts", p: post.Post{OriginalPostID: "6", InReplyToID: "5"}, known: keyed(thread...), depth: 2,
			want: "ancestor:c:4 parent:b:5"},
		{name: "a missing post ends the chain", p: post.Post{OriginalPostID: "6", InReplyToID: "5"}, known: keyed(thread[2:]...), depth: 5,
			want: "ancestor:a:3 ancestor:c:4 parent:b:5"},
		{name: "a deleted post ends the chain", p: post.Post{OriginalPostID: "6", InReplyToID: "5"}, known: keyed(append(slices.Clone(thread[:3]), gone, thread[4])...), depth: 5,
			want: "parent:b:5"},
		{name: "a deleted parent leaves no thread", p: post.Post{OriginalPostID: "6", InReplyToID: "4"}, known: keyed(gone), depth: 5, want: ""},
		{name: "a cycle stops", p: post.Post{OriginalPostID: "6", InReplyToID: "3"}, known: keyed(cycle...), depth: 10,
			want: "ancestor:a:2 parent:b:3"},
		{name: "a cycle through the post itself stops", p: post.Post{OriginalPostID: "2", InReplyToID: "3"}, known: keyed(cycle...), depth: 10,
			want: "parent:b:3"},
		{name: "the persona in the chain is marked its own", p: post.Post{OriginalPostID: "6", InReplyToID: "5"},
			known: keyed(cp("4", "a", "", 4), cp("5", "Devil", "4", 5)), depth: 5, want: "ancestor:a:4 persona:Devil:5"},
		{name: "the persona's earlier replies by time, not twice", p: post.Post{OriginalPostID: "6", InReplyToID: "5"},
			known:   keyed(thread...),
			persona: []store.ContextPost{{PlatformPostID: "r1", CreatedAt: at(2)}, {PlatformPostID: "3", CreatedAt: at(3)}, {PlatformPostID: "r9", CreatedAt: at(9)}},
			depth:   3, want: "persona:devil:r1 ancestor:a:3 ancestor:c:4 parent:b:5 persona:devil:r9"},
		{name: "an earlier reply placed inside the thread", p: post.Post{OriginalPostID: "6", InReplyToID: "5"},
			known:   keyed(thread...),
			persona: []store.ContextPost{{PlatformPostID: "r", CreatedAt: at(3)}}, depth: 5,
			want: "ancestor:a:1 ancestor:b:2 ancestor:a:3 persona:devil:r ancestor:c:4 parent:b:5"},
		{name: "the quoted post comes last", p: post.Post{OriginalPostID: "6", InReplyToID: "5", QuotedID: "q"},
			known: keyed(append(slices.Clone(thread[3:]), quoted)...), depth: 5, want: "ancestor:c:4 parent:b:5 quoted:quoter:q"},
		{name: "a quote alone", p: post.Post{OriginalPostID: "6", QuotedID: "q"}, known: keyed(quoted), depth: 5, want: "quoted:quoter:q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(conversation.Assemble(tt.p, tt.known, tt.persona, "devil", tt.depth))
			if got != tt.want {
				t.Errorf("Assemble:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// lookupPlatform answers Fetch from posts, recording the ids asked for.
type lookupPlatform struct {
	mu    sync.Mutex
	posts map[string]store.ContextPost
	calls [][]string
	err   error
}

func (l *lookupPlatform) Fetch(_ context.Context, ids []string) ([]store.ContextPost, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, slices.Clone(ids))
	if l.err != nil {
		return nil, l.err
	}
	var out []store.ContextPost
	for _, id := range ids {
		if p, ok := l.posts[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

type budget struct{ allow bool }

func (b budget) Allow(context.Context, string) bool { return b.allow }

func TestGatherReadsOnceAndKeeps(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	plat := &lookupPlatform{posts: map[string]store.ContextPost{
		"10": {PlatformPostID: "10", Text: "is coffee a sin", AuthorUsername: "root", CreatedAt: at(1)},
		"11": {PlatformPostID: "11", InReplyToID: "10", Text: "only before noon", AuthorUsername: "mid", CreatedAt: at(2)},
		"12": {PlatformPostID: "12", InReplyToID: "11", Text: "decaf is the real sin", AuthorUsername: "near", CreatedAt: at(3)},
		"q":  {PlatformPostID: "q", Text: "quoted words", AuthorUsername: "quoter", CreatedAt: at(0)},
	}}
	g := &conversation.Gatherer{Store: st, Fetch: plat, PlatformName: "x", Handle: "devil"}
	p := post.Post{ID: 1, Platform: "x", OriginalPostID: "13", InReplyToID: "12", QuotedID: "q", ConversationID: "10", Source: post.SourceMention}

	got, err := g.Gather(ctx, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ancestor:root:10 ancestor:mid:11 parent:near:12 quoted:quoter:q"; render(got.Items) != want {
		t.Errorf("items %q, want %q", render(got.Items), want)
	}
	if got.Note != "" || got.Read != 4 {
		t.Errorf("note %q, read %d; want none and 4", got.Note, got.Read)
	}
	if len(plat.calls) != 3 || !slices.Equal(plat.calls[0], []string{"12", "q"}) {
		t.Errorf("lookups %v, want [12 q] then one per level", plat.calls)
	}

	// A second draft (a regenerate, a follow-up) reads nothing again.
	plat.calls = nil
	again, err := g.Gather(ctx, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	if render(again.Items) != render(got.Items) || len(plat.calls) != 0 || again.Read != 0 {
		t.Errorf("second gather: %q with lookups %v, want the same items and none", render(again.Items), plat.calls)
	}
}

func TestGatherDeletedParentIsNotAskedAgain(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	plat := &lookupPlatform{posts: map[string]store.ContextPost{}}
	g := &conversation.Gatherer{Store: st, Fetch: plat, PlatformName: "x", Handle: "devil"}
	p := post.Post{ID: 1, Platform: "x", OriginalPostID: "13", InReplyToID: "12"}
	for range 2 {
		got, err := g.Gather(ctx, p, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != 0 {
			t.Errorf("items %q, want none", render(got.Items))
		}
	}
	if len(plat.calls) != 1 {
		t.Errorf("lookups %v, want one: a deleted post is kept as gone", plat.calls)
	}
}

func TestGatherOverBudgetUsesWhatIsStored(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	if err := st.SaveContextPosts(ctx, []store.ContextPost{cp("12", "near", "11", 3)}); err != nil {
		t.Fatal(err)
	}
	plat := &lookupPlatform{posts: map[string]store.ContextPost{"11": {PlatformPostID: "11"}}}
	g := &conversation.Gatherer{Store: st, Fetch: plat, PlatformName: "x", Handle: "devil", Reads: budget{allow: false}}
	got, err := g.Gather(ctx, post.Post{ID: 1, Platform: "x", OriginalPostID: "13", InReplyToID: "12"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if render(got.Items) != "parent:near:12" || len(plat.calls) != 0 {
		t.Errorf("items %q, lookups %v; want the stored parent and no read", render(got.Items), plat.calls)
	}
	if want := "The X budget is spent: drafted with the 1 post already stored."; got.Note != want {
		t.Errorf("note %q, want %q", got.Note, want)
	}
}

func TestGatherPlatformFailureIsANote(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	plat := &lookupPlatform{err: errors.New("platform: 503 Service Unavailable")}
	g := &conversation.Gatherer{Store: st, Fetch: plat, PlatformName: "x", Handle: "devil"}
	got, err := g.Gather(context.Background(), post.Post{ID: 1, Platform: "x", OriginalPostID: "13", InReplyToID: "12"}, 5)
	if err != nil {
		t.Fatalf("a platform failure must not fail the gather: %v", err)
	}
	if !strings.Contains(got.Note, "refused a read") || len(got.Items) != 0 {
		t.Errorf("note %q, items %q", got.Note, render(got.Items))
	}
}

func TestGatherPersonaFollowUp(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	// The persona answered the first mention of conversation c; a second mention follows.
	id, _, err := st.UpsertFound(ctx, post.Post{Platform: "x", Source: post.SourceMention, OriginalPostID: "20", ConversationID: "c",
		OriginalPostText: "@devil first", AuthorUsername: "m", CreatedAt: *at(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveDraft(ctx, id, store.Draft{Response: "the first answer", Category: "pride"}); err != nil {
		t.Fatal(err)
	}
	if _, err := decision.New(st, idleQueue{}, "devil", nil).Approve(ctx, id, decision.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkPosted(ctx, id, "21", *at(2)); err != nil {
		t.Fatal(err)
	}
	g := &conversation.Gatherer{Store: st, PlatformName: "x", Handle: "devil"}
	got, err := g.Gather(ctx, post.Post{ID: id + 1, Platform: "x", OriginalPostID: "22", ConversationID: "c"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if render(got.Items) != "persona:devil:21" || got.Items[0].Text != "the first answer" {
		t.Errorf("items %q, want the persona's earlier reply", render(got.Items))
	}
}
