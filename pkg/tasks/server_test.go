package tasks_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// The server runs the handlers Register installs, each through the
// Observer, whose counts land in the registry given.
func TestNewServerRunsRegisteredHandlersObserved(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	client, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ran := make(chan string, 1)
	reg := prometheus.NewRegistry()
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: redisURL,
		Register: func(mux *asynq.ServeMux) {
			mux.HandleFunc(tasks.TypeReconcile, func(_ context.Context, t *asynq.Task) error {
				ran <- t.Type()
				return nil
			})
		},
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	if err := client.EnqueuePeriodic(context.Background(), tasks.TypeReconcile); err != nil {
		t.Fatal(err)
	}
	select {
	case typ := <-ran:
		if typ != tasks.TypeReconcile {
			t.Fatalf("ran %q, want %q", typ, tasks.TypeReconcile)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the registered handler never ran")
	}
	// The middleware counts the run once the handler has returned.
	deadline := time.Now().Add(10 * time.Second)
	for okRuns(t, reg) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the Observer did not count the run")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// okRuns reads the Observer's count of reconcile runs that went well.
func okRuns(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	return runs(t, reg, "ok")
}

// runs reads the Observer's count of reconcile runs of an outcome.
func runs(t *testing.T, reg *prometheus.Registry, outcome string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "infernal_task_runs_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["type"] == tasks.TypeReconcile && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// The worker takes its queues in strict priority: with drafts of mentions
// (QueueHigh) and of other posts (QueueDefault) waiting, every slot first
// takes a mention's draft, and the rest run after them.
func TestServerDraftsMentionsFirst(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	client, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	const each = 2 * tasks.DefaultConcurrency
	for i := range int64(each) {
		if err := client.EnqueueDraft(ctx, 1000+i, "sandbox"); err != nil {
			t.Fatal(err)
		}
		if err := client.EnqueueDraftFirst(ctx, 1+i, "sandbox"); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan int64, 2*each)
	hold := make(chan struct{})
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: redisURL,
		Register: func(mux *asynq.ServeMux) {
			mux.HandleFunc(tasks.TypeDraftPost, func(_ context.Context, t *asynq.Task) error {
				p, err := tasks.DecodePost(t)
				if err != nil {
					return err
				}
				started <- p.PostID
				<-hold
				return nil
			})
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	// Every slot is taken and held: these are the first tasks the worker took.
	var first []int64
	for range tasks.DefaultConcurrency {
		select {
		case id := <-started:
			first = append(first, id)
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d drafts started", len(first))
		}
	}
	close(hold)
	for _, id := range first {
		if id >= 1000 {
			t.Errorf("draft %d of QueueDefault started while mentions' drafts waited (first: %v)", id, first)
		}
	}
	seen := len(first)
	for seen < 2*each {
		select {
		case <-started:
			seen++
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d drafts ran", seen, 2*each)
		}
	}
}

// The server runs ServerConfig.Concurrency tasks at once (WORKER_CONCURRENCY),
// DefaultConcurrency when it is zero, and refuses a negative one.
func TestNewServerConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		concurrency int
		want        int
		wantErr     bool
	}{
		{name: "zero is the default", concurrency: 0, want: tasks.DefaultConcurrency},
		{name: "three", concurrency: 3, want: 3},
		{name: "negative", concurrency: -1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			redisURL := taskstest.RedisURL(t)
			started := make(chan struct{}, 64)
			hold := make(chan struct{})
			srv, err := tasks.NewServer(tasks.ServerConfig{
				RedisURL: redisURL, Concurrency: tt.concurrency, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Register: func(mux *asynq.ServeMux) {
					mux.HandleFunc(tasks.TypeDraftPost, func(context.Context, *asynq.Task) error {
						started <- struct{}{}
						<-hold
						return nil
					})
				},
			})
			if tt.wantErr {
				if err == nil {
					t.Fatal("NewServer accepted a negative concurrency")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			client, err := tasks.NewClient(redisURL)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			for i := range int64(tt.want + 3) {
				if err := client.EnqueueDraft(context.Background(), 1+i, "sandbox"); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Shutdown()
			defer close(hold)
			for i := range tt.want {
				select {
				case <-started:
				case <-time.After(30 * time.Second):
					t.Fatalf("only %d tasks started, want %d", i, tt.want)
				}
			}
			select {
			case <-started:
				t.Errorf("more than %d tasks ran at once", tt.want)
			case <-time.After(500 * time.Millisecond):
			}
		})
	}
}

// A run that IsFailure calls no failure is counted "waiting", not "error".
func TestObserverCountsWaitingRuns(t *testing.T) {
	t.Parallel()
	errWait := errors.New("waiting for a window")
	tests := []struct {
		name      string
		err       error
		isFailure func(error) bool
		want      string
	}{
		{name: "no IsFailure: an error", err: errWait, want: "error"},
		{name: "not a failure: waiting", err: errWait, isFailure: func(err error) bool { return !errors.Is(err, errWait) }, want: "waiting"},
		{name: "a failure: an error", err: errors.New("broken"), isFailure: func(err error) bool { return !errors.Is(err, errWait) }, want: "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			redisURL := taskstest.RedisURL(t)
			client, err := tasks.NewClient(redisURL)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			reg := prometheus.NewRegistry()
			srv, err := tasks.NewServer(tasks.ServerConfig{
				RedisURL: redisURL, Metrics: reg, IsFailure: tt.isFailure, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
				RetryDelay: func(int, error, *asynq.Task) time.Duration { return time.Hour },
				Register: func(mux *asynq.ServeMux) {
					mux.HandleFunc(tasks.TypeReconcile, func(context.Context, *asynq.Task) error { return tt.err })
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := client.EnqueuePeriodic(context.Background(), tasks.TypeReconcile); err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Shutdown()
			deadline := time.Now().Add(30 * time.Second)
			for runs(t, reg, tt.want) < 1 {
				if time.Now().After(deadline) {
					t.Fatalf("no %q run counted", tt.want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
