package pipeline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// linkWriter answers with a link and someone else's handle.
type linkWriter struct{}

func (linkWriter) Name() string { return "link" }
func (linkWriter) Write(context.Context, writer.Request) (writer.Draft, error) {
	return writer.Draft{Text: "Read https://example.com/hell @stranger", Category: "greed"}, nil
}

// regenerated runs one regenerate task of post id with instruction.
func regenerated(t *testing.T, d *pipeline.Drafter, id int64, instruction string) error {
	t.Helper()
	return d.Regenerate(context.Background(), task(tasks.TypeRegeneratePost, tasks.RegeneratePayload{PostID: id, Instruction: instruction}))
}

func TestRegenerateKeepsHistory(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "m1",
		OriginalPostText: "@devil my coffee machine died", OriginalPostUser: "Maria", AuthorUsername: "maria", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	for _, instruction := range []string{"", "shorter"} {
		if err := regenerated(t, e.pipe.Drafter, id, instruction); err != nil {
			t.Fatalf("regenerate %q: %v", instruction, err)
		}
	}
	vs, err := e.store.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, string(v.Origin)+"/"+v.Instruction)
	}
	if want := []string{"writer/", "regenerate/", "regenerate/shorter"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	for i := 1; i < len(vs); i++ {
		if vs[i].Text == vs[i-1].Text {
			t.Errorf("version %d repeats version %d: %q", i, i-1, vs[i].Text)
		}
	}
	p, err := e.store.Post(ctx, id)
	if err != nil || p.ProposedResponse != vs[2].Text || p.Status != post.StatusPending {
		t.Errorf("post = %s %q, %v; want pending with the newest version", p.Status, p.ProposedResponse, err)
	}
}

func TestRegenerateCases(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mk := func(n string) int64 {
		id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: n,
			OriginalPostText: "hello " + n, AuthorUsername: "maria", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "draft " + n, Category: "pride"}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	flagged, rejected, refused := mk("1"), mk("2"), mk("3")
	if _, err := decider(e.store, e.queue).Reject(ctx, rejected, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		writer    writer.Writer
		id        int64
		wantSkip  bool
		wantText  string
		wantFlags []string
	}{
		{name: "draft checked on the way out", writer: linkWriter{}, id: flagged,
			wantText: "Read https://example.com/hell @stranger", wantFlags: []string{"link", "foreign_mention"}},
		{name: "a judged post keeps its draft", writer: linkWriter{}, id: rejected, wantText: "draft 2", wantFlags: []string{}},
		{name: "refused: the draft stays, no retry", writer: refusingWriter{}, id: refused, wantSkip: true, wantText: "draft 3", wantFlags: []string{}},
		{name: "unknown post: no retry", writer: linkWriter{}, id: 1 << 40, wantSkip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &pipeline.Drafter{Store: e.store, Writer: tt.writer, Log: log, Handle: "devil"}
			err := regenerated(t, d, tt.id, "")
			if tt.wantSkip != errors.Is(err, asynq.SkipRetry) || (!tt.wantSkip && err != nil) {
				t.Fatalf("Regenerate = %v, want skip retry %v", err, tt.wantSkip)
			}
			if tt.wantText == "" {
				return
			}
			p, err := e.store.Post(ctx, tt.id)
			if err != nil || p.ProposedResponse != tt.wantText || !slices.Equal(p.Flags, tt.wantFlags) {
				t.Errorf("post = %q %q, %v; want %q %q", p.ProposedResponse, p.Flags, err, tt.wantText, tt.wantFlags)
			}
		})
	}
	if err := e.pipe.Drafter.Regenerate(ctx, asynq.NewTask(tasks.TypeRegeneratePost, []byte("garbage"))); !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("garbage payload: %v, want SkipRetry", err)
	}
}

// At the model's spending ceiling no new draft is written, and the task is not retried.
func TestRegenerateWaitsForTheBudget(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "b1",
		OriginalPostText: "hello", AuthorUsername: "maria", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "kept", Category: "pride"}); err != nil {
		t.Fatal(err)
	}
	meter := &spend.Meter{Ledger: e.store, Prices: spend.DefaultPrices(), Log: log, Now: time.Now}
	meter.Usage(ctx, "gpt-4o-mini", 100000, 100000)
	d := &pipeline.Drafter{Store: e.store, Writer: linkWriter{}, Log: log, Handle: "devil",
		Budget: &spend.Gate{Meter: meter, Budgets: spend.Budgets{ModelDaily: 0.0001}}}
	if err := regenerated(t, d, id, ""); !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("Regenerate at the ceiling = %v, want SkipRetry", err)
	}
	if p, err := e.store.Post(ctx, id); err != nil || p.ProposedResponse != "kept" {
		t.Errorf("post = %q, %v; want the draft kept", p.ProposedResponse, err)
	}
}
