// Command worker runs the pipeline's tasks: scanning, drafting, sending,
// metrics and reconciliation. It only wires the parts; see pkg/pipeline and
// tasks.NewServer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"infernal/pkg/config"
	"infernal/pkg/decision"
	"infernal/pkg/embeddings"
	"infernal/pkg/knowledge"
	"infernal/pkg/persona"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/bluesky"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/ratelimit"
	"infernal/pkg/redisurl"
	"infernal/pkg/retrieval"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/telegram"
	"infernal/pkg/writer"
	"infernal/pkg/writer/offline"
	"infernal/pkg/writer/openai"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run() error {
	flags := flag.NewFlagSet("worker", flag.ContinueOnError)
	healthcheck := flags.Bool("healthcheck", false, "check that the worker on this machine runs (its METRICS_ADDR's /healthz), then exit")
	if err := flags.Parse(os.Args[1:]); err != nil {
		return err
	}
	cfg, err := config.Load(config.Worker, os.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *healthcheck {
		return tasks.ProbeWorker(ctx, cfg.MetricsAddr)
	}
	log := cfg.NewLogger("worker")
	cfg.WarnUnbounded(log)
	redisurl.SetLogger(log)

	st, err := store.Open(ctx, cfg.DatabaseURL, store.WithMaxConns(cfg.DatabaseMaxConns))
	if err != nil {
		return err
	}
	defer st.Close()
	client, err := tasks.NewClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer client.Close()

	windows, err := ratelimit.Open(cfg.RedisURL, cfg.RateLimitMargin)
	if err != nil {
		return err
	}
	defer windows.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	meter := &spend.Meter{Ledger: st, Prices: cfg.Prices, Counters: spend.NewCounters(reg), Log: log, Now: time.Now}

	targets := cfg.TargetUsernames
	accounts := make([]pipeline.Account, 0, len(cfg.Platforms))
	for _, name := range cfg.Platforms {
		a, err := newAccount(ctx, name, cfg, st, windows, meter, client, log)
		if err != nil {
			return err
		}
		if name == post.SandboxPlatform && len(targets) == 0 {
			// The sandbox's own targeted accounts, so the Targeted tab fills without configuration.
			targets = corpus.TargetUsernames()
		}
		accounts = append(accounts, a)
	}
	var w writer.Writer
	var embedder retrieval.Embedder
	switch cfg.Writer {
	case config.WriterOpenAI:
		ow, err := openai.New(openai.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey, Model: cfg.OpenAIModel,
			Temperature: post.DefaultLLMParameter, PresencePenalty: post.DefaultLLMParameter, FrequencyPenalty: post.DefaultLLMParameter,
			Usage: meter.Usage, Concurrency: cfg.ModelConcurrency, Limiter: windows,
			Vision: openai.Vision(cfg.ModelVision), Blind: client, Log: log})
		if err != nil {
			return err
		}
		w = ow
		if cfg.Embeddings() {
			// Through the writer's HTTP client: the embeddings share its
			// rate-limit windows and MODEL_CONCURRENCY, and count in the
			// model spend like its calls.
			if embedder, err = embeddings.New(embeddings.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey,
				Model: cfg.EmbeddingsModel, HTTPClient: ow.HTTPClient(), Usage: meter.Usage}); err != nil {
				return err
			}
		}
	default:
		w = offline.New(cfg.PersonaHandle)
	}

	seed, err := settings.Settings{
		TargetUsernames: targets, SearchTopics: cfg.SearchTopics, BlockedAuthors: cfg.BlockedAuthors, BlockedPhrases: cfg.BlockedPhrases,
		Caps: settings.Caps{PerConversation: cfg.Caps.PerConversation, PerAuthorPerDay: cfg.Caps.PerAuthorPerDay,
			SendsPer3Hours: cfg.Caps.SendsPer3Hours, SendsPerDay: cfg.Caps.SendsPerDay, NearDuplicate: cfg.Caps.NearDuplicate,
			DraftsPerHour: cfg.Caps.DraftsPerHour},
		Learning: settings.DefaultLearning(), Knowledge: settings.DefaultKnowledge(),
	}.Normalize()
	if err != nil {
		return fmt.Errorf("config: TARGET_USERNAMES, SEARCH_TOPICS, BLOCKED_AUTHORS, BLOCKED_PHRASES or a cap: %w", err)
	}
	seeded, err := st.SeedSettings(ctx, seed)
	if err != nil {
		return err
	}
	if !seeded {
		log.Info("settings already stored: the admin's targets, topics, blocklists and caps are used, not the environment's")
	}
	if _, err := st.SeedPersona(ctx, persona.Default()); err != nil {
		return err
	}
	// The first process to start stores the sample knowledge document, once.
	if _, err := st.SeedKnowledge(ctx, knowledge.SampleTitle, len(knowledge.SampleText), knowledge.Split(knowledge.SampleText)); err != nil {
		return err
	}

	pipe := pipeline.New(pipeline.Config{
		Store: st, Accounts: accounts, Writer: w, Queue: client, Log: log, Now: time.Now, Handle: cfg.PersonaHandle,
		HandPostedEvery: cfg.HandPostedInterval,
		Spend:           meter, Budgets: cfg.Budgets,
		LearningChars: cfg.LearningPromptChars, Embedder: embedder,
	})
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: cfg.RedisURL, Register: pipe.Register, Log: log, Metrics: reg, RetryDelay: pipeline.RetryDelay,
		IsFailure: pipeline.IsFailure, Concurrency: cfg.WorkerConcurrency,
	})
	if err != nil {
		return err
	}
	// The Telegram link's first run counts from here, so no draft this
	// worker makes is taken for one older than the link.
	started := time.Now()
	if err := srv.Start(); err != nil {
		return err
	}
	metricsAddr := cfg.MetricsAddr
	metrics := &http.Server{Addr: metricsAddr, Handler: srv.Handler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := metrics.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server stopped", "addr", metricsAddr, "error", err)
		}
	}()
	if cfg.Telegram.Enabled() {
		tg, err := telegram.NewClient(cfg.Telegram.Token, cfg.Telegram.APIBaseURL)
		if err != nil {
			return err
		}
		channel := telegram.New(telegram.Config{
			Messenger: tg, Store: st, Decider: decision.New(st, client, cfg.PersonaHandle, log, decision.Running(cfg.Platforms)), Leases: client, Windows: windows,
			Admin: cfg.Telegram.AdminUserID, Chat: cfg.Telegram.ChatID, Burst: cfg.Telegram.Burst, PublicURL: cfg.PublicURL,
			Handle: cfg.PersonaHandle, Handles: cfg.Handles(), Prices: cfg.Prices, Log: log, Started: started,
		})
		done := make(chan struct{})
		go func() { defer close(done); channel.Run(ctx) }()
		defer func() { <-done }()
	}
	log.Info("working", "platforms", cfg.Platforms, "telegram", cfg.Telegram.Enabled(), "writer", w.Name(), "settings_seeded", seeded, "metrics", metricsAddr,
		"worker_concurrency", cfg.WorkerConcurrency, "model_concurrency", cfg.ModelConcurrency, "database_max_conns", cfg.DatabaseMaxConns)

	<-ctx.Done()
	log.Info("shutting down: in-flight tasks get 25 s to finish, the rest go back to the queue")
	// Shutdown waits for running handlers up to ShutdownTimeout, then hands unfinished tasks back.
	srv.Shutdown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := metrics.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("metrics shutdown: %w", err)
	}
	return nil
}

