package tasks_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

func TestPeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec string
		want time.Duration
	}{
		{name: "every", spec: "@every 30s", want: 30 * time.Second},
		{name: "cron minutes", spec: "*/5 * * * *", want: 5 * time.Minute},
		{name: "hourly", spec: "@hourly", want: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tasks.Period(tt.spec)
			if err != nil || got != tt.want {
				t.Errorf("Period(%q) = %s, %v; want %s", tt.spec, got, err, tt.want)
			}
		})
	}
	if _, err := tasks.Period("whenever"); err == nil {
		t.Error("Period accepted a bad spec")
	}
}

// Two schedulers on one Redis: one leads, so each run is enqueued once; when
// the leader stops, the other takes over.
func TestTwoSchedulersDoNotDoubleTheWork(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	client, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	entries := []tasks.Schedule{{Type: tasks.TypeScanMentions, Spec: "@every 2s"}}
	ctxA, stopA := context.WithCancel(context.Background())
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	doneA, doneB := make(chan error, 1), make(chan error, 1)
	for _, run := range []struct {
		ctx  context.Context
		done chan error
	}{{ctxA, doneA}, {ctxB, doneB}} {
		s, err := tasks.NewScheduler(client, redisURL, entries, log)
		if err != nil {
			t.Fatal(err)
		}
		go func() { run.done <- s.Run(run.ctx) }()
	}
	count := func() int {
		list, err := client.Inspector().ListPendingTasks(tasks.QueueLow)
		if err != nil {
			return 0
		}
		return len(list)
	}
	time.Sleep(5 * time.Second)
	// One first run plus one every two seconds: three. Two leaders would make six.
	if n := count(); n < 2 || n > 4 {
		t.Fatalf("%d runs enqueued in 5 s by two schedulers, want about 3", n)
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	before := count()
	time.Sleep(7 * time.Second)
	if after := count(); after <= before {
		t.Errorf("no scheduler took over: %d runs before, %d after", before, after)
	}
	stopB()
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
}

func TestNewSchedulerRefusesBadEntries(t *testing.T) {
	t.Parallel()
	client, err := tasks.NewClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name  string
		entry tasks.Schedule
	}{
		{name: "bad spec", entry: tasks.Schedule{Type: tasks.TypeReconcile, Spec: "often"}},
		{name: "not periodic", entry: tasks.Schedule{Type: tasks.TypeSendPost, Spec: "@every 1m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tasks.NewScheduler(client, "redis://127.0.0.1:1/0", []tasks.Schedule{tt.entry}, log); err == nil {
				t.Error("NewScheduler accepted it")
			}
		})
	}
}

// A run asked for by hand names its platform: one run per platform within
// the uniqueness window, and a name that is not a platform's is refused.
func TestEnqueuePeriodicOn(t *testing.T) {
	t.Parallel()
	client, err := tasks.NewClient(taskstest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	for _, platform := range []string{"x", "bluesky", "x", ""} {
		if err := client.EnqueuePeriodicOn(ctx, tasks.TypeScanTargeted, platform); err != nil {
			t.Fatalf("EnqueuePeriodicOn(%q): %v", platform, err)
		}
	}
	if err := client.EnqueuePeriodicOn(ctx, tasks.TypeScanTargeted, "X!"); err == nil {
		t.Error("EnqueuePeriodicOn accepted a platform that is not a name")
	}
	list, err := client.Inspector().ListPendingTasks(tasks.QueueLow)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, info := range list {
		platform, err := tasks.DecodePeriodic(asynq.NewTask(info.Type, info.Payload))
		if err != nil {
			t.Fatal(err)
		}
		got[platform]++
	}
	if len(list) != 3 || got["x"] != 1 || got["bluesky"] != 1 || got[""] != 1 {
		t.Errorf("queued runs by platform %v (%d in all), want one each for x, bluesky and the first platform", got, len(list))
	}
}
