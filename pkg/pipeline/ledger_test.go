package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"infernal/pkg/insights"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// ledgerTweet is one post of the X stand-in's timelines, in X's wire format.
type ledgerTweet struct {
	id, author, text, conversation string
	retweet, mentionsDevil         bool
}

func (tw ledgerTweet) wire() map[string]any {
	t := map[string]any{"id": tw.id, "text": tw.text, "author_id": tw.author, "conversation_id": tw.conversation,
		"created_at": time.Now().UTC().Format(time.RFC3339)}
	if tw.retweet {
		t["referenced_tweets"] = []map[string]string{{"type": "retweeted", "id": "1"}}
	}
	if tw.mentionsDevil {
		t["entities"] = map[string]any{"mentions": []map[string]string{{"id": "42", "username": "devil"}}}
	}
	return t
}

// timelineBody is X's answer of a timeline holding tweets, newest first.
func timelineBody(tweets []ledgerTweet) string {
	data := make([]map[string]any, 0, len(tweets))
	for i := len(tweets) - 1; i >= 0; i-- {
		data = append(data, tweets[i].wire())
	}
	users := []map[string]string{{"id": "42", "username": "devil", "name": "Devil"}}
	for _, tw := range tweets {
		users = append(users, map[string]string{"id": tw.author, "username": "u" + tw.author, "name": "U" + tw.author})
	}
	b, _ := json.Marshal(map[string]any{"data": data, "includes": map[string]any{"users": users},
		"meta": map[string]any{"result_count": len(data), "newest_id": tweets[len(tweets)-1].id, "oldest_id": tweets[0].id}})
	return string(b)
}

// ledgerWriter drafts every post but refuses those asking it to.
type ledgerWriter struct{}

func (ledgerWriter) Name() string { return "ledger" }

func (ledgerWriter) Write(_ context.Context, req writer.Request) (writer.Draft, error) {
	if strings.Contains(req.PostText, "refuse") {
		return writer.Draft{}, fmt.Errorf("the model declined: %w", writer.ErrRefused)
	}
	return writer.Draft{Text: "The furnace files " + req.PostText + " under sloth.", Category: "sloth",
		Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}, nil
}

// ledgerJudge scores 1 the drafts of posts asking for it, 5 the others.
type ledgerJudge struct{}

func (ledgerJudge) Judge(_ context.Context, req writer.Request, _ string) (post.Review, error) {
	if strings.Contains(req.PostText, "judge me low") {
		return post.Review{Score: 1, Reason: "Off character.", By: "ledger"}, nil
	}
	return post.Review{Score: 5, Reason: "Fine.", By: "ledger"}, nil
}

