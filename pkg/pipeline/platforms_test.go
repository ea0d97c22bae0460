package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/guard"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// renamed is a platform under another name: the sandbox standing in for a
// second platform.
type renamed struct {
	platform.Platform
	name string
}

func (r renamed) Name() string { return r.name }

// With two platforms, a periodic task runs on the platform its payload
// names (the first one when it names none), a post's task on the post's
// platform, and a task for a platform the worker does not run is archived.
func TestPipelineRoutesByPlatform(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	other := &faultyPlatform{Platform: renamed{Platform: e.plat.Platform, name: "bluesky"}}
	pipe := pipeline.New(pipeline.Config{
		Store: e.store, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
		Accounts: []pipeline.Account{{Platform: e.plat}, {Platform: other, ReplyPolicy: platform.ReplyOpen, Handle: "devil.test"}},
	})
	// Each platform's stages know the persona by its handle there.
	if pipe.Drafter.Handle != "devil" {
		t.Errorf("the first platform's drafter knows the persona as %q, want devil", pipe.Drafter.Handle)
	}
	mux := asynq.NewServeMux()
	pipe.Register(mux)
	run := func(typ, payload string) error { return mux.ProcessTask(ctx, asynq.NewTask(typ, []byte(payload))) }

	platformsOf := func() map[string]int {
		ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, id := range ids {
			name, err := e.store.PostPlatform(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			n[name]++
		}
		return n
	}
	if err := run(tasks.TypeScanMentions, `{"platform":"bluesky"}`); err != nil {
		t.Fatalf("scan bluesky: %v", err)
	}
	if got := platformsOf(); got["bluesky"] == 0 || got[post.SandboxPlatform] != 0 {
		t.Fatalf("after a bluesky scan the drafts are by platform %v, want bluesky's only", got)
	}
	if err := run(tasks.TypeScanMentions, `{}`); err != nil {
		t.Fatalf("scan without a platform: %v", err)
	}
	if got := platformsOf(); got[post.SandboxPlatform] == 0 {
		t.Fatalf("a scan naming no platform ran on %v, want the first platform (sandbox) too", got)
	}
	for _, payload := range []string{`{"platform":"myspace"}`, `{"platform":"X!"}`, `[]`} {
		if err := run(tasks.TypeScanMentions, payload); !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("scan %s = %v, want an error wrapping asynq.SkipRetry", payload, err)
		}
	}
	if err := run(tasks.TypeScanMentions, `{"platform":"myspace"}`); !errors.Is(err, pipeline.ErrOtherPlatform) {
		t.Errorf("scan for a platform not run = %v, want ErrOtherPlatform", err)
	}

	// A bluesky post is drafted and sent by bluesky's stages.
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	for _, candidate := range ids {
		if name, err := e.store.PostPlatform(ctx, candidate); err == nil && name == "bluesky" {
			id = candidate
			break
		}
	}
	if id == 0 {
		t.Fatal("no bluesky draft")
	}
	payload := `{"post_id":` + itoa(id) + `}`
	if err := run(tasks.TypeDraftPost, payload); err != nil {
		t.Fatalf("draft: %v", err)
	}
	approve(t, e.store, e.queue, id)
	if err := run(tasks.TypeSendPost, payload); err != nil {
		t.Fatalf("send: %v", err)
	}
	if other.published.Load() != 1 || e.plat.published.Load() != 0 {
		t.Errorf("published on bluesky %d, sandbox %d; want 1 and 0", other.published.Load(), e.plat.published.Load())
	}
	// The persona's own post is told by its handle on that platform: on
	// bluesky "devil.test" is the persona, on the sandbox a mortal.
	for _, tt := range []struct {
		platform string
		wantOwn  bool
	}{{"bluesky", true}, {post.SandboxPlatform, false}} {
		id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: tt.platform, Source: post.SourceMention, OriginalPostID: "own-" + tt.platform,
			ConversationID: "own-" + tt.platform, OriginalPostText: "a post by devil.test", AuthorUsername: "devil.test", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := run(tasks.TypeDraftPost, `{"post_id":`+itoa(id)+`}`); err != nil {
			t.Fatalf("draft on %s: %v", tt.platform, err)
		}
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if own := p.SkipReason == guard.ReasonOwnPost; own != tt.wantOwn {
			t.Errorf("a post by devil.test on %s: %s %q; want own post %v", tt.platform, p.Status, p.SkipReason, tt.wantOwn)
		}
	}

	// A post's task for a post that is gone is answered as before: archived.
	if err := run(tasks.TypeSendPost, `{"post_id":424242}`); !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("send of an unknown post = %v, want an error wrapping asynq.SkipRetry", err)
	}
}

