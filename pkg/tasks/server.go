package tasks

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"infernal/pkg/redisurl"
)

// The worker's server settings.
const (
	// DefaultConcurrency is how many tasks one worker runs at once when
	// ServerConfig.Concurrency is zero; the worker passes
	// WORKER_CONCURRENCY.
	DefaultConcurrency = 8
	// ShutdownTimeout is how long a stopping worker lets running tasks
	// finish before it hands them back to the queue.
	ShutdownTimeout = 25 * time.Second
)

// ServerConfig is what the worker's server is built from. Everything else
// (queue priorities, shutdown timeout, log level) is fixed by NewServer,
// the same for the worker and its tests.
type ServerConfig struct {
	// RedisURL names the Redis that carries the work.
	RedisURL string
	// Register routes every task type to its handler on mux.
	Register func(mux *asynq.ServeMux)
	// Log receives the failures the Observer reports.
	Log *slog.Logger
	// Metrics is where the per-task metrics are registered; nil keeps them
	// in a registry of their own.
	Metrics prometheus.Registerer
	// RetryDelay tells how long a failed task waits before its next attempt;
	// nil means asynq's default backoff. The worker passes pipeline.RetryDelay.
	RetryDelay asynq.RetryDelayFunc
	// IsFailure tells which errors of a handler count against the task's
	// retries; nil counts every error. The worker passes pipeline.IsFailure.
	// The others are counted with the outcome "waiting" and logged at debug
	// level only.
	IsFailure func(error) bool
	// Concurrency is how many tasks run at once (WORKER_CONCURRENCY);
	// zero means DefaultConcurrency.
	Concurrency int
	// DelayedTaskCheckInterval is how often retries and scheduled tasks that
	// are due get queued; zero means asynq's default of 5 seconds. Tests
	// shorten it so that short retry delays are honoured promptly.
	DelayedTaskCheckInterval time.Duration
}

// Server runs the worker's tasks: an asynq server and its mux, every handler
// wrapped by the Observer.
type Server struct {
	srv *asynq.Server
	mux *asynq.ServeMux
	// running is set between Start and Shutdown, for the health check.
	running atomic.Bool
}

// NewServer builds the worker's server: cfg.Concurrency tasks at once, the
// queues taken in the strict order of QueuePriorities, ShutdownTimeout to finish, asynq's own
// logs from warnings up, and an Observer middleware around the handlers
// cfg.Register installs.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Register == nil {
		return nil, errors.New("tasks: server: no handlers to register")
	}
	if cfg.Log == nil {
		return nil, errors.New("tasks: server: no logger")
	}
	if cfg.Concurrency < 0 {
		return nil, fmt.Errorf("tasks: server: concurrency %d is negative", cfg.Concurrency)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	conn, err := redisurl.Parse(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
	}
	reg := cfg.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	observer, err := NewObserver(reg, cfg.Log)
	if err != nil {
		return nil, fmt.Errorf("tasks: server: %w", err)
	}
	observer.isFailure = cfg.IsFailure
	mux := asynq.NewServeMux()
	mux.Use(observer.Middleware)
	cfg.Register(mux)
	srv := asynq.NewServer(conn.Asynq(), asynq.Config{
		Concurrency:              cfg.Concurrency,
		Queues:                   QueuePriorities,
		StrictPriority:           true,
		RetryDelayFunc:           cfg.RetryDelay,
		IsFailure:                cfg.IsFailure,
		ShutdownTimeout:          ShutdownTimeout,
		LogLevel:                 asynq.WarnLevel,
		DelayedTaskCheckInterval: cfg.DelayedTaskCheckInterval,
	})
	return &Server{srv: srv, mux: mux}, nil
}

// Start begins processing tasks in the background.
func (s *Server) Start() error {
	if err := s.srv.Start(s.mux); err != nil {
		return fmt.Errorf("tasks: start server: %w", err)
	}
	s.running.Store(true)
	return nil
}

// Shutdown stops taking tasks, waits up to ShutdownTimeout for the running
// ones, then hands the unfinished ones back to the queue.
func (s *Server) Shutdown() {
	s.running.Store(false)
	s.srv.Shutdown()
}
