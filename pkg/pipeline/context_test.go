package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// threadPlatform answers Lookup from a fixed thread and counts the ids read.
type threadPlatform struct {
	platform.Platform
	posts map[string]platform.Post
	mu    sync.Mutex
	read  []string
}

func (p *threadPlatform) Lookup(_ context.Context, ids []string) ([]platform.Post, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.read = append(p.read, ids...)
	var out []platform.Post
	for _, id := range ids {
		if tp, ok := p.posts[id]; ok {
			out = append(out, tp)
		}
	}
	return out, nil
}

func (p *threadPlatform) reads() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.read)
}

// contextWriter records the context of every request.
type contextWriter struct {
	mu   sync.Mutex
	seen [][]writer.ContextPost
}

func (w *contextWriter) Name() string { return "context" }

func (w *contextWriter) Write(_ context.Context, req writer.Request) (writer.Draft, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, slices.Clone(req.Context))
	return writer.Draft{Text: "The furnace heard draft " + string(rune('a'+len(w.seen))) + ".", Category: "wrath"}, nil
}

func (w *contextWriter) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parts []string
	for _, c := range w.seen[len(w.seen)-1] {
		parts = append(parts, string(c.Relation)+":"+c.Author+":"+c.Text)
	}
	return strings.Join(parts, " | ")
}

// A thin mention inside a thread is drafted with its thread oldest first
// and the post it quotes; a regenerate reads nothing from the platform
// again; a follow-up in the conversation sees the persona's earlier reply.
func TestDraftSeesItsConversation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	caps := settings.DefaultCaps()
	caps.PerConversation, caps.SendsPer3Hours, caps.SendsPerDay = 5, 1000, 1000
	if err := e.store.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	ts := func(m int) time.Time { return time.Date(2026, 11, 25, 9, m, 0, 0, time.UTC) }
	plat := &threadPlatform{Platform: e.plat, posts: map[string]platform.Post{
		"100": {ID: "100", ConversationID: "100", Text: "cold brew is a personality", Author: platform.User{Username: "root"}, CreatedAt: ts(1)},
		"101": {ID: "101", ConversationID: "100", InReplyToID: "100", Text: "it is a lifestyle", Author: platform.User{Username: "mid"}, CreatedAt: ts(2)},
		"500": {ID: "500", Text: "espresso or death", Author: platform.User{Username: "quoted"}, CreatedAt: ts(0)},
	}}
	w := &contextWriter{}
	pipe := pipeline.New(pipeline.Config{Store: e.store, Platform: plat, Writer: w, Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil"})

	thin, _, err := e.store.UpsertFound(ctx, post.Post{Platform: plat.Name(), Source: post.SourceMention, OriginalPostID: "102",
		ConversationID: "100", InReplyToID: "101", QuotedID: "500", OriginalPostText: "@devil thoughts?", AuthorUsername: "asker", CreatedAt: ts(3)})
	if err != nil {
		t.Fatal(err)
	}
	if err := pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: thin})); err != nil {
		t.Fatal(err)
	}
	want := "ancestor:root:cold brew is a personality | parent:mid:it is a lifestyle | quoted:quoted:espresso or death"
	if got := w.last(); got != want {
		t.Errorf("draft context:\n got %q\nwant %q", got, want)
	}
	readAfterDraft := plat.reads()
	if len(readAfterDraft) != 3 {
		t.Errorf("read %v, want the parent, the quote and the root once each", readAfterDraft)
	}

	if err := pipe.Drafter.Regenerate(ctx, task(tasks.TypeRegeneratePost, tasks.RegeneratePayload{PostID: thin, Instruction: "shorter"})); err != nil {
		t.Fatal(err)
	}
	if got := w.last(); got != want {
		t.Errorf("regenerate context:\n got %q\nwant %q", got, want)
	}
	if got := plat.reads(); len(got) != len(readAfterDraft) {
		t.Errorf("a regenerate read %v from the platform, want nothing", got[len(readAfterDraft):])
	}

	// The persona's answer goes out; the mortal follows up under it.
	approve(t, e.store, e.queue, thin)
	if err := e.store.MarkPosted(ctx, thin, "103", ts(4)); err != nil {
		t.Fatal(err)
	}
	plat.posts["103"] = platform.Post{ID: "103", ConversationID: "100", InReplyToID: "102", Text: "draft text", Author: platform.User{Username: "devil"}, CreatedAt: ts(4)}
	follow, _, err := e.store.UpsertFound(ctx, post.Post{Platform: plat.Name(), Source: post.SourceMention, OriginalPostID: "104",
		ConversationID: "100", InReplyToID: "103", OriginalPostText: "@devil explain", AuthorUsername: "asker", CreatedAt: ts(5)})
	if err != nil {
		t.Fatal(err)
	}
	if err := pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: follow})); err != nil {
		t.Fatal(err)
	}
	answered, err := e.store.Post(ctx, thin)
	if err != nil {
		t.Fatal(err)
	}
	want = "ancestor:root:cold brew is a personality | ancestor:mid:it is a lifestyle | ancestor:asker:@devil thoughts? | persona:devil:" + answered.ProposedResponse
	if got := w.last(); got != want {
		t.Errorf("follow-up context:\n got %q\nwant %q", got, want)
	}
	if p, err := e.store.Post(ctx, follow); err != nil || p.Status != post.StatusPending || p.ContextNote != "" {
		t.Errorf("follow-up: %v %s note %q", err, p.Status, p.ContextNote)
	}
	// The thread was kept, the mention and the persona's reply are the
	// product's own rows: the follow-up reads nothing.
	if got := plat.reads(); len(got) != len(readAfterDraft) {
		t.Errorf("the follow-up read %v, want nothing", got[len(readAfterDraft):])
	}
}
