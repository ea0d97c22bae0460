package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/post"
	"infernal/pkg/ratelimit"
)

// signalling passes calls to a ratelimit.Sessions and tells, through
// began, each call it let through.
type signalling struct {
	*ratelimit.Sessions
	began chan struct{}
}

func (s signalling) Begin(ctx context.Context, session string) (func(context.Context) error, time.Duration, error) {
	release, wait, err := s.Sessions.Begin(ctx, session)
	if release != nil {
		s.began <- struct{}{}
	}
	return release, wait, err
}

// Previews and regenerations of one session: one in flight at a time and
// at most 10 a minute; beyond, a 429 with Retry-After and a message the
// admin shows. Another session is not held back.
func TestPreviewAndRegenerateBounded(t *testing.T) {
	t.Parallel()
	e := setup(t)
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	calls := signalling{Sessions: ratelimit.NewSessions(rdb, 10, time.Minute, time.Minute, clock), began: make(chan struct{}, 100)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	authn, err := auth.NewService(e.store, 12*time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	// No worker runs: a regenerate waits out its RegenerateWait and answers 202, a preview its PreviewWait and 503.
	srv := httptest.NewServer(api.New(api.Config{Store: e.store, Auth: authn, Queue: e.queue, Log: log, Handle: "devil", Platform: "sandbox",
		RegenerateWait: 300 * time.Millisecond, PreviewWait: 50 * time.Millisecond, ModelCalls: calls}))
	t.Cleanup(srv.Close)
	id := e.pending("m1", post.SourceMention, 0, "Hell is warm.")
	regenerate := "/api/posts/" + strconv.FormatInt(id, 10) + "/regenerate"
	call := func(path, token, body string) (*http.Response, string) {
		t.Helper()
		return send(t, http.MethodPost, srv.URL+path, body, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
	}
	wantRefused := func(resp *http.Response, body string) {
		t.Helper()
		retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusTooManyRequests || err != nil || retry < 1 || retry > 60 ||
			errorOf(t, body) != "too many previews and regenerations: one at a time, at most 10 a minute; try again in "+resp.Header.Get("Retry-After")+" s" {
			t.Errorf("%d Retry-After %q %s; want 429 with Retry-After and the message", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}

	// One in flight: while a regenerate waits for its draft, the same session's next preview and regenerate are refused.
	done := make(chan int)
	go func() {
		resp, _ := call(regenerate, e.token, `{}`)
		done <- resp.StatusCode
	}()
	<-calls.began
	wantRefused(call("/api/persona/preview", e.token, `{"post_text":"hi"}`))
	wantRefused(call(regenerate, e.token, `{}`))
	other := e.login()
	if resp, body := call("/api/persona/preview", other, `{"post_text":"hi"}`); resp.StatusCode == http.StatusTooManyRequests {
		t.Errorf("another session was refused: %s", body)
	}
	<-calls.began
	if status := <-done; status != http.StatusAccepted {
		t.Errorf("the regenerate in flight answered %d, want 202", status)
	}

	// Nine more one after the other make ten in the minute; the eleventh is refused, the next minute allows again.
	for i := range 9 {
		path, body, want := regenerate, `{}`, http.StatusAccepted
		if i%2 == 1 {
			path, body, want = "/api/persona/preview", `{"post_text":"hi"}`, http.StatusServiceUnavailable
		}
		if resp, out := call(path, e.token, body); resp.StatusCode != want {
			t.Fatalf("call %d: %d %s, want %d", i+2, resp.StatusCode, out, want)
		}
		<-calls.began
	}
	wantRefused(call("/api/persona/preview", e.token, `{"post_text":"hi"}`))
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if resp, out := call("/api/persona/preview", e.token, `{"post_text":"hi"}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a minute later: %d %s, want the preview asked (503, no worker)", resp.StatusCode, out)
	}
}
