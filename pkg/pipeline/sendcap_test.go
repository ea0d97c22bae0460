package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
)

// publishLog is a platform that records what it publishes, in order; the
// sends under test never ask it anything else.
type publishLog struct {
	platform.Platform
	mu   sync.Mutex
	sent []string
}

func (p *publishLog) Name() string { return "sandbox" }

func (p *publishLog) Publish(_ context.Context, text, _ string) (platform.Post, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent = append(p.sent, text)
	return platform.Post{ID: fmt.Sprintf("r%d", len(p.sent)), CreatedAt: time.Now()}, nil
}

func (p *publishLog) published() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sent)
}

// capped returns a store whose send caps are perWindow per 3 hours and
// perDay per day, n posts approved in order (their responses "reply 0",
// "reply 1", ...), and a sender.
func capped(t *testing.T, perWindow, perDay, n int) (*store.Store, []int64, *publishLog, *pipeline.Sender) {
	t.Helper()
	ctx := context.Background()
	st := storetest.New(t)
	caps := settings.DefaultCaps()
	caps.SendsPer3Hours, caps.SendsPerDay = perWindow, perDay
	if err := st.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, n)
	for i := range ids {
		id, _, err := st.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, ReplyRoute: post.RouteAPI,
			OriginalPostID: fmt.Sprint(1000 + i), AuthorUsername: fmt.Sprintf("mortal%d", i), CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SaveDraft(ctx, id, store.Draft{Response: fmt.Sprintf("reply %d", i), Category: post.Category("wrath")}); err != nil {
			t.Fatal(err)
		}
		approve(t, st, nil, id)
		ids[i] = id
	}
	plat := &publishLog{}
	return st, ids, plat, &pipeline.Sender{Store: st, Platform: plat, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
		Self: pipeline.NewSelf(plat)}
}

// send runs post id's send task and reports whether the caps held it.
func send(t *testing.T, s *pipeline.Sender, id int64) (held bool) {
	t.Helper()
	err := s.SendPost(context.Background(), task(tasks.TypeSendPost, tasks.PostPayload{PostID: id}))
	var h *pipeline.SendHeld
	switch {
	case errors.As(err, &h):
		if pipeline.IsFailure(err) {
			t.Errorf("a held send counts as a failure")
		}
		if d := pipeline.RetryDelay(0, err, nil); d < time.Second || d > 5*time.Minute {
			t.Errorf("a held send is retried in %s, want between a second and five minutes", d)
		}
		return true
	case err != nil:
		t.Fatalf("send %d: %v", id, err)
	}
	return false
}

// A cap holds the approvals beyond it in approved, noted "queued: cap",
// and releases them in approval order as the window opens, whatever order
// their tasks run in.
func TestSendCapHoldsApprovalsAndReleasesThemInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ids, plat, sender := capped(t, 1, 1, 3)
	// The window opens when every send so far leaves it.
	openWindow := func() {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, `UPDATE posts SET send_started_at = send_started_at - interval '25 hours' WHERE send_started_at IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name     string
		open     bool
		run      []int // indexes into ids, in the order their tasks run
		wantSent []string
	}{
		{name: "newest first: only the oldest goes", run: []int{2, 1, 0, 2, 1}, wantSent: []string{"reply 0"}},
		{name: "window opens: the next in approval order", open: true, run: []int{2, 1, 2}, wantSent: []string{"reply 0", "reply 1"}},
		{name: "window opens again: the last", open: true, run: []int{2}, wantSent: []string{"reply 0", "reply 1", "reply 2"}},
	}
	for _, step := range steps {
		if step.open {
			openWindow()
		}
		for _, i := range step.run {
			send(t, sender, ids[i])
		}
		if got := plat.published(); !slices.Equal(got, step.wantSent) {
			t.Fatalf("%s: published %q, want %q", step.name, got, step.wantSent)
		}
		for i, id := range ids {
			p, err := st.Post(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			sent := i < len(step.wantSent)
			if sent && (p.Status != post.StatusPosted || p.Error != "") {
				t.Errorf("%s: post %d is %s (%q), want posted", step.name, i, p.Status, p.Error)
			}
			if !sent && (p.Status != post.StatusApproved || p.Error != guard.ReasonSendCap) {
				t.Errorf("%s: post %d is %s (%q), want approved and %q", step.name, i, p.Status, p.Error, guard.ReasonSendCap)
			}
		}
	}
}

// Two workers sending a flood of approvals at once never exceed the cap,
// and the slots go to the oldest approvals.
func TestTwoWorkersNeverExceedTheSendCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ids, plat, first := capped(t, 3, 5, 12)
	second := &pipeline.Sender{Store: st, Platform: plat, Log: first.Log, Now: time.Now, Self: pipeline.NewSelf(plat)}
	var wg sync.WaitGroup
	for round := range 2 {
		for i, id := range ids {
			w := first
			if (i+round)%2 == 1 {
				w = second
			}
			wg.Go(func() { send(t, w, id) })
		}
		wg.Wait()
	}
	got := plat.published()
	slices.Sort(got)
	if want := []string{"reply 0", "reply 1", "reply 2"}; !slices.Equal(got, want) {
		t.Errorf("published %q, want the three oldest approvals %q", got, want)
	}
	var started int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM posts WHERE send_started_at IS NOT NULL`).Scan(&started); err != nil || started != 3 {
		t.Errorf("%d sends started (%v), want 3", started, err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM posts WHERE status = 'approved' AND error = $1`, guard.ReasonSendCap).Scan(&n); err != nil || n != 9 {
		t.Errorf("%d posts queued by the cap (%v), want 9", n, err)
	}
}