// newAccount connects to the platform named, with its rules (and, on
// Mastodon, the limit its server announces).
func newAccount(ctx context.Context, name string, cfg config.Config, st *store.Store, windows *ratelimit.Windows, meter *spend.Meter,
	client *tasks.Client, log *slog.Logger) (pipeline.Account, error) {
	a := pipeline.Account{ReplyPolicy: platform.ReplyPolicy(cfg.ReplyPolicy), HandPosting: handPosting(cfg.HandPosting)}
	var err error
	switch name {
	case post.BlueskyPlatform:
		a.Platform, err = bluesky.New(bluesky.Config{PDSURL: cfg.BlueskyPDSURL, Handle: cfg.BlueskyHandle, AppPassword: cfg.BlueskyAppPassword,
			Limiter: windows})
		// X's summoned-only rule is X's: on Bluesky any post may be answered,
		// within its threadgate (which the client reads before each reply).
		a.ReplyPolicy = platform.ReplyOpen
		a.HandPosting = nil
		// The persona is known by its domain there (Handles leaves a DID to PERSONA_HANDLE).
		a.Handle = cfg.Handles()[name]
	case post.MastodonPlatform:
		var mc *mastodon.Client
		mc, err = mastodon.New(mastodon.Config{Server: cfg.MastodonServer, AccessToken: cfg.MastodonAccessToken,
			ReplyToDirect: replyToDirect(st), Limiter: windows})
		if err != nil {
			break
		}
		a.Platform = mc
		// The server's own limit; unread (the server is down), the descriptor's 500 stands.
		if a.MaxLength, err = mc.MaxCharacters(ctx); err != nil {
			log.Warn("mastodon: the server's limit is unread; 500 characters", "error", err)
			a.MaxLength, err = 0, nil
		}
		// X's summoned-only rule is X's; hand-posting is X's web intent.
		a.ReplyPolicy = platform.ReplyOpen
		a.HandPosting = nil
	case post.XPlatform:
		a.Platform, err = x.New(x.Config{BaseURL: cfg.XAPIBaseURL, APIKey: cfg.XAPIKey, APISecret: cfg.XAPISecret,
			AccessToken: cfg.XAccessToken, AccessSecret: cfg.XAccessSecret,
			Limiter: windows, Meter: meter, MaxResults: cfg.XMaxResults, RepliesSummon: cfg.Prices.RepliesSummon,
			Namings: client, Log: log})
	default:
		var entries []corpus.Entry
		entries, err = corpus.Load()
		if err != nil {
			return a, err
		}
		a.Platform, err = sandbox.New(st.Pool(), cfg.PersonaHandle, cfg.SandboxPace, entries, time.Now,
			sandbox.WithReplyPolicy(platform.ReplyPolicy(cfg.ReplyPolicy)))
	}
	if err != nil {
		return a, fmt.Errorf("platform %s: %w", name, err)
	}
	return a, nil
}

// replyToDirect reads the admin's platforms.mastodon.reply_to_direct at each call (a
// scan's read of the mentions, a reply's send), so a change in the admin
// applies at the next one without a restart; the cache makes each call one
// read of the settings' version while they stay unchanged.
func replyToDirect(st *store.Store) func(context.Context) (bool, error) {
	cache := &store.SettingsCache{}
	return func(ctx context.Context) (bool, error) {
		set, err := st.CachedSettings(ctx, cache)
		if err != nil {
			return false, err
		}
		return set.Platforms.On(post.MastodonPlatform, post.OptionReplyToDirect), nil
	}
}

// handPosting is the sources of HAND_POSTING_SOURCES.
func handPosting(names []string) []post.Source {
	out := make([]post.Source, 0, len(names))
	for _, n := range names {
		out = append(out, post.Source(n))
	}
	return out
}
