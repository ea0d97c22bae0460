package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/writer/offline"
)

var entries = []corpus.Entry{
	{Username: "m1", Name: "M One", Kind: "mention", Text: "@{persona} hello"},
	{Username: "t1", Name: "T One", Kind: "topic", Text: "mondays again"},
	{Username: "g1", Name: "G One", Kind: "target", Text: "buy my course"},
}

// faultyPlatform fails Publish with a scripted error while err is set, and
// counts the searches it is asked for.
type faultyPlatform struct {
	platform.Platform
	err       atomic.Pointer[error]
	published atomic.Int32
	searches  atomic.Int32
}

func (f *faultyPlatform) Search(ctx context.Context, query string, r platform.Range) (platform.Page, error) {
	f.searches.Add(1)
	return f.Platform.Search(ctx, query, r)
}

func (f *faultyPlatform) Publish(ctx context.Context, text, inReplyTo string) (platform.Post, error) {
	if e := f.err.Load(); e != nil {
		return platform.Post{}, *e
	}
	f.published.Add(1)
	return f.Platform.Publish(ctx, text, inReplyTo)
}

type env struct {
	store    *store.Store
	queue    *tasks.Client
	redisURL string
	plat     *faultyPlatform
	pipe     *pipeline.Pipeline
}

func setup(t testing.TB) *env {
	t.Helper()
	st := storetest.New(t)
	// Send caps far above what a test sends: the tests of the caps set their own.
	caps := settings.DefaultCaps()
	caps.SendsPer3Hours, caps.SendsPerDay = 1000, 1000
	if err := st.PutSettings(context.Background(), settings.Settings{SearchTopics: []string{"x"}, TargetUsernames: []string{"g1", "nobody_here"}, Caps: caps}); err != nil {
		t.Fatal(err)
	}
	redisURL := taskstest.RedisURL(t)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	sb, err := sandbox.New(st.Pool(), "devil", time.Hour, entries, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	plat := &faultyPlatform{Platform: sb}
	return &env{store: st, queue: queue, redisURL: redisURL, plat: plat, pipe: pipeline.New(pipeline.Config{
		Store: st, Platform: plat, Writer: offline.New("devil"), Queue: queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
		HandPosting: []post.Source{post.SourceConversation, post.SourceTargeted},
	})}
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
	if err := e.pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
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
	if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: ids[0]})); err != nil {
		t.Fatal(err)
	}
	approve(t, e.store, e.queue, ids[0])
	return ids[0]
}

func TestPoisonPayloadsSkipRetry(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		handler func(context.Context, *asynq.Task) error
		payload string
	}{
		{name: "send garbage", handler: e.pipe.Sender.SendPost, payload: `garbage`},
		{name: "send zero id", handler: e.pipe.Sender.SendPost, payload: `{"post_id":0}`},
		{name: "send unknown id", handler: e.pipe.Sender.SendPost, payload: `{"post_id":424242}`},
		{name: "draft string id", handler: e.pipe.Drafter.DraftPost, payload: `{"post_id":"1"}`},
		{name: "draft unknown field", handler: e.pipe.Drafter.DraftPost, payload: `{"post_id":1,"x":1}`},
		{name: "draft trailing data", handler: e.pipe.Drafter.DraftPost, payload: `{"post_id":1}{}`},
		{name: "scan array", handler: e.pipe.Scanner.ScanMentions, payload: `[]`},
		{name: "reconcile field", handler: e.pipe.Maintainer.Reconcile, payload: `{"all":true}`},
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
