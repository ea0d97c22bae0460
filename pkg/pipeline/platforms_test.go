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
	if _, err := e.store.Approve(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
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

func itoa(n int64) string {
	b, err := json.Marshal(n)
	if err != nil {
		panic(err)
	}
	return string(b)
}
