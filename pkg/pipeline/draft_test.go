package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// refusingWriter always refuses.
type refusingWriter struct{}

func (refusingWriter) Name() string { return "refusing" }
func (refusingWriter) Write(context.Context, writer.Request) (writer.Draft, error) {
	return writer.Draft{}, fmt.Errorf("the model declined: %w", writer.ErrRefused)
}

// nulWriter answers with a NUL inside its text, as a broken model might.
type nulWriter struct{}

func (nulWriter) Name() string { return "nul" }
func (nulWriter) Write(context.Context, writer.Request) (writer.Draft, error) {
	return writer.Draft{Text: "burn\x00ing", Category: "wrath", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}, nil
}

func TestDraftPost(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	profile, err := e.store.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: profile})); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Post(ctx, profile)
	if err != nil || p.Status != post.StatusPending || p.ProposedResponse == "" || p.Category == "" || p.Temperature != 0.3 {
		t.Fatalf("drafted profile post: %+v %v", p, err)
	}
	// A second delivery of the same task changes nothing.
	if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: profile})); err != nil {
		t.Fatal(err)
	}
	again, _ := e.store.Post(ctx, profile)
	if again.ProposedResponse != p.ProposedResponse {
		t.Errorf("redelivery rewrote the draft")
	}

	refused, err := e.store.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	h := &pipeline.Drafter{Store: e.store, Writer: refusingWriter{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	if err := h.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: refused})); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.Post(ctx, refused); p.Status != post.StatusFailed || !strings.Contains(p.Error, "declined") {
		t.Errorf("refused draft: %s %q, want failed with the reason", p.Status, p.Error)
	}
}

func TestDraftDropsNULFromTheModel(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id, err := e.store.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	h := &pipeline.Drafter{Store: e.store, Writer: nulWriter{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	if err := h.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatalf("a NUL from the model must not fail the draft: %v", err)
	}
	if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPending || p.ProposedResponse != "burning" {
		t.Errorf("draft %s %q, want pending \"burning\"", p.Status, p.ProposedResponse)
	}
}
