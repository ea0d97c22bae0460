package ratelimit_test

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

func TestResetDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{name: "seconds", value: "1s", want: time.Second, wantOK: true},
		{name: "minutes and seconds", value: "6m0s", want: 6 * time.Minute, wantOK: true},
		{name: "milliseconds", value: "20ms", want: 20 * time.Millisecond, wantOK: true},
		{name: "fractional seconds", value: "1m30.5s", want: 90*time.Second + 500*time.Millisecond, wantOK: true},
		{name: "hours", value: "1h2m3s", want: time.Hour + 2*time.Minute + 3*time.Second, wantOK: true},
		{name: "bare seconds", value: "17", want: 17 * time.Second, wantOK: true},
		{name: "bare fraction", value: "0.25", want: 250 * time.Millisecond, wantOK: true},
		{name: "zero", value: "0s", want: 0, wantOK: true},
		{name: "spaces", value: " 2s ", want: 2 * time.Second, wantOK: true},
		{name: "empty", value: ""},
		{name: "garbage", value: "soon"},
		{name: "unit only", value: "ms"},
		{name: "negative", value: "-1s"},
		{name: "negative bare", value: "-3"},
		{name: "not a number", value: "NaN"},
		{name: "date", value: "Wed, 25 Nov 2026 15:00:00 GMT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ratelimit.ResetDuration(tt.value)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("ResetDuration(%q) = %v, %v, want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_900_000_000, 0)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		wantOK bool
	}{
		{name: "seconds", header: http.Header{"Retry-After": {"20"}}, want: 20 * time.Second, wantOK: true},
		{name: "fractional seconds", header: http.Header{"Retry-After": {"1.5"}}, want: 1500 * time.Millisecond, wantOK: true},
		{name: "milliseconds first", header: http.Header{"Retry-After": {"20"}, "Retry-After-Ms": {"250"}}, want: 250 * time.Millisecond, wantOK: true},
		{name: "date", header: http.Header{"Retry-After": {now.Add(time.Minute).UTC().Format(http.TimeFormat)}}, want: time.Minute, wantOK: true},
		{name: "past date", header: http.Header{"Retry-After": {now.Add(-time.Minute).UTC().Format(http.TimeFormat)}}, want: 0, wantOK: true},
		{name: "garbage milliseconds fall back", header: http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"x"}}, want: 3 * time.Second, wantOK: true},
		{name: "garbage", header: http.Header{"Retry-After": {"later"}}},
		{name: "none", header: http.Header{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ratelimit.RetryAfter(tt.header, now)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("RetryAfter = %v, %v, want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// modelHeaders is what OpenAI announces with an answer.
func modelHeaders(limitReq, remainingReq int, resetReq string, limitTok, remainingTok int, resetTok string) http.Header {
	h := http.Header{}
	h.Set("x-ratelimit-limit-requests", strconv.Itoa(limitReq))
	h.Set("x-ratelimit-remaining-requests", strconv.Itoa(remainingReq))
	h.Set("x-ratelimit-reset-requests", resetReq)
	h.Set("x-ratelimit-limit-tokens", strconv.Itoa(limitTok))
	h.Set("x-ratelimit-remaining-tokens", strconv.Itoa(remainingTok))
	h.Set("x-ratelimit-reset-tokens", resetTok)
	return h
}

func TestReserveModel(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_900_000_000, 0)
	const name = "api.example gpt"
	tests := []struct {
		name   string
		status int
		header http.Header
		tokens int
		// want is how long after the answer the next call must wait; 0 is at once.
		want time.Duration
	}{
		{name: "no headers: open", status: 200, header: http.Header{}},
		{name: "plenty left", status: 200, header: modelHeaders(10000, 9000, "6ms", 1000000, 900000, "6ms"), tokens: 100},
		// One left of 60, the margin; the other 59 come back over 90.5 s,
		// taken as 58 (the count is rounded down): one more in 90.5 s / 58.
		{name: "requests spent: closed until one refills", status: 200, header: modelHeaders(60, 1, "1m30.5s", 1000000, 900000, "6ms"),
			want: time.Duration(math.Ceil(90500.0/58)) * time.Millisecond},
		// 200 tokens left, 600 needed (the call and the margin's), 800
		// come back over 6 minutes, taken as 799: 400 in a little over 3.
		{name: "tokens spent: closed until enough refill", status: 200, header: modelHeaders(60, 50, "1s", 1000, 200, "6m0s"), tokens: 300,
			want: time.Duration(math.Ceil(400*360000.0/799)) * time.Millisecond},
		{name: "no refill known: closed until the reset", status: 200, header: modelHeaders(-1, 1, "20s", 1000, 900, "1s"), want: 20 * time.Second},
		{name: "garbage headers are ignored", status: 200, header: modelHeaders(60, 0, "soon", 1000, 0, "-1s")},
		{name: "429 closes until retry-after", status: 429, header: func() http.Header {
			h := modelHeaders(60, 30, "1s", 1000, 900, "1s")
			h.Set("Retry-After", "20")
			return h
		}(), want: 20 * time.Second},
		{name: "429 without retry-after: the spent window's reset", status: 429, header: modelHeaders(60, 0, "20ms", 1000, 900, "1s"), want: 20 * time.Millisecond},
		{name: "429 without anything: DefaultClose", status: 429, header: http.Header{}, want: ratelimit.DefaultClose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			now := start
			w := open(t, taskstest.RedisURL(t), 1, func() time.Time { return now })
			call, notBefore, err := w.ReserveModel(ctx, name, tt.tokens)
			if err != nil || !notBefore.IsZero() {
				t.Fatalf("first call: %v %v, want open", notBefore, err)
			}
			closed, err := w.RecordModel(ctx, call, tt.status, tt.header)
			if err != nil {
				t.Fatal(err)
			}
			if tt.status == 429 && !closed.Equal(now.Add(tt.want)) {
				t.Errorf("429 closed until %v, want %v", closed, now.Add(tt.want))
			}
			_, notBefore, err = w.ReserveModel(ctx, name, tt.tokens)
			if err != nil {
				t.Fatal(err)
			}
			got := time.Duration(0)
			if !notBefore.IsZero() {
				got = notBefore.Sub(now)
			}
			if got != tt.want {
				t.Errorf("next call waits %v, want %v", got, tt.want)
			}
			// Another model's windows are its own.
			if _, other, err := w.ReserveModel(ctx, "api.example other", 1); err != nil || !other.IsZero() {
				t.Errorf("another model: %v %v, want open", other, err)
			}
		})
	}
}

// Two workers on one Redis share the windows: what one was told closes
// the window for the other, the calls of both count it down, and both are
// paced over what is left of it.
func TestModelWindowSharedByTwoWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := taskstest.RedisURL(t)
	now := time.Unix(1_900_000_000, 0)
	clock := func() time.Time { return now }
	a, b := open(t, url, 1, clock), open(t, url, 1, clock)
	const name = "api.example gpt"

	// a's first call probes the provider: b waits for its answer.
	callA, wait, err := a.ReserveModel(ctx, name, 10)
	if err != nil || !wait.IsZero() {
		t.Fatalf("a: %v %v", wait, err)
	}
	if _, wait, err := b.ReserveModel(ctx, name, 10); err != nil || !wait.Equal(now.Add(ratelimit.ProbeHold).UTC()) {
		t.Fatalf("b during the probe: %v %v, want to wait %v", wait, err, ratelimit.ProbeHold)
	}
	// a's answer: 2 requests left of 5, full again in 2 s: 3 come back,
	// taken as 2 (the count is rounded down), one a second. With a margin
	// of 1, one call may go now.
	if _, err := a.RecordModel(ctx, callA, 200, modelHeaders(5, 2, "2s", 100000, 90000, "1s")); err != nil {
		t.Fatal(err)
	}
	for i, pair := range [][2]*ratelimit.Windows{{b, a}, {a, b}, {b, a}} {
		if _, wait, err := pair[0].ReserveModel(ctx, name, 10); err != nil || !wait.IsZero() {
			t.Fatalf("call %d at %v: %v %v, want open", i+1, now, wait, err)
		}
		// The other worker waits for the next one to come back.
		_, wait, err := pair[1].ReserveModel(ctx, name, 10)
		if err != nil || !wait.Equal(now.Add(time.Second).UTC()) {
			t.Fatalf("after call %d: %v %v, want to wait 1 s", i+1, wait, err)
		}
		now = wait
	}
	ws, err := b.Windows(ctx)
	if err != nil || len(ws) != 2 || ws[0].Endpoint != "model "+name+" (requests)" || ws[0].Remaining != 2 {
		t.Fatalf("windows %+v %v, want the requests window with 2 left", ws, err)
	}

	// A 429 seen by b closes the window for a, even after a later answer of
	// an earlier call says calls are left.
	const late = "api.example late"
	probe, _, err := a.ReserveModel(ctx, late, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.RecordModel(ctx, probe, 200, modelHeaders(100, 99, "600ms", 100000, 99000, "1s")); err != nil {
		t.Fatal(err)
	}
	callA, waitA, err := a.ReserveModel(ctx, late, 10)
	if err != nil || !waitA.IsZero() {
		t.Fatalf("a: %v %v", waitA, err)
	}
	callB, waitB, err := b.ReserveModel(ctx, late, 10)
	if err != nil || !waitB.IsZero() {
		t.Fatalf("b: %v %v", waitB, err)
	}
	if _, err := b.RecordModel(ctx, callB, 429, http.Header{"Retry-After": {"30"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RecordModel(ctx, callA, 200, modelHeaders(100, 98, "600ms", 100000, 98000, "1s")); err != nil {
		t.Fatal(err)
	}
	if _, wait, err := a.ReserveModel(ctx, late, 10); err != nil || !wait.Equal(now.Add(30*time.Second).UTC()) {
		t.Fatalf("after b's 429: %v %v, want closed 30 s", wait, err)
	}
}

// A spent window refills evenly until its reset, up to its limit, less
// the calls still unanswered: no burst beyond it.
func TestModelWindowRefillsToItsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_900_000_000, 0)
	w := open(t, taskstest.RedisURL(t), 1, func() time.Time { return now })
	const name = "api.example gpt"
	call, _, err := w.ReserveModel(ctx, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordModel(ctx, call, 200, modelHeaders(3, 0, "1s", 30000, 0, "1s")); err != nil {
		t.Fatal(err)
	}
	// 3 come back a second, taken as 2 (the count is rounded down); the
	// call and the margin need 2.
	if _, wait, err := w.ReserveModel(ctx, name, 1); err != nil || !wait.Equal(now.Add(time.Second).UTC()) {
		t.Fatalf("spent window: %v %v, want closed a second", wait, err)
	}
	now = now.Add(2 * time.Second)
	for i := range 2 {
		if _, wait, err := w.ReserveModel(ctx, name, 1); err != nil || !wait.IsZero() {
			t.Fatalf("call %d after the reset: %v %v, want open", i+1, wait, err)
		}
	}
	if _, wait, err := w.ReserveModel(ctx, name, 1); err != nil || wait.IsZero() || wait.Sub(now) > time.Second {
		t.Fatalf("third call after the reset: %v %v, want a short wait for an answer", wait, err)
	}
}

// An answer's counts are taken as of its arrival, however long the call
// took, less the time the provider says it spent on the call
// (openai-processing-ms), never before the call was reserved: the
// provider counted the call before it began processing it, so the
// window's refill during the model's work is credited, and no room the
// provider has not given.
func TestModelWindowRefillsFromTheProvidersCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, processing string
		// took is how long after its reservation the answer came back.
		took time.Duration
		// opens is how many calls may go at the answer; wait is how long
		// the next one then waits.
		opens int
		wait  time.Duration
	}{
		{name: "no header, a quick answer: from the arrival", took: 30 * time.Millisecond, opens: 0, wait: time.Second},
		{name: "no header, a second: from the arrival", took: time.Second, opens: 0, wait: time.Second},
		{name: "no header, a slow answer: from the arrival", took: 5 * time.Second, opens: 0, wait: time.Second},
		{name: "half the round trip", processing: "500", took: time.Second, opens: 0, wait: 500 * time.Millisecond},
		{name: "most of the round trip", processing: "1000", took: 1030 * time.Millisecond, opens: 1, wait: time.Second},
		{name: "a fraction of a millisecond, rounded to credit less", processing: "999.5", took: 1030 * time.Millisecond, opens: 0, wait: time.Millisecond},
		{name: "longer than the round trip: from the reservation", processing: "5000", took: time.Second, opens: 1, wait: time.Second},
		{name: "garbage", processing: "soon", took: time.Second, opens: 0, wait: time.Second},
		{name: "negative", processing: "-5", took: time.Second, opens: 0, wait: time.Second},
		{name: "not a number", processing: "NaN", took: time.Second, opens: 0, wait: time.Second},
		{name: "absurd", processing: "1e12", took: time.Second, opens: 0, wait: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			start := time.Unix(1_900_000_000, 0)
			now := start
			w := open(t, taskstest.RedisURL(t), 1, func() time.Time { return now })
			const name = "api.example gpt"
			call, _, err := w.ReserveModel(ctx, name, 1)
			if err != nil {
				t.Fatal(err)
			}
			now = start.Add(tt.took)
			// 1 left of 5, full in 3 s: taken as one back a second (as
			// above); a call and the margin need 2.
			h := modelHeaders(5, 1, "3s", 40000, 30000, "1s")
			if tt.processing != "" {
				h.Set("openai-processing-ms", tt.processing)
			}
			if _, err := w.RecordModel(ctx, call, 200, h); err != nil {
				t.Fatal(err)
			}
			for i := range tt.opens {
				if _, wait, err := w.ReserveModel(ctx, name, 1); err != nil || !wait.IsZero() {
					t.Fatalf("call %d at the answer: waits until %v (%v), want it to go", i+1, wait, err)
				}
			}
			_, wait, err := w.ReserveModel(ctx, name, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := wait.Sub(now); wait.IsZero() || got != tt.wait {
				t.Errorf("after %d calls the next waits %v, want %v", tt.opens, got, tt.wait)
			}
		})
	}
}
