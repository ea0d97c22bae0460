package ratelimit_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

func open(t *testing.T, url string, margin int, now func() time.Time) *ratelimit.Windows {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() }) // closing a test's connection can only fail if already closed
	return ratelimit.New(rdb, margin, now)
}

func headers(limit, remaining int, reset time.Time) http.Header {
	h := http.Header{}
	h.Set("x-rate-limit-limit", strconv.Itoa(limit))
	h.Set("x-rate-limit-remaining", strconv.Itoa(remaining))
	h.Set("x-rate-limit-reset", strconv.FormatInt(reset.Unix(), 10))
	return h
}

func TestReserve(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_900_000_000, 0)
	clock := func() time.Time { return now }
	reset := now.Add(15 * time.Minute)
	tests := []struct {
		name       string
		margin     int
		header     http.Header
		wantClosed bool
	}{
		{name: "unknown window is open", margin: 1, header: http.Header{}},
		{name: "plenty left", margin: 1, header: headers(300, 200, reset)},
		{name: "one left, margin one: closed", margin: 1, header: headers(300, 1, reset), wantClosed: true},
		{name: "one left, no margin: open", margin: 0, header: headers(300, 1, reset)},
		{name: "none left: closed", margin: 0, header: headers(300, 0, reset), wantClosed: true},
		{name: "reset passed: open", margin: 1, header: headers(300, 0, now.Add(-time.Second))},
		{name: "daily user cap spent: closed", margin: 1, header: func() http.Header {
			h := headers(100, 50, reset)
			h.Set("x-user-limit-24hour-limit", "17")
			h.Set("x-user-limit-24hour-remaining", "0")
			h.Set("x-user-limit-24hour-reset", strconv.FormatInt(now.Add(20*time.Hour).Unix(), 10))
			return h
		}(), wantClosed: true},
		{name: "garbage headers are ignored", margin: 1, header: http.Header{"X-Rate-Limit-Remaining": {"lots"}, "X-Rate-Limit-Reset": {"soon"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			w := open(t, taskstest.RedisURL(t), tt.margin, clock)
			if err := w.Record(ctx, "GET /2/tweets/search/recent", tt.header); err != nil {
				t.Fatal(err)
			}
			until, err := w.Reserve(ctx, "GET /2/tweets/search/recent")
			if err != nil {
				t.Fatal(err)
			}
			if closed := !until.IsZero(); closed != tt.wantClosed {
				t.Errorf("closed until %v, want closed %v", until, tt.wantClosed)
			}
			// Another endpoint's window is its own.
			if other, err := w.Reserve(ctx, "GET /2/users/:id/mentions"); err != nil || !other.IsZero() {
				t.Errorf("another endpoint: %v %v, want open", other, err)
			}
		})
	}
}

// Reservations count the window down across processes, and a late answer
// of the same window does not give calls back.
func TestReserveCountsDownAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := taskstest.RedisURL(t)
	now := time.Unix(1_900_000_000, 0)
	clock := func() time.Time { return now }
	a, b := open(t, url, 1, clock), open(t, url, 1, clock)
	reset := now.Add(15 * time.Minute)
	if err := a.Record(ctx, "POST /2/tweets", headers(100, 3, reset)); err != nil {
		t.Fatal(err)
	}
	// Remaining 3, margin 1: two calls, whichever process makes them.
	for i, w := range []*ratelimit.Windows{a, b} {
		if until, err := w.Reserve(ctx, "POST /2/tweets"); err != nil || !until.IsZero() {
			t.Fatalf("call %d: %v %v, want open", i+1, until, err)
		}
	}
	// A late answer from before these calls says 3 again: ignored.
	if err := b.Record(ctx, "POST /2/tweets", headers(100, 3, reset)); err != nil {
		t.Fatal(err)
	}
	if until, err := a.Reserve(ctx, "POST /2/tweets"); err != nil || !until.Equal(reset.UTC()) {
		t.Fatalf("third call: %v %v, want closed until %v", until, err, reset)
	}
	ws, err := b.Windows(ctx)
	if err != nil || len(ws) != 1 || ws[0].Endpoint != "POST /2/tweets" || ws[0].Remaining != 1 || ws[0].Open(1, now) {
		t.Fatalf("windows %+v %v, want POST /2/tweets closed with 1 left", ws, err)
	}
}

// A 429 closes its window until the reset it announces, however many calls
// its x-rate-limit-remaining claims are left.
func TestRefused(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_900_000_000, 0)
	retryAfter := func(v string) http.Header {
		h := http.Header{}
		h.Set("x-rate-limit-remaining", "50")
		h.Set("Retry-After", v)
		return h
	}
	tests := []struct {
		name       string
		header     http.Header
		wantReset  time.Time
		wantClosed bool
	}{
		{name: "remaining above the margin", header: headers(300, 50, now.Add(10*time.Minute)), wantReset: now.Add(10 * time.Minute), wantClosed: true},
		{name: "Retry-After in seconds", header: retryAfter("120"), wantReset: now.Add(2 * time.Minute), wantClosed: true},
		{name: "Retry-After as a date", header: retryAfter(now.Add(5 * time.Minute).UTC().Format(http.TimeFormat)), wantReset: now.Add(5 * time.Minute), wantClosed: true},
		{name: "no reset at all", header: http.Header{}, wantReset: now.Add(ratelimit.DefaultClose), wantClosed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ratelimit.Refused(tt.header, now)
			if r := got.Get("x-rate-limit-remaining"); r != "0" {
				t.Errorf("remaining %q, want 0", r)
			}
			if r := got.Get("x-rate-limit-reset"); r != strconv.FormatInt(tt.wantReset.Unix(), 10) {
				t.Errorf("reset %q, want %d", r, tt.wantReset.Unix())
			}
			w := open(t, taskstest.RedisURL(t), 1, func() time.Time { return now })
			ctx := context.Background()
			if err := w.Record(ctx, "GET /x", got); err != nil {
				t.Fatal(err)
			}
			until, err := w.Reserve(ctx, "GET /x")
			if err != nil {
				t.Fatal(err)
			}
			if closed := !until.IsZero(); closed != tt.wantClosed || (closed && !until.Equal(tt.wantReset)) {
				t.Errorf("Reserve: closed until %v, want closed %v until %v", until, tt.wantClosed, tt.wantReset)
			}
		})
	}
}
