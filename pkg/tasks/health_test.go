package tasks_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// The worker's -healthcheck asks its listener's /healthz, which answers 200
// only between Start and Shutdown; an address with no host is probed on
// loopback.
func TestProbeWorker(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: redisURL,
		Register: func(*asynq.ServeMux) {},
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "up 1\n") })
	ts := httptest.NewServer(srv.Handler(metrics))
	defer ts.Close()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tasks.ProbeWorker(ctx, ":"+port); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("probe before Start = %v, want a 503", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{":" + port, "0.0.0.0:" + port, "127.0.0.1:" + port} {
		if err := tasks.ProbeWorker(ctx, addr); err != nil {
			t.Errorf("probe %s of a running worker: %v", addr, err)
		}
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "up 1\n" {
		t.Errorf("/metrics = %d %q, want the metrics handler's answer", resp.StatusCode, body)
	}
	srv.Shutdown()
	if err := tasks.ProbeWorker(ctx, ":"+port); err == nil {
		t.Error("probe after Shutdown succeeded")
	}
	ts.Close()
	if err := tasks.ProbeWorker(ctx, ":"+port); err == nil {
		t.Error("probe of a closed listener succeeded")
	}
}

// The scheduler's -healthcheck passes while a scheduler of this host beats
// and leads, and fails before it starts and after it stops.
func TestSchedulerHealthy(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	client, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	if err := tasks.SchedulerHealthy(ctx, client); err == nil || !strings.Contains(err.Error(), "heartbeat") {
		t.Fatalf("health with no scheduler = %v, want a missing heartbeat", err)
	}
	s, err := tasks.NewScheduler(client, redisURL, []tasks.Schedule{{Type: tasks.TypeReconcile, Spec: "@every 1m"}},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := tasks.SchedulerHealthy(ctx, client)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a running scheduler never became healthy: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := tasks.SchedulerHealthy(ctx, client); err == nil {
		t.Error("health after the scheduler stopped passed")
	}
	bad, err := tasks.NewClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := tasks.SchedulerHealthy(ctx, bad); err == nil || !strings.Contains(err.Error(), "redis") {
		t.Errorf("health without Redis = %v, want a Redis error", err)
	}
}
