package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"infernal/pkg/embeddings"
	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/writer"
	"infernal/pkg/writer/openai"
	"infernal/pkg/writer/openai/openaitest"
)

// standIn serves s on loopback for the test.
func standIn(t *testing.T, s *openaitest.Server) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// worker is one worker process's writer: its own Redis connection to the
// shared windows, its own slots.
func worker(t *testing.T, base, redisURL string, concurrency int) *openai.Writer {
	t.Helper()
	var limiter openai.Limiter
	if redisURL != "" {
		windows, err := ratelimit.Open(redisURL, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = windows.Close() }) // closing a test's connection can only fail if already closed
		limiter = windows
	}
	w, err := openai.New(openai.Config{BaseURL: base, Model: "stand-in", Concurrency: concurrency, Limiter: limiter})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// writeAll drafts n posts at once through the writers in turn and returns
// the errors.
func writeAll(ws []*openai.Writer, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = ws[i%len(ws)].Write(context.Background(),
				writer.Request{Kind: writer.KindReply, PostText: fmt.Sprintf("post %d", i), Author: "mortal"})
		})
	}
	wg.Wait()
	return errs
}

func TestConcurrencyBoundsCallsInFlight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		concurrency int
		calls       int
		want        int
	}{
		{name: "one", concurrency: 1, calls: 4, want: 1},
		{name: "three of twelve", concurrency: 3, calls: 12, want: 3},
		{name: "more slots than calls", concurrency: 16, calls: 5, want: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A local server announcing no limits runs at the concurrency;
			// the stand-in holds each call until as many are in flight as
			// the concurrency should allow, so a loaded machine starting the
			// calls late cannot hide it.
			s := openaitest.New(openaitest.Config{Latency: 50 * time.Millisecond, Gather: tt.want})
			w := worker(t, standIn(t, s), "", tt.concurrency)
			for i, err := range writeAll([]*openai.Writer{w}, tt.calls) {
				if err != nil {
					t.Errorf("write %d: %v", i, err)
				}
			}
			if got := s.Stats().MaxInFlight; got != tt.want {
				t.Errorf("at most %d calls in flight, want %d", got, tt.want)
			}
		})
	}
}

// Two workers share the provider's windows through Redis: together they
// keep to its rate, never call inside a window it announced closed, and
// are refused nothing.
func TestTwoWorkersKeepToTheProvidersWindow(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	const perMinute, burst, calls = 1200, 4, 44
	s := openaitest.New(openaitest.Config{Latency: 30 * time.Millisecond, PerMinute: perMinute, Burst: burst})
	base := standIn(t, s)
	ws := []*openai.Writer{worker(t, base, redisURL, 8), worker(t, base, redisURL, 8)}
	start := time.Now()
	for i, err := range writeAll(ws, calls) {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	took := time.Since(start)
	st := s.Stats()
	if st.Refused != 0 || st.InsideWindow != 0 || st.Answered != calls {
		t.Errorf("stand-in saw %+v, want %d answered, none refused or inside a window", st, calls)
	}
	// 20 a second after the first 4: no faster than the provider allows.
	if least := time.Duration(float64(calls-burst) / perMinute * float64(time.Minute)); took < least {
		t.Errorf("drained in %v, faster than the provider's %v", took, least)
	}
}

// However late the provider counts a call (a slow way to its limiter, a
// busy machine), two workers never call inside a window it announced:
// each answer's counts are taken as of its arrival.
func TestTwoWorkersKeepToALateCountingProvider(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	const perMinute, burst, calls = 1200, 4, 24
	s := openaitest.New(openaitest.Config{Latency: 30 * time.Millisecond, CountDelay: 400 * time.Millisecond, PerMinute: perMinute, Burst: burst})
	base := standIn(t, s)
	ws := []*openai.Writer{worker(t, base, redisURL, 8), worker(t, base, redisURL, 8)}
	for i, err := range writeAll(ws, calls) {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if st := s.Stats(); st.Refused != 0 || st.InsideWindow != 0 || st.Answered != calls {
		t.Errorf("stand-in saw %+v, want %d answered, none refused or inside a window", st, calls)
	}
}

// A 429 is writer.Busy until its retry-after, for this worker and the
// other alike, which then sends nothing before then.
func TestRefusalClosesTheWindowForEveryWorker(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	s := openaitest.New(openaitest.Config{StormUntil: time.Now().Add(time.Hour), StormRetryAfter: 20 * time.Second})
	base := standIn(t, s)
	a, b := worker(t, base, redisURL, 2), worker(t, base, redisURL, 2)
	req := writer.Request{Kind: writer.KindReply, PostText: "is monday a sin", Author: "mortal"}
	start := time.Now()
	_, err := a.Write(context.Background(), req)
	var busy *writer.Busy
	if !errors.As(err, &busy) || !errors.Is(err, writer.ErrBusy) {
		t.Fatalf("a 429: %v, want writer.Busy", err)
	}
	if busy.Until.Before(start.Add(19*time.Second)) || busy.Until.After(time.Now().Add(21*time.Second)) {
		t.Errorf("busy until %v, want 20 s on", busy.Until)
	}
	_, err = b.Write(context.Background(), req)
	if !errors.As(err, &busy) {
		t.Fatalf("the other worker: %v, want writer.Busy", err)
	}
	if got := s.Stats().Requests; got != 1 {
		t.Errorf("the stand-in received %d requests, want 1: the other worker must not call", got)
	}
}

// The worker's embeddings go through the writer's HTTP client: a window a
// 429 closed holds them back too (writer.Busy, nothing sent), and once it
// is open they are answered.
func TestEmbeddingsShareTheWritersWindows(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	s := openaitest.New(openaitest.Config{StormUntil: time.Now().Add(time.Hour), StormRetryAfter: 20 * time.Second})
	base := standIn(t, s)
	w := worker(t, base, redisURL, 2)
	emb, err := embeddings.New(embeddings.Config{BaseURL: base, Model: "text-embedding-3-small", HTTPClient: w.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(context.Background(), writer.Request{Kind: writer.KindReply, PostText: "is monday a sin", Author: "mortal"}); !errors.Is(err, writer.ErrBusy) {
		t.Fatalf("a 429: %v, want writer.Busy", err)
	}
	var busy *writer.Busy
	if _, err := emb.Embed(context.Background(), []string{"is monday a sin"}); !errors.As(err, &busy) {
		t.Fatalf("embeddings in a closed window: %v, want writer.Busy", err)
	}
	if n := len(s.Embeddings()); n != 0 {
		t.Fatalf("%d embeddings requests sent inside the closed window", n)
	}
	open := worker(t, base, "", 1)
	emb, err = embeddings.New(embeddings.Config{BaseURL: base, Model: "text-embedding-3-small", HTTPClient: open.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := emb.Embed(context.Background(), []string{"is monday a sin"}); err != nil || len(vs) != 1 {
		t.Fatalf("embeddings without windows: %v, %v", vs, err)
	}
}
