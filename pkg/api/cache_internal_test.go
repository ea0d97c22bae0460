package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is a settable time source.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A burst of callers with nothing cached yet costs one computation, and
// every caller gets its answer.
func TestCacheBurstComputesOnce(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	c := newPublicCache(time.Second, clk.now)
	var calls atomic.Int32
	release := make(chan struct{})
	compute := func(context.Context) (any, error) {
		calls.Add(1)
		<-release
		return map[string]int{"n": 1}, nil
	}
	const callers = 50
	var wg sync.WaitGroup
	bodies := make([]string, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := c.get(context.Background(), "k", compute)
			errs[i] = err
			if a != nil {
				bodies[i] = string(a.body)
			}
		}()
	}
	// Let the callers pile up behind the first computation.
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d computations for one burst, want 1", n)
	}
	for i := range callers {
		if errs[i] != nil || bodies[i] != "{\"n\":1}\n" {
			t.Fatalf("caller %d: %q %v", i, bodies[i], errs[i])
		}
	}
}

// settle waits until no computation of key runs.
func settle(t *testing.T, c *publicCache, key string) {
	t.Helper()
	c.mu.Lock()
	e := c.entries[key]
	var running chan struct{}
	if e != nil {
		running = e.running
	}
	c.mu.Unlock()
	if running == nil {
		return
	}
	select {
	case <-running:
	case <-time.After(5 * time.Second):
		t.Fatal("the background computation did not end")
	}
}

// Within the lifetime the cached answer is served; after it, the stale
// answer is served while the next is computed in the background; a failed
// computation keeps the last good answer; invalidate makes it stale at once.
func TestCacheLifetime(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	c := newPublicCache(2*time.Second, clk.now)
	var n atomic.Int32
	var fail atomic.Bool
	compute := func(context.Context) (any, error) {
		if fail.Load() {
			return nil, errors.New("database down")
		}
		return n.Add(1), nil
	}
	tests := []struct {
		name    string
		advance time.Duration
		fail    bool
		inval   bool
		want    string
	}{
		{name: "first call computes", want: "1\n"},
		{name: "fresh is served", advance: 1900 * time.Millisecond, want: "1\n"},
		{name: "stale is served while the next is computed", advance: 200 * time.Millisecond, want: "1\n"},
		{name: "then the next is served", want: "2\n"},
		{name: "a failure keeps the last good answer", advance: 3 * time.Second, fail: true, want: "2\n"},
		{name: "still stale, computed again", want: "2\n"},
		{name: "which succeeded", want: "3\n"},
		{name: "invalidated: served while computed again", inval: true, want: "3\n"},
		{name: "then the new one", want: "4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.add(tt.advance)
			fail.Store(tt.fail)
			if tt.inval {
				c.invalidate()
			}
			a, err := c.get(context.Background(), "k", compute)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(a.body); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			settle(t, c, "k")
		})
	}
	// With nothing good to fall back on, the failure reaches the caller.
	fail.Store(true)
	if _, err := c.get(context.Background(), "other", compute); err == nil {
		t.Error("a failed first computation reported no error")
	}
}

// A stale answer is served at once while its next computation runs, and no
// second computation starts meanwhile.
func TestCacheServesLastGoodWhileComputing(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	c := newPublicCache(time.Second, clk.now)
	if _, err := c.get(context.Background(), "k", func(context.Context) (any, error) { return "old", nil }); err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Second)
	started, release := make(chan struct{}), make(chan struct{})
	a, err := c.get(context.Background(), "k", func(context.Context) (any, error) {
		close(started)
		<-release
		return "new", nil
	})
	if err != nil || string(a.body) != "\"old\"\n" {
		t.Fatalf("stale call: %q %v, want the last good answer at once", a.body, err)
	}
	<-started
	a, err = c.get(context.Background(), "k", func(context.Context) (any, error) {
		t.Error("a second computation ran while one was running")
		return nil, nil
	})
	if err != nil || string(a.body) != "\"old\"\n" {
		t.Errorf("during the computation: %q %v, want the last good answer", a.body, err)
	}
	close(release)
	settle(t, c, "k")
	a, err = c.get(context.Background(), "k", nil)
	if err != nil || string(a.body) != "\"new\"\n" {
		t.Errorf("after it: %q %v", a.body, err)
	}
}

// A cached answer carries an ETag and Cache-Control public; a client that
// holds it gets 304 without a body.
func TestRespondCached(t *testing.T) {
	t.Parallel()
	a := newAnswer([]byte("{}\n"), `"abc"`, time.Time{})
	tests := []struct {
		name        string
		ifNoneMatch string
		want        int
	}{
		{name: "no validator", want: http.StatusOK},
		{name: "same etag", ifNoneMatch: `"abc"`, want: http.StatusNotModified},
		{name: "weak form among others", ifNoneMatch: `"x", W/"abc"`, want: http.StatusNotModified},
		{name: "other etag", ifNoneMatch: `"abd"`, want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/public/stats", nil)
			if tt.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", tt.ifNoneMatch)
			}
			w := httptest.NewRecorder()
			respondCached(w, r, a)
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d", w.Code, tt.want)
			}
			if got := w.Header().Get("Cache-Control"); got != "public, max-age=10" {
				t.Errorf("Cache-Control %q", got)
			}
			if got := w.Header().Get("ETag"); got != `"abc"` {
				t.Errorf("ETag %q", got)
			}
			wantBody := "{}\n"
			if tt.want == http.StatusNotModified {
				wantBody = ""
			}
			if w.Body.String() != wantBody {
				t.Errorf("body %q, want %q", w.Body.String(), wantBody)
			}
		})
	}
}

// queryOffset reads the offset as url.Values would, whatever the query.
func TestQueryOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
	}{
		{raw: "offset=0", want: "0"},
		{raw: "offset=15", want: "15"},
		{raw: "", want: ""},
		{raw: "offset=", want: ""},
		{raw: "offset=1&x=2", want: "1"},
		{raw: "x=1&offset=30", want: "30"},
		{raw: "offset=%31", want: "1"},
		{raw: "offset=1;x", want: ""},
		{raw: "offset=1+2", want: "1 2"},
		{raw: "offset=a=b", want: "a=b"},
		{raw: "offsetx=3", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			u := &url.URL{Path: "/api/public/logs", RawQuery: tt.raw}
			if got := queryOffset(u); got != tt.want || got != u.Query().Get("offset") {
				t.Errorf("queryOffset(%q) = %q, want %q (url.Values: %q)", tt.raw, got, tt.want, u.Query().Get("offset"))
			}
		})
	}
}