// A draft task is routed by the platform its payload names, without
// reading the post's row: a scan queues each draft with its platform, and a
// draft task naming bluesky is drafted by bluesky's stages even for a row
// that says otherwise. A draft task queued before payloads named the
// platform is routed by the post's row.
func TestDraftRoutedByItsPayload(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	other := &faultyPlatform{Platform: renamed{Platform: e.plat.Platform, name: "bluesky"}}
	pipe := pipeline.New(pipeline.Config{
		Store: e.store, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
		Accounts: []pipeline.Account{{Platform: e.plat}, {Platform: other, ReplyPolicy: platform.ReplyOpen, Handle: "devil.test"}},
	})
	mux := asynq.NewServeMux()
	pipe.Register(mux)
	run := func(typ, payload string) error { return mux.ProcessTask(ctx, asynq.NewTask(typ, []byte(payload))) }

	if err := run(tasks.TypeScanMentions, `{"platform":"bluesky"}`); err != nil {
		t.Fatalf("scan bluesky: %v", err)
	}
	queued, err := e.queue.Inspector().ListPendingTasks(tasks.QueueHigh, asynq.PageSize(1000))
	if err != nil || len(queued) == 0 {
		t.Fatalf("drafts queued by a bluesky scan: %d, %v", len(queued), err)
	}
	for _, info := range queued {
		payload, err := tasks.DecodePost(asynq.NewTask(info.Type, info.Payload))
		if err != nil || payload.Platform != "bluesky" {
			t.Fatalf("a bluesky scan queued the draft %s (%+v, %v), want its platform named", info.Payload, payload, err)
		}
	}

	// A post by devil.test is the persona's own on bluesky (skipped as
	// such), a mortal's on the sandbox: which stage drafted it shows.
	tests := []struct {
		name     string
		row      string
		platform string
		wantOwn  bool
	}{
		{name: "the payload's platform, not the row's", row: post.SandboxPlatform, platform: "bluesky", wantOwn: true},
		{name: "the payload names the row's platform", row: post.SandboxPlatform, platform: post.SandboxPlatform, wantOwn: false},
		{name: "queued without a platform: the row's", row: "bluesky", wantOwn: true},
		{name: "queued without a platform on the sandbox", row: post.SandboxPlatform, wantOwn: false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: tt.row, Source: post.SourceMention, OriginalPostID: "routed-" + itoa(int64(i)),
				ConversationID: "routed-" + itoa(int64(i)), OriginalPostText: "a post by devil.test", AuthorUsername: "devil.test", CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			payload := `{"post_id":` + itoa(id) + `}`
			if tt.platform != "" {
				payload = `{"post_id":` + itoa(id) + `,"platform":"` + tt.platform + `"}`
			}
			if err := run(tasks.TypeDraftPost, payload); err != nil {
				t.Fatalf("draft %s: %v", payload, err)
			}
			p, err := e.store.Post(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if own := p.SkipReason == guard.ReasonOwnPost; own != tt.wantOwn {
				t.Errorf("draft %s of a %s row: %s %q; want own post %v", payload, tt.row, p.Status, p.SkipReason, tt.wantOwn)
			}
		})
	}

	// Garbage and a platform this worker does not run are archived.
	for _, payload := range []string{`{"post_id":1,"platform":"X!"}`, `{"post_id":1,"platform":7}`, `{"platform":"bluesky"}`, `garbage`} {
		if err := run(tasks.TypeDraftPost, payload); !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("draft %s = %v, want an error wrapping asynq.SkipRetry", payload, err)
		}
	}
	if err := run(tasks.TypeDraftPost, `{"post_id":1,"platform":"myspace"}`); !errors.Is(err, pipeline.ErrOtherPlatform) {
		t.Errorf("draft for a platform not run = %v, want ErrOtherPlatform", err)
	}
}

func itoa(n int64) string {
	b, err := json.Marshal(n)
	if err != nil {
		panic(err)
	}
	return string(b)
}
