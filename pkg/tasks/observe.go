package tasks

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
)

// Observer counts and times every task the worker runs, and logs failures.
type Observer struct {
	log      *slog.Logger
	runs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// isFailure tells a failure from a task that waits (a draft for the
	// model's window, a send the caps hold); nil counts every error.
	isFailure func(error) bool
}

// NewObserver registers the per-task metrics with reg.
func NewObserver(reg prometheus.Registerer, log *slog.Logger) (*Observer, error) {
	o := &Observer{
		log: log,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "infernal_task_runs_total", Help: "Task runs by type and outcome (ok, error, waiting, skipped).",
		}, []string{"type", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "infernal_task_duration_seconds", Help: "Task run time by type.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"type"}),
	}
	for _, c := range []prometheus.Collector{o.runs, o.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Middleware wraps every handler of the mux.
func (o *Observer) Middleware(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		err := next.ProcessTask(ctx, t)
		o.duration.WithLabelValues(t.Type()).Observe(time.Since(start).Seconds())
		outcome := "ok"
		switch {
		case errors.Is(err, asynq.SkipRetry):
			outcome = "skipped"
			o.log.ErrorContext(ctx, "task refused without retry", "type", t.Type(), "error", err)
		case err != nil && o.isFailure != nil && !o.isFailure(err):
			// Retried without using an attempt: not a failure.
			outcome = "waiting"
			o.log.DebugContext(ctx, "task waits; retried without using an attempt", "type", t.Type(), "reason", err)
		case err != nil:
			outcome = "error"
			o.log.WarnContext(ctx, "task failed; it will be retried", "type", t.Type(), "error", err)
		}
		o.runs.WithLabelValues(t.Type(), outcome).Inc()
		return err
	})
}