// Every post the scans return has a fate with its reason, whichever path
// dropped it: before recording (a repost, the persona's own post, a post
// it was not summoned to) or after (the guards, the judge, a failed
// draft); a lookup of the dropped repost says "retweet", and the funnel of
// them all adds up.
func TestLedgerCoversEveryDropPath(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	putSettings(t, e.store, settings.Settings{SearchTopics: []string{"sin"}, BlockedAuthors: []string{"u66"},
		Caps: settings.Caps{PerConversation: 1, PerAuthorPerDay: 1000, MinReviewScore: 3}})
	mentions := []ledgerTweet{
		{id: "101", author: "7", text: "@devil look at this", retweet: true, mentionsDevil: true, conversation: "101"},
		{id: "102", author: "42", text: "@devil my own words", mentionsDevil: true, conversation: "102"},
		{id: "103", author: "7", text: "@devil is coffee a sin?", mentionsDevil: true, conversation: "103"},
		{id: "104", author: "8", text: "@devil leave me alone", mentionsDevil: true, conversation: "104"},
		{id: "105", author: "66", text: "@devil buy my coin", mentionsDevil: true, conversation: "105"},
		{id: "106", author: "9", text: "@devil judge me low", mentionsDevil: true, conversation: "106"},
		{id: "107", author: "10", text: "@devil please refuse", mentionsDevil: true, conversation: "107"},
		{id: "108", author: "11", text: "@devil me too", mentionsDevil: true, conversation: "103"},
	}
	search := []ledgerTweet{{id: "201", author: "12", text: "a sin nobody asked the devil about", conversation: "201"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/2/users/me":
			_, _ = io.WriteString(w, `{"data":{"id":"42","username":"devil","name":"Devil"}}`)
		case "/2/users/42/mentions":
			_, _ = io.WriteString(w, timelineBody(mentions))
		case "/2/tweets/search/recent":
			_, _ = io.WriteString(w, timelineBody(search))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"title":"Not Found Error","detail":"no such path","type":"about:blank"}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	sc := e.pipe.Scanner
	sc.Platform, sc.Self, sc.HandPosting = c, pipeline.NewSelf(c), nil
	if err := sc.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if err := sc.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
		t.Fatal(err)
	}
	d := &pipeline.Drafter{Store: e.store, Writer: ledgerWriter{}, Judge: ledgerJudge{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	for _, id := range []string{"103", "104", "105", "106", "107", "108"} {
		f, err := e.store.LookupPost(ctx, "x", id)
		if err != nil {
			t.Fatalf("post %s not recorded: %v", id, err)
		}
		if f.Status != insights.FateWaiting {
			t.Errorf("post %s before drafting: %s, want waiting", id, f.Status)
		}
		// A refusal fails the post at any attempt.
		if err := d.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: f.PostID})); err != nil {
			t.Fatalf("draft %s: %v", id, err)
		}
	}
	tests := []struct {
		id, status, reason string
		recorded           bool
	}{
		{id: "101", status: insights.FateSkipped, reason: insights.DropRetweet},
		{id: "102", status: insights.FateSkipped, reason: insights.DropOwnPost},
		{id: "201", status: insights.FateSkipped, reason: insights.DropNotSummoned},
		{id: "103", status: insights.FatePending, recorded: true},
		{id: "104", status: insights.FateSkipped, reason: "opt-out", recorded: true},
		{id: "105", status: insights.FateSkipped, reason: "blocked author", recorded: true},
		{id: "106", status: insights.FateSkipped, reason: "second opinion", recorded: true},
		{id: "107", status: insights.FateSkipped, reason: insights.ReasonDraftFailed, recorded: true},
		{id: "108", status: insights.FateSkipped, reason: "cap", recorded: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			f, err := e.store.LookupPost(ctx, "x", tt.id)
			if err != nil {
				t.Fatal(err)
			}
			got := f.Status
			if f.Status == insights.FateSkipped {
				got += ": " + insights.ReasonCode(f.Reason)
			}
			want := tt.status
			if tt.reason != "" {
				want += ": " + tt.reason
			}
			if got != want || (f.PostID != 0) != tt.recorded {
				t.Errorf("fate %q (row %d), want %q (recorded %v)", got, f.PostID, want, tt.recorded)
			}
		})
	}
	if _, err := e.store.LookupPost(ctx, "x", "999"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a post never returned: %v, want ErrNotFound", err)
	}
	last, err := e.store.LastScanOf(ctx, "x", "mentions")
	if err != nil || last.NewestID != "108" {
		t.Errorf("last mentions scan %+v, %v; want it to have covered 108", last, err)
	}
	in, err := e.store.Insights(ctx, store.InsightsQuery{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour), TZ: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	f := insights.NewFunnel()
	for _, fc := range in.Fates {
		fate, reason := insights.FateOf(post.Status(fc.Status), fc.Reason, "", fc.Approved)
		f.Add(fate, reason, fc.N, fc.Edited, fc.Autopilot)
	}
	if !f.Check() || f.Seen != int64(len(tests)) || f.Drafted != 1 || len(f.Skipped) != len(tests)-1 {
		t.Errorf("funnel %+v: want %d posts seen, 1 drafted, one per other reason, and its sums to agree", f, len(tests))
	}
}
