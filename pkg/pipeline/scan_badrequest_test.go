package pipeline_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform/x"
	"infernal/pkg/tasks"
)

// invalidExpansion is X's 400 for an expansion its API no longer knows.
const invalidExpansion = "{\"errors\":[{\"parameters\":{\"expansions\":[\"referenced_tweets.id\"]},\"message\":\"The `expansions` query parameter value [referenced_tweets.id] is not one of [author_id,referenced_posts.id]\"}],\"title\":\"Invalid Request\",\"detail\":\"One or more parameters to your request was invalid.\",\"type\":\"https://api.twitter.com/2/problems/invalid-request\"}"

// A timeline X answers with a 400 naming an invalid expansion is paused
// after one call, without failing the task, while the account's other
// timelines are still read.
func TestRejectedRequestPausesTheTimeline(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var mentions, searches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/2/users/me":
			_, _ = io.WriteString(w, `{"data":{"id":"42","username":"devil","name":"Devil"}}`) // a hung-up client fails the scan, reported there
		case "/2/users/42/mentions":
			mentions.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, invalidExpansion)
		default:
			searches.Add(1)
			_, _ = io.WriteString(w, `{"meta":{"result_count":0}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	e.pipe.Scanner.Platform = c
	e.pipe.Scanner.Self = pipeline.NewSelf(c)
	ctx := context.Background()
	tests := []struct {
		name         string
		wantMentions int32
		wantSearches int32
	}{
		// One call in each naming: neither cures this 400.
		{name: "the rejected read", wantMentions: 2, wantSearches: 1},
		{name: "the next run", wantMentions: 2, wantSearches: 2},
		{name: "the run after", wantMentions: 2, wantSearches: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := e.pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
				t.Errorf("ScanMentions: %v, want the timeline paused, not the task failed", err)
			}
			if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
				t.Errorf("ScanConversations: %v", err)
			}
			if got := mentions.Load(); got != tt.wantMentions {
				t.Errorf("%d mentions calls, want %d", got, tt.wantMentions)
			}
			if got := searches.Load(); got != tt.wantSearches {
				t.Errorf("%d searches, want %d (the other timelines go on)", got, tt.wantSearches)
			}
			if p, err := e.store.ActivePause(ctx, c.Name(), time.Now()); err != nil || p != nil {
				t.Errorf("account pause %+v, %v; want none", p, err)
			}
			pauses, err := e.store.TimelinePauses(ctx, time.Now())
			if err != nil || len(pauses) != 1 || pauses[0].Platform != c.Name() || pauses[0].Timeline != "mentions" ||
				pauses[0].Reason == "" || pauses[0].Until.Sub(pauses[0].Since) != pipeline.TimelinePause {
				t.Errorf("timeline pauses %+v, %v; want mentions paused for %v", pauses, err, pipeline.TimelinePause)
			}
		})
	}
}
