package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// requestWriter records every request it is given.
type requestWriter struct {
	mu   sync.Mutex
	seen []writer.Request
}

func (w *requestWriter) Name() string { return "requests" }

func (w *requestWriter) Write(_ context.Context, req writer.Request) (writer.Draft, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, req)
	return writer.Draft{Text: "The furnace read your warning.", Category: "wrath"}, nil
}

func (w *requestWriter) last() writer.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[len(w.seen)-1]
}

// A Mastodon mention behind a content warning is kept with the warning
// apart from its text and with its own page; its draft is written under
// the server's limit less the warning (the reply carries it), with the
// warning given to the writer, and the post keeps the server's limit, for
// the draft and for a regenerated one; a worker that could not read the
// server's limit keeps none (the descriptor's 500).
func TestMastodonWarningAndLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token})
	if err != nil {
		t.Fatal(err)
	}
	id := srv.PostWithWarning("erin", "@infernal spoilers ahead", "film ending", "de")
	for _, tt := range []struct {
		name       string
		serverMax  int
		wantStored int
		wantLimit  int
	}{
		{name: "the server's limit", serverMax: 1000, wantStored: 1000, wantLimit: 1000 - 11},
		{name: "the limit unread", serverMax: 0, wantStored: 0, wantLimit: 500 - 11},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &requestWriter{}
			pipe := pipeline.New(pipeline.Config{Store: e.store, Writer: w, Queue: e.queue,
				Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "infernal",
				Accounts: []pipeline.Account{{Platform: c, ReplyPolicy: platform.ReplyOpen, MaxLength: tt.serverMax}}})
			if err := pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
				t.Fatal(err)
			}
			found, err := e.store.LookupPost(ctx, "mastodon", id)
			if err != nil || found.PostID == 0 {
				t.Fatalf("lookup: %+v %v", found, err)
			}
			p, err := e.store.Post(ctx, found.PostID)
			if err != nil {
				t.Fatal(err)
			}
			if p.OriginalPostText != "@infernal spoilers ahead" || p.ContentWarning != "film ending" || p.WebURL != srv.URL+"/@erin/"+id ||
				p.Language != "de" {
				t.Fatalf("kept text %q, warning %q, page %q, language %q", p.OriginalPostText, p.ContentWarning, p.WebURL, p.Language)
			}
			if p.ProposedResponse == "" {
				err = pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: p.ID}))
			} else {
				// Drafted by the first run: regenerated under this worker's limit.
				err = pipe.Drafter.Regenerate(ctx, task(tasks.TypeRegeneratePost, tasks.RegeneratePayload{PostID: p.ID}))
			}
			if err != nil {
				t.Fatal(err)
			}
			if req := w.last(); req.ContentWarning != "film ending" || req.MaxLength != tt.wantLimit {
				t.Errorf("request warning %q limit %d, want film ending and %d", req.ContentWarning, req.MaxLength, tt.wantLimit)
			}
			p, err = e.store.Post(ctx, p.ID)
			if err != nil || p.MaxLength != tt.wantStored || p.Limit() != tt.wantLimit {
				t.Errorf("stored limit %d (in force %d), %v; want %d (%d)", p.MaxLength, p.Limit(), err, tt.wantStored, tt.wantLimit)
			}
		})
	}
	// The decision's case keeps the language the server gave the status.
	found, err := e.store.LookupPost(ctx, "mastodon", id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ApproveWith(ctx, found.PostID, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	cases, _, err := e.store.Cases(ctx, "spoilers", 1)
	if err != nil || len(cases) != 1 || cases[0].Language != "de" {
		t.Fatalf("cases = %+v, %v; want one in de", cases, err)
	}
}
