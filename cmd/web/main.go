// Command web serves the JSON API, the built frontend and the queue
// dashboard. It only wires the parts together; see pkg/api.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hibiken/asynqmon"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/config"
	"infernal/pkg/embeddings"
	"infernal/pkg/knowledge"
	"infernal/pkg/logbuf"
	"infernal/pkg/persona"
	"infernal/pkg/ratelimit"
	"infernal/pkg/redisurl"
	"infernal/pkg/retrieval"
	"infernal/pkg/spend"
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
	cfg, err := config.Load(config.Web, os.Getenv)
	if err != nil {
		return err
	}
	// One line per request goes to the log: it is written in batches by a
	// goroutine of its own, so no request waits for stderr, and every line
	// waiting is written when run returns, after the graceful shutdown.
	logOut := logbuf.New(os.Stderr, logbuf.Options{})
	defer func() {
		if err := logOut.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "web: log:", err)
		}
	}()
	log := cfg.NewLoggerTo(logOut, "web")
	cfg.WarnUnbounded(log)
	redisurl.SetLogger(log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Half the connections serve the public pages, whose answers are cached,
	// the rest the admin API, the login and the health checks.
	st, err := store.Open(ctx, cfg.DatabaseURL, store.WithMaxConns(cfg.DatabaseMaxConns),
		store.WithPublicPool(max(1, cfg.DatabaseMaxConns/2)), store.WithStatementTimeout(api.RequestTimeout))
	if err != nil {
		return err
	}
	defer st.Close()
	// The first process to start stores the built-in persona as version 1.
	if _, err := st.SeedPersona(ctx, persona.Default()); err != nil {
		return err
	}
	// The first process to start stores the sample knowledge document, once.
	if _, err := st.SeedKnowledge(ctx, knowledge.SampleTitle, len(knowledge.SampleText), knowledge.Split(knowledge.SampleText)); err != nil {
		return err
	}
	queue, err := tasks.NewClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer queue.Close()
	authn, err := auth.NewService(st, cfg.SessionTTL, time.Now, auth.WithLogger(log))
	if err != nil {
		return err
	}
	generated, err := authn.Bootstrap(ctx, cfg.AdminUsername, cfg.AdminPassword, log)
	if err != nil {
		return fmt.Errorf("admin bootstrap: %w", err)
	}
	if generated != "" {
		revealPassword(cfg.AdminPasswordFile, cfg.AdminUsername, generated, log)
	}
	go authn.PruneEvery(ctx, time.Hour, log)
	redisConn, err := redisurl.Parse(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	ops := asynqmon.New(asynqmon.Options{RootPath: api.OpsPath, RedisConnOpt: redisConn.Asynq(), ReadOnly: cfg.AsynqmonReadOnly})
	defer ops.Close()

	// The knowledge search ranks as the worker's drafts do: with
	// EMBEDDINGS_MODEL, by the provider's embeddings too, their tokens
	// counted in the model spend like the worker's.
	var embedder retrieval.Embedder
	if cfg.Embeddings() {
		meter := &spend.Meter{Ledger: st, Prices: cfg.Prices, Log: log, Now: time.Now}
		if embedder, err = embeddings.New(embeddings.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey,
			Model: cfg.EmbeddingsModel, Usage: meter.Usage}); err != nil {
			return err
		}
	}

	metrics := tasks.MetricsHandler(queue.Inspector())
	windows, err := ratelimit.Open(cfg.RedisURL, cfg.RateLimitMargin)
	if err != nil {
		return err
	}
	defer windows.Close()
	handler := api.New(api.Config{
		Store: st, Auth: authn, Queue: queue, Log: log, Now: time.Now,
		Handle: cfg.PersonaHandle, Handles: cfg.Handles(), Platform: cfg.Platform, Platforms: cfg.Platforms, StaticDir: cfg.StaticDir, TrustedProxies: cfg.TrustedProxies,
		Ops: ops, Metrics: metrics, PublicURL: cfg.PublicURL,
		MetricsToken: cfg.MetricsToken, MediaHosts: cfg.MediaHosts,
		Prices: cfg.Prices, Budgets: cfg.Budgets, Windows: windows, ModelVision: cfg.ModelVision, Blind: queue,
		// A session's call counts as in flight until its request ends, at the latest at its deadline.
		ModelCalls:   windows.Sessions(api.RequestTimeout),
		BenchCeiling: cfg.BenchCeiling,
		Embedder:     embedder,
	})
	srv := api.NewHTTPServer(cfg.HTTPAddr, handler, log)
	errc := make(chan error, 2)
	go func() { errc <- srv.ListenAndServe() }()
	// METRICS_ADDR, when set, serves the queue metrics without login on a
	// listener of its own, for a Prometheus on a private network.
	var metricsSrv *http.Server
	if cfg.MetricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		metricsSrv = &http.Server{Addr: cfg.MetricsAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { errc <- metricsSrv.ListenAndServe() }()
	}
	log.Info("listening", "addr", cfg.HTTPAddr, "platform", cfg.Platform, "metrics", cfg.MetricsAddr,
		"metrics_token", cfg.MetricsToken != "", "media_hosts", cfg.MediaHosts, "embeddings", embedder != nil)

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
	if metricsSrv != nil {
		if err := metricsSrv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("metrics shutdown: %w", err)
		}
	}
	return nil
}

// revealPassword hands a generated admin password to the operator once,
// never through the JSON log that collectors gather: it goes to an
// owner-only file whose path is logged or, when that cannot be written, to
// the terminal as a plain line outside the log.
func revealPassword(path, username, password string, log *slog.Logger) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := auth.WritePasswordFile(path, password); err != nil {
		fmt.Fprintf(os.Stderr, "web: the administrator %q was created with this generated password, shown only this once: %s\n", username, password)
		log.Warn("created the administrator with a generated password; the file could not be written, so it was printed on stderr outside the log",
			"username", username, "path", path, "error", err)
		return
	}
	log.Warn("created the administrator with a generated password; read it from the file (owner-only), then delete the file",
		"username", username, "path", path)
}
