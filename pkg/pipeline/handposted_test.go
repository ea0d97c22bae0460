package pipeline_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// handXPersona is the persona's id on the X stand-in.
const handXPersona = "1700000000000000001"

// handX is a stand-in of X's API v2 for the hand-posted lookup: the
// persona (GET /2/users/me), its timeline (GET /2/users/:id/tweets), which
// answers a 429 while limited, and the metrics of posts (GET /2/tweets?ids=).
type handX struct {
	srv *httptest.Server

	mu       sync.Mutex
	limited  bool
	timeline []map[string]any
	reads    []string // the since_id of every timeline read
	metrics  int      // GET /2/tweets requests
}

func newHandX(t *testing.T) *handX {
	t.Helper()
	h := &handX{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2/users/me", func(w http.ResponseWriter, _ *http.Request) {
		writeXJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"id": handXPersona, "username": "devil", "name": "Devil"}})
	})
	mux.HandleFunc("GET /2/users/{id}/tweets", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.reads = append(h.reads, r.URL.Query().Get("since_id"))
		if h.limited {
			w.Header().Set("x-rate-limit-limit", "900")
			w.Header().Set("x-rate-limit-remaining", "0")
			w.Header().Set("x-rate-limit-reset", "4102444800")
			writeXJSON(w, http.StatusTooManyRequests, map[string]any{"title": "Too Many Requests", "detail": "Too Many Requests", "type": "about:blank", "status": 429})
			return
		}
		if r.PathValue("id") != handXPersona {
			writeXJSON(w, http.StatusBadRequest, map[string]any{"title": "Invalid Request", "detail": "unknown user", "status": 400})
			return
		}
		writeXJSON(w, http.StatusOK, map[string]any{"data": h.timeline, "meta": map[string]any{"result_count": len(h.timeline)}})
	})
	mux.HandleFunc("GET /2/tweets", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.metrics++
		var data []map[string]any
		for id := range strings.SplitSeq(r.URL.Query().Get("ids"), ",") {
			data = append(data, map[string]any{"id": id, "text": "posted", "public_metrics": map[string]int{"like_count": 7, "retweet_count": 1, "reply_count": 2}})
		}
		writeXJSON(w, http.StatusOK, map[string]any{"data": data})
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func writeXJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(err)
	}
}

// replyByHand puts the persona's reply id, answering original, on its timeline, newest first.
func (h *handX) replyByHand(id, original, text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tw := map[string]any{"id": id, "text": text, "author_id": handXPersona, "created_at": "2026-03-01T12:00:00.000Z",
		"referenced_tweets": []map[string]string{{"type": "replied_to", "id": original}}}
	h.timeline = append([]map[string]any{tw}, h.timeline...)
}

func (h *handX) counts() (reads []string, metrics int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.reads...), h.metrics
}

// handEnv is a maintainer with the real X client pointed at a handX.
type handEnv struct {
	x     *handX
	maint *pipeline.Maintainer
	queue *tasks.Client
}

