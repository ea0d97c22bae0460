package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/writer"
	"infernal/pkg/writer/offline"
)

var corpus = []sandbox.Entry{
	{Username: "m1", Name: "M One", Kind: "mention", Text: "@{persona} hello"},
	{Username: "t1", Name: "T One", Kind: "topic", Text: "mondays again"},
	{Username: "g1", Name: "G One", Kind: "target", Text: "buy my course"},
}

// faultyPlatform fails Publish with a scripted error while err is set.
type faultyPlatform struct {
	platform.Platform
	err       atomic.Pointer[error]
	published atomic.Int32
}

func (f *faultyPlatform) Publish(ctx context.Context, text, inReplyTo string) (platform.Post, error) {
	if e := f.err.Load(); e != nil {
		return platform.Post{}, *e
	}
	f.published.Add(1)
	return f.Platform.Publish(ctx, text, inReplyTo)
}

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

type env struct {
	store    *store.Store
	queue    *tasks.Client
	plat     *faultyPlatform
	handlers *tasks.Handlers
}

func setup(t *testing.T) *env {
	t.Helper()
	st := storetest.New(t)
	queue, err := tasks.NewClient(taskstest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	sb, err := sandbox.New(st, "devil", time.Hour, corpus, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	plat := &faultyPlatform{Platform: sb}
	return &env{store: st, queue: queue, plat: plat, handlers: &tasks.Handlers{
		Store: st, Platform: plat, Writer: offline.New("devil"), Queue: queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
		Persona: "devil", SearchQuery: "x", Targets: []string{"g1", "nobody_here"},
	}}
}

func task(typ string, payload any) *asynq.Task {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return asynq.NewTask(typ, b)
}

// approvedMention scans, drafts and approves one mention and returns its row id.
func (e *env) approvedMention(t *testing.T) int64 {
	t.Helper()
	ctx := context.Background()
	if err := e.handlers.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	list, _, err := e.store.ListPending(ctx, post.SourceMention, post.SortDate, 1, 10)
	if err != nil || len(list) != 0 {
		t.Fatalf("before drafting nothing is pending: %v %v", list, err)
	}
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 10)
	if err != nil || len(ids) == 0 {
		t.Fatalf("scan made no drafts: %v", err)
	}
	if err := e.handlers.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: ids[0]})); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Approve(ctx, ids[0], nil); err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

func TestScansAreIdempotentAndSkipUnknownTargets(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		for typ, h := range map[string]func(context.Context, *asynq.Task) error{
			tasks.TypeScanMentions: e.handlers.ScanMentions, tasks.TypeScanConversations: e.handlers.ScanConversations,
			tasks.TypeScanTargeted: e.handlers.ScanTargeted,
		} {
			if err := h(ctx, task(typ, struct{}{})); err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
	}
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's opening burst of 12 posts, each recorded once however often it is read.
	if len(ids) != 12 {
		t.Errorf("%d posts recorded, want 12", len(ids))
	}
	seen := map[post.Source]bool{}
	for _, id := range ids {
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seen[p.Source] = true
	}
	for _, src := range []post.Source{post.SourceMention, post.SourceConversation, post.SourceTargeted} {
		if !seen[src] {
			t.Errorf("no %s post recorded", src)
		}
	}
	cursor, err := e.store.Cursor(ctx, "sandbox", "mentions")
	if err != nil || cursor == "" {
		t.Errorf("mentions cursor not kept: %q %v", cursor, err)
	}
}

func TestDraftPost(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	profile, err := e.store.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.handlers.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: profile})); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Post(ctx, profile)
	if err != nil || p.Status != post.StatusPending || p.ProposedResponse == "" || p.Category == "" || p.Temperature != 0.3 {
		t.Fatalf("drafted profile post: %+v %v", p, err)
	}
	// A second delivery of the same task changes nothing.
	if err := e.handlers.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: profile})); err != nil {
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
	h := &tasks.Handlers{Store: e.store, Platform: e.plat, Writer: refusingWriter{}, Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Persona: "devil"}
	if err := h.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: refused})); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.Post(ctx, refused); p.Status != post.StatusFailed || !strings.Contains(p.Error, "declined") {
		t.Errorf("refused draft: %s %q, want failed with the reason", p.Status, p.Error)
	}
}

func TestDraftDropsNULFromTheModel(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	id, err := e.store.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	h := &tasks.Handlers{Store: e.store, Platform: e.plat, Writer: nulWriter{}, Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Persona: "devil"}
	if err := h.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatalf("a NUL from the model must not fail the draft: %v", err)
	}
	if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPending || p.ProposedResponse != "burning" {
		t.Errorf("draft %s %q, want pending \"burning\"", p.Status, p.ProposedResponse)
	}
}

