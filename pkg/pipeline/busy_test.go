package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// busyWriter is a slow model that is often rate limited: each call takes a
// few milliseconds; the first call for every other post, and the first
// busyFor calls for the stubborn post, answer writer.ErrBusy.
type busyWriter struct {
	writer.Writer
	stubborn string
	busyFor  int

	mu     sync.Mutex
	calls  map[string]int
	drafts map[string]int
}

func (w *busyWriter) Write(ctx context.Context, req writer.Request) (writer.Draft, error) {
	time.Sleep(3 * time.Millisecond)
	if req.Avoid != "" {
		// The near-duplicate guard's one redraft of a post is no second
		// delivery of its task: only first drafts are counted.
		return w.Writer.Write(ctx, req)
	}
	w.mu.Lock()
	w.calls[req.PostText]++
	n := w.calls[req.PostText]
	busy := (req.PostText == w.stubborn && n <= w.busyFor) || (n == 1 && strings.HasSuffix(req.PostText, "0"))
	if !busy {
		w.drafts[req.PostText]++
	}
	w.mu.Unlock()
	if busy {
		return writer.Draft{}, fmt.Errorf("rate limited: %w", writer.ErrBusy)
	}
	return w.Writer.Write(ctx, req)
}

// With a slow model that keeps answering "busy", a burst still drains: every
// mention is drafted once, none is failed, even the one the model refuses
// more times than a task may be retried.
func TestBurstDrainsThroughABusyModel(t *testing.T) {
	t.Parallel()
	e := setup(t)
	storetest.UncapReplies(t, e.store)
	ctx := context.Background()
	const burst = 300
	plat := &burstPlatform{Platform: e.plat, mentions: &burstTimeline{first: 1_000_000, n: burst, bound: 500}}
	s := *e.pipe.Scanner
	s.Platform = plat
	if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	w := &busyWriter{Writer: e.pipe.Drafter.Writer, stubborn: "post 1000007", busyFor: 12,
		calls: map[string]int{}, drafts: map[string]int{}}
	d := *e.pipe.Drafter
	d.Writer = w
	e.pipe.Drafter = &d
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: e.redisURL, Register: e.pipe.Register, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RetryDelay:               func(int, error, *asynq.Task) time.Duration { return 50 * time.Millisecond },
		IsFailure:                pipeline.IsFailure,
		DelayedTaskCheckInterval: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	waitAllPending(t, e, burst, func() string { return "the model was busy" })
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.drafts) != burst {
		t.Errorf("%d posts drafted, want %d", len(w.drafts), burst)
	}
	for text, n := range w.drafts {
		if n != 1 {
			t.Errorf("%q drafted %d times, want once", text, n)
		}
	}
	if got := w.calls[w.stubborn]; got != w.busyFor+1 {
		t.Errorf("the stubborn post was asked for %d times, want %d", got, w.busyFor+1)
	}
}

// waitAllPending waits up to a minute for burst mentions to be listed with
// none left drafting (seen describes the model's side on a timeout), then
// checks each one is pending.
func waitAllPending(t *testing.T, e *env, burst int, seen func() string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		_, n, err := e.store.ListPending(ctx, post.SourceMention, post.SortDate, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		drafting, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == burst && len(drafting) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d mentions listed, %d still drafting, after a minute; %s", n, burst, len(drafting), seen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	list, _, err := e.store.ListPending(ctx, post.SourceMention, post.SortDate, 1, burst)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Status != post.StatusPending {
			t.Errorf("post %s is %s (%s), want pending", p.OriginalPostID, p.Status, p.Error)
		}
	}
}
