package tasks_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// A timeline pause begins once, is seen by every client, lists with its
// reason and end, and lapses by itself; a hand-written value lists too.
func TestTimelinePauses(t *testing.T) {
	url := taskstest.RedisURL(t)
	c, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)

	if paused, err := c.TimelinePaused(ctx, "x", "search"); err != nil || paused {
		t.Fatalf("before any pause: %v, %v", paused, err)
	}
	if got, err := c.TimelinePauses(ctx, now); err != nil || len(got) != 0 {
		t.Fatalf("pauses before any: %+v, %v", got, err)
	}
	began, err := c.PauseTimeline(ctx, "x", "search", "the platform rejects the request", now, 6*time.Hour)
	if err != nil || !began {
		t.Fatalf("first pause: began %v, %v", began, err)
	}
	// A second refusal keeps the pause as it began.
	began, err = c.PauseTimeline(ctx, "x", "search", "again", now.Add(time.Hour), 6*time.Hour)
	if err != nil || began {
		t.Fatalf("second pause: began %v, %v; want kept", began, err)
	}
	if paused, err := c.TimelinePaused(ctx, "x", "search"); err != nil || !paused {
		t.Fatalf("paused: %v, %v", paused, err)
	}
	if paused, err := c.TimelinePaused(ctx, "x", "mentions"); err != nil || paused {
		t.Fatalf("another timeline: %v, %v", paused, err)
	}
	if _, err := c.PauseTimeline(ctx, "sandbox", "mentions", "short", now, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := rawRedis(t, url).Set(ctx, "infernal:scan:paused:x:hand", "not json", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := c.TimelinePauses(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	want := tasks.TimelinePause{Platform: "x", Timeline: "search", Reason: "the platform rejects the request", Since: now, Until: now.Add(6 * time.Hour)}
	var search, hand *tasks.TimelinePause
	for i := range got {
		switch got[i].Timeline {
		case "search":
			search = &got[i]
		case "x:hand":
			hand = &got[i]
		}
	}
	if search == nil || *search != want {
		t.Errorf("pauses %+v, want %+v among them", got, want)
	}
	if hand == nil || hand.Reason != "" || !hand.Until.After(now) || hand.Until.After(now.Add(time.Hour)) {
		t.Errorf("hand-written pause listed as %+v", hand)
	}
	// The short pause lapses by itself.
	deadline := time.Now().Add(10 * time.Second)
	for {
		paused, err := c.TimelinePaused(ctx, "sandbox", "mentions")
		if err != nil {
			t.Fatal(err)
		}
		if !paused {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pause did not lapse")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
