// Command web serves the JSON API, the built frontend and the queue
// dashboard. It only wires the parts together; see pkg/api.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/config"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	log := cfg.NewLogger("web")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	queue, err := tasks.NewClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer queue.Close()
	authn, err := auth.NewService(st, cfg.SessionTTL, time.Now)
	if err != nil {
		return err
	}
	if err := authn.Bootstrap(ctx, cfg.AdminUsername, cfg.AdminPassword, log); err != nil {
		return fmt.Errorf("admin bootstrap: %w", err)
	}
	go authn.PruneEvery(ctx, time.Hour, log)
	redisOpt, err := asynq.ParseRedisURI(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	ops := asynqmon.New(asynqmon.Options{RootPath: api.OpsPath, RedisConnOpt: redisOpt})
	defer ops.Close()

	handler := api.New(api.Config{
		Store: st, Auth: authn, Queue: queue, Log: log, Now: time.Now,
		Persona: cfg.PersonaHandle, Platform: cfg.Platform, StaticDir: cfg.StaticDir, TrustedProxies: cfg.TrustedProxies,
		Ops: ops, Metrics: tasks.MetricsHandler(queue.Inspector()),
	})
	srv := api.NewHTTPServer(cfg.HTTPAddr, handler, log)
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("listening", "addr", cfg.HTTPAddr, "platform", cfg.Platform, "writer", cfg.Writer)

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