func newHandEnv(t *testing.T) *handEnv {
	t.Helper()
	st := storetest.New(t)
	queue, err := tasks.NewClient(taskstest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	hx := newHandX(t)
	xc, err := x.New(x.Config{BaseURL: hx.srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "a",
		HTTPClient: &http.Client{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	pipe := pipeline.New(pipeline.Config{Store: st, Platform: xc, Queue: queue, Now: time.Now, Handle: "devil",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &handEnv{x: hx, maint: pipe.Maintainer, queue: queue}
}

// awaiting records a post answering original, approved for hand-posting.
func (e *handEnv) awaiting(t *testing.T, original, draft string) int64 {
	t.Helper()
	var id int64
	err := e.maint.Store.Pool().QueryRow(context.Background(), `INSERT INTO posts
		(platform, source, original_post_id, original_post_text, proposed_response, status, reply_route, approved_at)
		VALUES ('x', 'conversation', $1, 'a mortal''s post', $2, 'awaiting_manual', 'manual', now()) RETURNING id`,
		original, draft).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// posted records a reply posted through the API as responseID.
func (e *handEnv) posted(t *testing.T, original, responseID string) int64 {
	t.Helper()
	var id int64
	err := e.maint.Store.Pool().QueryRow(context.Background(), `INSERT INTO posts
		(platform, source, original_post_id, proposed_response, status, reply_route, approved_at, posted_at, response_post_id)
		VALUES ('x', 'mention', $1, 'sent', 'posted', 'api', now(), now(), $2) RETURNING id`,
		original, responseID).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *handEnv) refresh(t *testing.T) {
	t.Helper()
	if err := e.maint.RefreshMetrics(context.Background(), task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
		t.Fatalf("refresh: %v", err)
	}
}

// The hand-posted lookup never holds the metrics back: while X refuses the
// timeline with a 429, the refresh still reads and stores the metrics.
func TestRefreshMetricsDespiteHandPostedLookupFailing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		limited   bool
		wantLikes int
		wantReads int
	}{
		{name: "timeline rate-limited", limited: true, wantLikes: 7, wantReads: 1},
		{name: "timeline readable", limited: false, wantLikes: 7, wantReads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHandEnv(t)
			e.x.limited = tt.limited
			e.awaiting(t, "1800000000000000010", "draft")
			sent := e.posted(t, "1800000000000000005", "1800000000000000006")
			e.refresh(t)
			var likes int
			err := e.maint.Store.Pool().QueryRow(context.Background(), `SELECT response_likes FROM posts WHERE id = $1`, sent).Scan(&likes)
			if err != nil || likes != tt.wantLikes {
				t.Errorf("likes of the posted reply %d (%v), want %d", likes, err, tt.wantLikes)
			}
			if reads, metrics := e.x.counts(); len(reads) != tt.wantReads || metrics != 1 {
				t.Errorf("%d timeline reads and %d metrics reads, want %d and 1", len(reads), metrics, tt.wantReads)
			}
		})
	}
}

// However many posts await a hand-posted reply, one refresh reads the
// persona's timeline once, from the oldest post answered on, and records
// every reply found with its id and its text as posted; a second refresh
// within the interval, in another worker too, reads nothing; once the
// interval has lapsed, the next refresh looks again.
func TestHandPostedLookupOneReadPerInterval(t *testing.T) {
	t.Parallel()
	e := newHandEnv(t)
	ctx := context.Background()
	// Long enough that a loaded machine does the refreshes meant to fall
	// within one interval inside it.
	e.maint.HandPostedEvery = 3 * time.Second
	originals := []string{"1800000000000000030", "1800000000000000020", "900000000000000040"}
	ids := make([]int64, len(originals))
	for i, o := range originals {
		ids[i] = e.awaiting(t, o, "the draft")
	}
	e.x.replyByHand("1800000000000000101", originals[0], "edited by hand &amp; posted")
	e.x.replyByHand("1800000000000000102", originals[2], "another one")
	e.x.replyByHand("1800000000000000103", "1800000000000000099", "a reply to something else")
	e.refresh(t)

	tests := []struct {
		name     string
		id       int64
		want     post.Status
		wantID   string
		wantText string
	}{
		{name: "found", id: ids[0], want: post.StatusPosted, wantID: "1800000000000000101", wantText: "edited by hand & posted"},
		{name: "not posted yet", id: ids[1], want: post.StatusAwaitingManual, wantText: "the draft"},
		{name: "found, older original", id: ids[2], want: post.StatusPosted, wantID: "1800000000000000102", wantText: "another one"},
	}
	for _, tt := range tests {
		p, err := e.maint.Store.Post(ctx, tt.id)
		if err != nil || p.Status != tt.want || p.ResponsePostID != tt.wantID || p.ProposedResponse != tt.wantText {
			t.Errorf("%s: %s as %q with %q (%v), want %s as %q with %q", tt.name, p.Status, p.ResponsePostID, p.ProposedResponse, err, tt.want, tt.wantID, tt.wantText)
		}
	}
	if reads, _ := e.x.counts(); len(reads) != 1 || reads[0] != originals[2] {
		t.Fatalf("timeline reads since %q, want one since the oldest original %s", reads, originals[2])
	}

	e.x.replyByHand("1800000000000000104", originals[1], "late but here")
	e.refresh(t)
	other := pipeline.Maintainer{Store: e.maint.Store, Platform: e.maint.Platform, Queue: e.queue, Log: e.maint.Log,
		Now: time.Now, Self: e.maint.Self, HandPostedEvery: time.Hour}
	if err := other.RefreshMetrics(ctx, task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if reads, _ := e.x.counts(); len(reads) != 1 {
		t.Fatalf("refreshes within the interval read the timeline %d times in all, want 1", len(reads))
	}
	// Once the interval has lapsed, a refresh looks again: refresh until
	// one has, within a bound far past the interval.
	for deadline := time.Now().Add(4 * e.maint.HandPostedEvery); ; {
		time.Sleep(200 * time.Millisecond)
		e.refresh(t)
		if reads, _ := e.x.counts(); len(reads) > 1 || time.Now().After(deadline) {
			break
		}
	}
	if reads, _ := e.x.counts(); len(reads) != 2 || reads[1] != originals[1] {
		t.Fatalf("after the interval: timeline reads since %q, want a second since %s", reads, originals[1])
	}
	if p, err := e.maint.Store.Post(ctx, ids[1]); err != nil || p.Status != post.StatusPosted || p.ResponsePostID != "1800000000000000104" {
		t.Errorf("late reply: %s as %q (%v), want posted as 1800000000000000104", p.Status, p.ResponsePostID, err)
	}
}
