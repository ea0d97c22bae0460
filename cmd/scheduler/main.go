// Command scheduler enqueues the periodic tasks on their cron specs. Several
// may run; one leads at a time (see tasks.Scheduler).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"infernal/pkg/config"
	"infernal/pkg/redisurl"
	"infernal/pkg/tasks"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		os.Exit(1)
	}
}

func run() error {
	flags := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	healthcheck := flags.Bool("healthcheck", false, "check that Redis answers, a scheduler on this host beats and one leads, then exit")
	if err := flags.Parse(os.Args[1:]); err != nil {
		return err
	}
	cfg, err := config.Load(config.Scheduler, os.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	client, err := tasks.NewClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer client.Close()
	if *healthcheck {
		checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return tasks.SchedulerHealthy(checkCtx, client)
	}
	log := cfg.NewLogger("scheduler")
	redisurl.SetLogger(log)
	s := cfg.Schedules
	// Each platform has its own scans on the same schedules.
	sched, err := tasks.NewScheduler(client, cfg.RedisURL, tasks.PlatformSchedules([]tasks.Schedule{
		{Type: tasks.TypeScanMentions, Spec: s.Mentions},
		{Type: tasks.TypeScanConversations, Spec: s.Conversations},
		{Type: tasks.TypeScanTargeted, Spec: s.Targeted},
		{Type: tasks.TypeGenerateProfile, Spec: s.Profile},
		{Type: tasks.TypeRefreshMetrics, Spec: s.Metrics},
		{Type: tasks.TypeReconcile, Spec: s.Reconcile},
	}, cfg.Platforms), log)
	if err != nil {
		return err
	}
	log.Info("scheduling", "platforms", cfg.Platforms, "mentions", s.Mentions, "conversations", s.Conversations, "targeted", s.Targeted,
		"profile", s.Profile, "metrics", s.Metrics, "reconcile", s.Reconcile)
	return sched.Run(ctx)
}
