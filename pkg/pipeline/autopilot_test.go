package pipeline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// draftMention scans the sandbox's mention (by @m1) and drafts it with
// the autopilot's rules set to rules, and returns its id.
func (e *env) draftMention(t *testing.T, rules settings.Autopilot, beforeDraft func(*testing.T, *env)) int64 {
	t.Helper()
	ctx := context.Background()
	set, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.Autopilot = rules
	if err := e.store.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	if beforeDraft != nil {
		beforeDraft(t, e)
	}
	for _, id := range ids {
		if p, err := e.store.Post(ctx, id); err != nil || p.AuthorUsername != "m1" {
			continue
		}
		if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
			t.Fatal(err)
		}
		return id
	}
	t.Fatalf("the scan found no mention by @m1 among %v", ids)
	return 0
}

// trusting are rules that trust @m1 from review 1 up, with an hour's grace.
func trusting() settings.Autopilot {
	a := settings.DefaultAutopilot()
	a.Enabled, a.Authors, a.MinReviewScore, a.GraceSeconds = true, []string{"m1"}, 1, 3600
	return a
}

// A trusted author's draft is auto-approved with send_after and its rule
// in the history; it is not sent before send_after, by this worker or by a
// new one (a restart), and is sent once send_after has passed.
func TestAutopilotApprovesAndWaitsForTheGrace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.draftMention(t, trusting(), nil)
	p, err := e.store.Post(ctx, id)
	if err != nil || p.Status != post.StatusApproved || p.SendAfter == nil || time.Until(*p.SendAfter) < 50*time.Minute {
		t.Fatalf("trusted draft: %s send_after %v (%v); want approved an hour ahead", p.Status, p.SendAfter, err)
	}
	ds, err := e.store.Decisions(ctx, id)
	if err != nil || len(ds) != 1 || ds[0].By != post.ByAutopilot || ds[0].Action != post.ActionApprove ||
		ds[0].Detail["author"] != "m1" || ds[0].Detail["review_score"] != float64(p.Review.Score) ||
		ds[0].Detail["summary"] == nil {
		t.Fatalf("decisions = %+v, %v", ds, err)
	}

	send := func(pipe *pipeline.Pipeline) error {
		return pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id}))
	}
	var held *pipeline.SendHeld
	if err := send(e.pipe); !errors.As(err, &held) || !held.Until.Equal(*p.SendAfter) || pipeline.IsFailure(err) {
		t.Fatalf("send in the grace window: %v, want held until send_after without a failure", err)
	}
	restarted := pipeline.New(pipeline.Config{Store: e.store, Platform: e.plat, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil"})
	if err := restarted.Maintainer.Reconcile(ctx, task(tasks.TypeReconcile, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if err := send(restarted); !errors.As(err, &held) {
		t.Fatalf("send after a restart in the grace window: %v, want held", err)
	}
	if n := e.plat.published.Load(); n != 0 {
		t.Fatalf("published %d before send_after", n)
	}

	// The window ends.
	if _, err := e.store.Pool().Exec(ctx, `UPDATE posts SET send_after = now() - interval '1 second' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := send(restarted); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPosted || e.plat.published.Load() != 1 {
		t.Fatalf("after the window: %s, published %d; want posted once", p.Status, e.plat.published.Load())
	}
}

// Each of these leaves the trusted author's draft pending: the autopilot
// off, a stranger, the pause, a used-up hour.
func TestAutopilotLeavesForReview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules func(*settings.Autopilot)
		prep  func(*testing.T, *env)
	}{
		{name: "off", rules: func(a *settings.Autopilot) { a.Enabled = false }},
		{name: "stranger", rules: func(a *settings.Autopilot) { a.Authors = []string{"friend"} }},
		{name: "max per hour 0", rules: func(a *settings.Autopilot) { a.MaxPerHour = 0 }},
		{name: "paused", prep: func(t *testing.T, e *env) {
			until := time.Now().Add(time.Hour)
			if err := e.store.SetPause(context.Background(), store.Pause{Refusal: "usage_capped", Reason: "test", Until: &until}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			rules := trusting()
			if tt.rules != nil {
				tt.rules(&rules)
			}
			id := e.draftMention(t, rules, tt.prep)
			p, err := e.store.Post(context.Background(), id)
			if err != nil || p.Status != post.StatusPending || p.SendAfter != nil {
				t.Errorf("draft is %s (send_after %v, %v), want pending", p.Status, p.SendAfter, err)
			}
		})
	}
}
