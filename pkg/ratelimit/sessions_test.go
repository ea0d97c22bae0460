package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/tasks/taskstest"
)

// A session has one model call in flight and at most ten in any rolling
// minute, across every process sharing the Redis; sessions are apart.
func TestSessions(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	url := taskstest.RedisURL(t)
	// Two web processes: two clients of the same Redis.
	web1 := open(t, url, 1, clock).Sessions(30 * time.Second)
	web2 := open(t, url, 1, clock).Sessions(30 * time.Second)
	ctx := context.Background()

	release, wait, err := web1.Begin(ctx, "token-a")
	if err != nil || release == nil || wait != 0 {
		t.Fatalf("first call: %v %v", wait, err)
	}
	if r, wait, err := web2.Begin(ctx, "token-a"); err != nil || r != nil || wait < time.Second || wait > 30*time.Second {
		t.Errorf("second call in flight on the other process: wait %v, %v; want refused for up to the hold", wait, err)
	}
	if r, _, err := web2.Begin(ctx, "token-b"); err != nil || r == nil {
		t.Errorf("another session is refused: %v", err)
	} else if err := r(ctx); err != nil {
		t.Fatal(err)
	}
	if err := release(ctx); err != nil {
		t.Fatal(err)
	}
	// Nine more, one after the other, within the same minute.
	for i := range 9 {
		now = now.Add(time.Second)
		r, wait, err := web2.Begin(ctx, "token-a")
		if err != nil || r == nil {
			t.Fatalf("call %d: wait %v, %v", i+2, wait, err)
		}
		if err := r(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(time.Second) // 10 s after the first call
	r, wait, err := web1.Begin(ctx, "token-a")
	if err != nil || r != nil || wait != 50*time.Second {
		t.Errorf("eleventh call in the minute: wait %v, %v; want refused for the 50 s until the first leaves the window", wait, err)
	}
	now = now.Add(50 * time.Second)
	if r, _, err := web1.Begin(ctx, "token-a"); err != nil || r == nil {
		t.Errorf("a minute after the first call: %v, want allowed", err)
	}
}

// A call whose release is lost (its process died) stops counting as in
// flight after the hold.
func TestSessionsHoldExpires(t *testing.T) {
	t.Parallel()
	url := taskstest.RedisURL(t)
	s := open(t, url, 1, time.Now).Sessions(50 * time.Millisecond)
	ctx := context.Background()
	if r, _, err := s.Begin(ctx, "token-c"); err != nil || r == nil {
		t.Fatalf("first: %v", err)
	}
	if r, _, err := s.Begin(ctx, "token-c"); err != nil || r != nil {
		t.Fatalf("second, in flight: %v", err)
	}
	// Redis expires the key itself; poll until it has (no timed assertion).
	for {
		r, _, err := s.Begin(ctx, "token-c")
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