func TestPoisonPayloadsSkipRetry(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		handler func(context.Context, *asynq.Task) error
		payload string
	}{
		{name: "send garbage", handler: e.handlers.SendPost, payload: `garbage`},
		{name: "send zero id", handler: e.handlers.SendPost, payload: `{"post_id":0}`},
		{name: "send unknown id", handler: e.handlers.SendPost, payload: `{"post_id":424242}`},
		{name: "draft string id", handler: e.handlers.DraftPost, payload: `{"post_id":"1"}`},
		{name: "draft unknown field", handler: e.handlers.DraftPost, payload: `{"post_id":1,"x":1}`},
		{name: "draft trailing data", handler: e.handlers.DraftPost, payload: `{"post_id":1}{}`},
		{name: "scan array", handler: e.handlers.ScanMentions, payload: `[]`},
		{name: "reconcile field", handler: e.handlers.Reconcile, payload: `{"all":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.handler(ctx, asynq.NewTask("x", []byte(tt.payload)))
			if !errors.Is(err, asynq.SkipRetry) {
				t.Errorf("got %v, want an error wrapping asynq.SkipRetry", err)
			}
		})
	}
}

func TestSendPost(t *testing.T) {
	tests := []struct {
		name       string
		fail       error
		wantStatus post.Status
		wantErr    bool
		wantError  string
	}{
		{name: "posted", wantStatus: post.StatusPosted},
		{name: "duplicate content fails the row at once", fail: &platform.Error{Status: 403, Title: "Forbidden", Detail: "You are not allowed to create a Tweet with duplicate content."},
			wantStatus: post.StatusFailed, wantError: "duplicate content"},
		{name: "server error is retried", fail: &platform.Error{Status: 503, Title: "Service Unavailable"}, wantStatus: post.StatusApproved, wantErr: true, wantError: "503"},
		{name: "rate limit is retried", fail: &platform.Error{Status: 429, Title: "Too Many Requests", RetryAt: time.Now().Add(time.Minute)}, wantStatus: post.StatusApproved, wantErr: true, wantError: "429"},
		{name: "network error is retried", fail: &platform.Error{Err: errors.New("connection reset")}, wantStatus: post.StatusApproved, wantErr: true, wantError: "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			id := e.approvedMention(t)
			if tt.fail != nil {
				e.plat.err.Store(&tt.fail)
			}
			err := e.handlers.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id}))
			if (err != nil) != tt.wantErr {
				t.Fatalf("SendPost error %v, want error %v", err, tt.wantErr)
			}
			p, _ := e.store.Post(ctx, id)
			if p.Status != tt.wantStatus || !strings.Contains(p.Error, tt.wantError) {
				t.Fatalf("post is %s with error %q, want %s with %q", p.Status, p.Error, tt.wantStatus, tt.wantError)
			}
			if tt.wantErr {
				// The fault clears; the retry posts exactly once.
				e.plat.err.Store(nil)
				if err := e.handlers.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
					t.Fatal(err)
				}
				if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPosted {
					t.Fatalf("after the retry the post is %s", p.Status)
				}
			}
			// A redelivered send of a posted row posts nothing more.
			if err := e.handlers.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			want := int32(0)
			if tt.wantStatus != post.StatusFailed {
				want = 1
			}
			if got := e.plat.published.Load(); got != want {
				t.Errorf("published %d times, want %d", got, want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	reset := time.Now().Add(90 * time.Second)
	tests := []struct {
		name string
		err  error
		min  time.Duration
		max  time.Duration
	}{
		{name: "rate limit waits for the reset", err: &platform.Error{Status: 429, RetryAt: reset}, min: 85 * time.Second, max: 95 * time.Second},
		{name: "rate limit in the past", err: &platform.Error{Status: 429, RetryAt: time.Now().Add(-time.Minute)}, min: time.Second, max: time.Second},
		{name: "a dead worker's task resumes at once", err: asynq.ErrLeaseExpired, min: time.Second, max: time.Second},
		{name: "other errors back off", err: errors.New("boom"), min: 0, max: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tasks.RetryDelay(1, tt.err, asynq.NewTask("x", nil))
			if got < tt.min || got > tt.max {
				t.Errorf("RetryDelay = %s, want between %s and %s", got, tt.min, tt.max)
			}
		})
	}
}

func TestRefreshMetrics(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	if err := e.handlers.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	if err := e.handlers.RefreshMetrics(ctx, task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
		t.Fatal(err)
	}
	eng, err := e.store.LatestEngagement(ctx)
	if err != nil || eng.WindowStart == nil {
		t.Fatalf("no engagement recorded: %+v %v", eng, err)
	}
	if d := time.Since(*eng.WindowStart); d < 23*time.Hour || d > 25*time.Hour {
		t.Errorf("window starts %s ago, want 24h", d)
	}
}
