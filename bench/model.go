package bench

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/openai/openaitest"
)

// ModelConfig is a leg of the model benchmark (issue 20): a burst of
// mentions drafted by worker processes through a local OpenAI-compatible
// stand-in that answers in Latency and allows PerMinute requests a minute.
type ModelConfig struct {
	// ServerURL and RedisURL name the throwaway PostgreSQL and Redis;
	// RedisDB is the Redis database of the leg's queue and windows.
	ServerURL, RedisURL string
	RedisDB             int
	// WorkerBin is the built worker binary.
	WorkerBin string
	// Name labels the leg in the results.
	Name string
	// Mentions is the burst's size.
	Mentions int
	// Workers is how many worker processes draft, each with
	// ModelConcurrency model calls in flight (WorkerConcurrency tasks).
	Workers, WorkerConcurrency, ModelConcurrency int
	// Latency is how long the stand-in takes to answer.
	Latency time.Duration
	// PerMinute is the requests it allows a minute; 0 allows any number
	// and announces no limits, as a local server does.
	PerMinute int
	// Log receives progress lines and the workers' logs.
	Log io.Writer
}

// ModelResult is what a leg measured.
type ModelResult struct {
	Config ModelConfig
	// Drained is how long the burst took from the first enqueue to the
	// last draft listed.
	Drained time.Duration
	// Stats is what the stand-in was asked.
	Stats openaitest.Stats
}

// Bound is the least time the drafts can take: the calls made, one
// Latency each, over the calls in flight, or the calls over the
// provider's rate, whichever is longer.
func (r ModelResult) Bound() time.Duration {
	c := r.Config
	calls := float64(r.Stats.Answered)
	inFlight := float64(c.Workers * c.ModelConcurrency)
	bound := time.Duration(calls * float64(c.Latency) / inFlight)
	if c.PerMinute > 0 {
		bound = max(bound, time.Duration(calls/float64(c.PerMinute)*float64(time.Minute)))
	}
	return bound
}

// Ratio is Drained over Bound.
func (r ModelResult) Ratio() float64 { return r.Drained.Seconds() / r.Bound().Seconds() }

// ModelLeg runs one leg: a fresh database holding cfg.Mentions mentions,
// the stand-in, cfg.Workers worker processes with the openai writer
// pointed at it, then every mention's draft enqueued at once; it returns
// when all are listed for review.
func ModelLeg(ctx context.Context, cfg ModelConfig) (ModelResult, error) {
	dbURL, err := freshDatabase(ctx, cfg.ServerURL, "infernal_model")
	if err != nil {
		return ModelResult{}, err
	}
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return ModelResult{}, fmt.Errorf("bench: %w", err)
	}
	defer st.Close()
	const persona = "infernal_ai"
	ids, err := storetest.SeedMentions(ctx, st.Pool(), persona, cfg.Mentions)
	if err != nil {
		return ModelResult{}, fmt.Errorf("bench: %w", err)
	}
	model := openaitest.New(openaitest.Config{Latency: cfg.Latency, PerMinute: cfg.PerMinute})
	standIn := httptest.NewServer(model)
	defer standIn.Close()
	workURL := redisDB(cfg.RedisURL, cfg.RedisDB)
	client, err := tasks.NewClient(workURL)
	if err != nil {
		return ModelResult{}, fmt.Errorf("bench: %w", err)
	}
	defer client.Close()
	for range cfg.Workers {
		w, err := startModelWorker(ctx, cfg, dbURL, workURL, standIn.URL+"/v1", persona)
		if err != nil {
			return ModelResult{}, err
		}
		defer stopProcess(w)
	}
	if err := settle(ctx, st, cfg.Log); err != nil {
		return ModelResult{}, err
	}
	start := time.Now()
	for _, id := range ids {
		if err := client.EnqueueDraft(ctx, id, post.SandboxPlatform); err != nil {
			return ModelResult{}, fmt.Errorf("bench: enqueue draft: %w", err)
		}
	}
	if err := waitFor(ctx, st, func(a store.AdminStats) bool { return a.Pending == cfg.Mentions }); err != nil {
		return ModelResult{}, fmt.Errorf("bench: model drafts: %w (the stand-in saw %+v)", err, model.Stats())
	}
	res := ModelResult{Config: cfg, Drained: time.Since(start), Stats: model.Stats()}
	fmt.Fprintf(cfg.Log, "bench: %s: %d drafts in %s, bound %s, stand-in %+v\n", cfg.Name, cfg.Mentions,
		res.Drained.Round(time.Millisecond), res.Bound().Round(time.Millisecond), res.Stats)
	return res, nil
}

// startModelWorker runs the worker binary on the sandbox with the openai
// writer pointed at the stand-in at base.
func startModelWorker(ctx context.Context, cfg ModelConfig, dbURL, redisURL, base, persona string) (*exec.Cmd, error) {
	return runWorker(ctx, cfg.WorkerBin, cfg.Log, "DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "PLATFORM=sandbox",
		"WRITER=openai", "OPENAI_BASE_URL="+base, "OPENAI_MODEL=stand-in", "PERSONA_HANDLE="+persona,
		// The burst is bounded by the model here, not by the hour's draft cap
		// (caps.drafts_per_hour, default 120), which would hold all but 120.
		"LOG_LEVEL=error", "SANDBOX_PACE=1h", "DRAFT_CAP_PER_HOUR=100000",
		"WORKER_CONCURRENCY="+strconv.Itoa(cfg.WorkerConcurrency), "MODEL_CONCURRENCY="+strconv.Itoa(cfg.ModelConcurrency))
}

// ModelTable is the legs' results as a Markdown table.
func ModelTable(results []ModelResult) string {
	var b strings.Builder
	b.WriteString("| Leg | Mentions | Workers × model calls in flight | Stand-in | Calls answered | Drained | Bound | Ratio (target ≤ 1.25) | 429s | Calls inside an announced window (target 0) | Most calls at once |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		c := r.Config
		rate := "no limits announced"
		if c.PerMinute > 0 {
			rate = fmt.Sprintf("%d requests/min", c.PerMinute)
		}
		fmt.Fprintf(&b, "| %s | %d | %d × %d | %s, %s each | %d | %.1f s | %.1f s | %.2f (%s) | %d | %d (%s) | %d |\n",
			c.Name, c.Mentions, c.Workers, c.ModelConcurrency, rate, c.Latency, r.Stats.Answered,
			r.Drained.Seconds(), r.Bound().Seconds(), r.Ratio(), verdict(r.Ratio() <= 1.25),
			r.Stats.Refused, r.Stats.InsideWindow, verdict(r.Stats.InsideWindow == 0), r.Stats.MaxInFlight)
	}
	return b.String()
}
