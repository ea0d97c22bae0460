package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultPublicTTL is how long a public answer is served from memory before
// it is computed again. The figures it shows are those of the database at
// most this long ago: the worker posts and refreshes metrics in another
// process, so the web tier cannot be told at once, and a short lifetime
// stands in for an invalidation across processes. A reject or an approve
// made through this process makes the cached answers stale at once.
const DefaultPublicTTL = 2 * time.Second

// publicMaxAge is the Cache-Control max-age of the public answers: browsers
// and proxies may keep one that long, far below the home page's 5-minute
// refresh, so every visitor sees figures at most DefaultPublicTTL + this old.
const publicMaxAge = 10 * time.Second

// computeTimeout bounds one computation of a cached answer. It runs on a
// context of its own, since the request that started it may go away while
// others wait for the result.
const computeTimeout = 10 * time.Second

// answer is one cached public answer, encoded once, with the values of
// its headers made once too: respondCached puts these slices in every
// answer's header map as they are, so they must never be changed in place
// (Header.Set replaces them, which is safe).
type answer struct {
	body []byte
	etag string
	at   time.Time

	cacheControl, etagValue, contentType, contentLength []string
}

// newAnswer returns the answer of body, with validator etag, computed at at.
func newAnswer(body []byte, etag string, at time.Time) *answer {
	return &answer{
		body: body, etag: etag, at: at,
		cacheControl:  []string{"public, max-age=" + strconv.Itoa(int(publicMaxAge.Seconds()))},
		etagValue:     []string{etag},
		contentType:   []string{"application/json; charset=utf-8"},
		contentLength: []string{strconv.Itoa(len(body))},
	}
}

// cacheEntry holds the last good answer of one key and the computation of
// the next one, if any runs.
type cacheEntry struct {
	last *answer
	// running is closed when the current computation ends; nil when none runs.
	running chan struct{}
	// err is the outcome of the last computation, read by its waiters.
	err error
}

// publicCache serves the public answers from memory. For each key at most
// one computation runs at a time: while it runs, callers get the last good
// answer, or wait for this one when there is none yet, so a burst of
// requests costs one computation, and a failing computation leaves the last
// good answer in place. A stale answer is computed again in the background
// while the last good one is served, so no request but the very first
// waits for a computation; an answer is at most the lifetime plus one
// computation old.
type publicCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
	// generation counts invalidations; a computation started before one is
	// not kept as fresh.
	generation uint64
}

func newPublicCache(ttl time.Duration, now func() time.Time) *publicCache {
	return &publicCache{ttl: ttl, now: now, entries: map[string]*cacheEntry{}}
}

// invalidate makes every cached answer stale, so the next request computes again.
func (c *publicCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	for _, e := range c.entries {
		if e.last != nil {
			e.last.at = time.Time{}
		}
	}
}

// get returns the answer of key: the cached one while fresh; the last good
// one when it is stale, starting its next computation in the background so
// that no request waits for it; when there is none yet, the one computed
// now by compute (whose value is encoded as JSON), which concurrent callers
// wait for rather than compute again.
func (c *publicCache) get(ctx context.Context, key string, compute func(ctx context.Context) (any, error)) (*answer, error) {
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &cacheEntry{}
		c.entries[key] = e
	}
	if e.last != nil {
		a := e.last
		if e.running == nil && c.now().Sub(a.at) >= c.ttl {
			done := c.start(e)
			go func() { _ = c.finish(ctx, e, done, compute) }()
		}
		c.mu.Unlock()
		return a, nil
	}
	if e.running != nil {
		running := e.running
		c.mu.Unlock()
		select {
		case <-running:
		case <-ctx.Done():
			return nil, fmt.Errorf("api: wait for %s: %w", key, ctx.Err())
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.last == nil {
			return nil, e.err
		}
		return e.last, nil
	}
	done := c.start(e)
	c.mu.Unlock()
	if err := c.finish(ctx, e, done, compute); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.last, nil
}

// start marks e's computation as running; called with c.mu held.
func (c *publicCache) start(e *cacheEntry) computation {
	e.running = make(chan struct{})
	return computation{running: e.running, generation: c.generation}
}

// computation is one running computation of an entry.
type computation struct {
	running    chan struct{}
	generation uint64
}

// finish runs compute for e and keeps its answer; a failure keeps the last
// good answer and is returned.
func (c *publicCache) finish(ctx context.Context, e *cacheEntry, run computation, compute func(ctx context.Context) (any, error)) error {
	a, err := c.compute(ctx, compute)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.running, e.err = nil, err
	close(run.running)
	if err != nil {
		return err
	}
	if run.generation != c.generation {
		// Invalidated while computing: keep it to serve, but not as fresh.
		a.at = time.Time{}
	}
	e.last = a
	return nil
}

// compute runs fn detached from the caller's cancellation, under its own
// deadline, and encodes its value.
func (c *publicCache) compute(ctx context.Context, fn func(ctx context.Context) (any, error)) (*answer, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), computeTimeout)
	defer cancel()
	at := c.now()
	v, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("api: encode cached answer: %w", err)
	}
	// The same bytes respondJSON's encoder writes: the value and a newline.
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	return newAnswer(body, `"`+hex.EncodeToString(sum[:12])+`"`, at), nil
}

// respondCached writes a cached answer with its validator, or 304 Not
// Modified when the client already holds it. The headers are the answer's
// own values, set under their canonical keys: nothing is formatted or
// allocated per request.
func respondCached(w http.ResponseWriter, r *http.Request, a *answer) {
	h := w.Header()
	h["Cache-Control"] = a.cacheControl
	h["Etag"] = a.etagValue
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatches(inm[0], a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = a.contentType
	h["Content-Length"] = a.contentLength
	w.WriteHeader(http.StatusOK)
	// The status is already sent; a write failure can only be a broken connection.
	_, _ = w.Write(a.body)
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
