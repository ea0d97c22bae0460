package tasks_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// Due lets one call through per interval and name, across clients (as
// across processes), and again once the interval has lapsed.
func TestDue(t *testing.T) {
	t.Parallel()
	url := taskstest.RedisURL(t)
	a, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	// Long enough that a loaded machine makes the calls meant to fall within
	// one interval inside it.
	const every = 2 * time.Second
	tests := []struct {
		name   string
		client *tasks.Client
		work   string
		wait   time.Duration
		want   bool
	}{
		{name: "first call", client: a, work: "hand-posted:x", want: true},
		{name: "same client within the interval", client: a, work: "hand-posted:x", want: false},
		{name: "another process within the interval", client: b, work: "hand-posted:x", want: false},
		{name: "another name", client: b, work: "hand-posted:sandbox", want: true},
		{name: "after the interval", client: b, work: "hand-posted:x", wait: every + 200*time.Millisecond, want: true},
		{name: "within the new interval", client: a, work: "hand-posted:x", want: false},
	}
	for _, tt := range tests {
		time.Sleep(tt.wait)
		got, err := tt.client.Due(ctx, tt.work, every)
		if err != nil || got != tt.want {
			t.Errorf("%s: Due = %v (%v), want %v", tt.name, got, err, tt.want)
		}
	}
	if got, err := a.Due(ctx, "hand-posted:x", 0); err != nil || !got {
		t.Errorf("no interval: Due = %v (%v), want true", got, err)
	}
}
