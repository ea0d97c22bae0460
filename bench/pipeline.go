package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
)

// pipelineTimeout bounds each leg of the pipeline run.
const pipelineTimeout = 10 * time.Minute

// heldSends is the tasks client with the sends of approvals held back:
// the pipeline leg enqueues them itself, on the clock.
type heldSends struct {
	*tasks.Client
}

// EnqueueSend holds the send back.
func (heldSends) EnqueueSend(context.Context, int64) error { return nil }

// pipelineLeg drafts n mentions to pending, then sends n approvals to
// posted, with one worker process on the sandbox and the offline writer;
// the ceiling is n no-op tasks through the same tasks.NewServer settings.
func pipelineLeg(ctx context.Context, cfg Config, n int, rep *report) error {
	dbURL, err := freshDatabase(ctx, cfg.ServerURL, "infernal_pipeline")
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer st.Close()
	const persona = "infernal_ai"
	// The leg measures the send path, not the send caps: stored before the
	// worker starts (so its seeding changes nothing), caps far beyond what
	// the admin may set let every approval go at once.
	if _, err := st.Pool().Exec(ctx, `INSERT INTO settings (id, caps) VALUES (true, '{"sends_per_3h": 1000000, "sends_per_day": 1000000}')`); err != nil {
		return fmt.Errorf("bench: lift the send caps: %w", err)
	}
	ids, err := storetest.SeedMentions(ctx, st.Pool(), persona, n)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	// Redis databases of their own, apart from the tasks the admin views queued.
	workURL, noopURL := redisDB(cfg.RedisURL, 1), redisDB(cfg.RedisURL, 2)
	client, err := tasks.NewClient(workURL)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer client.Close()
	worker, err := startWorker(ctx, cfg, dbURL, workURL, persona)
	if err != nil {
		return err
	}
	defer stopProcess(worker)

	if err := settle(ctx, st, cfg.Log); err != nil {
		return err
	}
	start := time.Now()
	for _, id := range ids {
		if err := client.EnqueueDraft(ctx, id, post.SandboxPlatform); err != nil {
			return fmt.Errorf("bench: enqueue draft: %w", err)
		}
	}
	if err := waitFor(ctx, st, func(a store.AdminStats) bool { return a.Pending == n }); err != nil {
		return fmt.Errorf("bench: drafts: %w", err)
	}
	draftRate := float64(n) / time.Since(start).Seconds()
	fmt.Fprintf(cfg.Log, "bench: %d drafts in %s\n", n, time.Since(start).Round(time.Millisecond))

	// The approvals come first, off the clock: an administrator approves one
	// card at a time, and a loop of them here timed this benchmark's client,
	// not the worker (the last post went out within a second of the last
	// approval). They go through pkg/decision, as the approve route's do,
	// with their sends held back; the leg then enqueues the sends on the
	// clock.
	decide := decision.New(st, heldSends{client}, persona, slog.New(slog.NewTextHandler(io.Discard, nil)))
	approveStart := time.Now()
	for _, id := range ids {
		if _, err := decide.Approve(ctx, id, decision.Approval{By: post.ByWeb}); err != nil {
			return fmt.Errorf("bench: approve: %w", err)
		}
	}
	fmt.Fprintf(cfg.Log, "bench: %d approvals in %s\n", n, time.Since(approveStart).Round(time.Millisecond))
	if err := settle(ctx, st, cfg.Log); err != nil {
		return err
	}
	start = time.Now()
	for _, id := range ids {
		if err := client.EnqueueSend(ctx, id); err != nil {
			return fmt.Errorf("bench: enqueue send: %w", err)
		}
	}
	if err := waitFor(ctx, st, func(a store.AdminStats) bool { return a.Posted == n }); err != nil {
		return fmt.Errorf("bench: sends: %w", err)
	}
	sendRate := float64(n) / time.Since(start).Seconds()
	fmt.Fprintf(cfg.Log, "bench: %d sends in %s\n", n, time.Since(start).Round(time.Millisecond))
	var twice, replies int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE c > 1), coalesce(sum(c), 0) FROM
		(SELECT in_reply_to_id, count(*) AS c FROM sandbox_posts WHERE kind = 'persona' GROUP BY in_reply_to_id) r`).
		Scan(&twice, &replies); err != nil {
		return fmt.Errorf("bench: duplicates: %w", err)
	}
	rss, err := peakRSS(worker.Process.Pid)
	if err != nil {
		return err
	}

	noopRate, err := noopCeiling(ctx, noopURL, n)
	if err != nil {
		return err
	}
	leg := func(name string, rate float64) Row {
		return Row{Figure: fmt.Sprintf("pipeline: %d %s, one worker process (sandbox, offline writer)", n, name),
			Value: fmt.Sprintf("%.0f /s", rate), Ceiling: fmt.Sprintf("%.0f no-op tasks/s", noopRate),
			Ratio: fmt.Sprintf("%.2f", rate/noopRate), Target: "≥ 0.50 × ceiling", Verdict: verdict(rate >= noopRate/2)}
	}
	rep.add(leg("mentions drafted to pending (drafts enqueued as a scan does)", draftRate))
	rep.add(leg("approvals sent to posted", sendRate))
	rep.add(Row{Figure: "pipeline: posts sent more than once", Value: fmt.Sprintf("%d (of %d replies)", twice, replies),
		Target: "0", Verdict: verdict(twice == 0 && replies == n)})
	rep.add(Row{Figure: "worker peak RSS (pipeline run)", Value: fmt.Sprintf("%.0f MiB", float64(rss)/(1<<20)),
		Target: "< 256 MiB", Verdict: verdict(rss < 256<<20)})
	return nil
}

// settleTimeout bounds settle's wait for autovacuum.
const settleTimeout = 2 * time.Minute

// settle lets the server finish what earlier parts left it (the million
// posts' autovacuum, dirty pages) before a leg's clock starts: the leg
// measures the pipeline, and its ceiling, measured on Redis alone, would
// not share that work. It checkpoints, then waits for the autovacuum
// workers to finish, up to settleTimeout.
func settle(ctx context.Context, st *store.Store, log io.Writer) error {
	if _, err := st.Pool().Exec(ctx, `CHECKPOINT`); err != nil {
		return fmt.Errorf("bench: checkpoint: %w", err)
	}
	deadline := time.Now().Add(settleTimeout)
	for {
		var workers int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`).Scan(&workers); err != nil {
			return fmt.Errorf("bench: autovacuum workers: %w", err)
		}
		if workers == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(log, "bench: %d autovacuum workers still running after %s; the leg starts anyway\n", workers, settleTimeout)
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// noopCeiling runs n no-op tasks through a server built by tasks.NewServer,
// enqueued one by one as the pipeline's are, and returns tasks per second.
func noopCeiling(ctx context.Context, redisURL string, n int) (float64, error) {
	var done atomic.Int64
	finished := make(chan struct{})
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: redisURL, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Register: func(mux *asynq.ServeMux) {
			mux.HandleFunc("bench:noop", func(context.Context, *asynq.Task) error {
				if done.Add(1) == int64(n) {
					close(finished)
				}
				return nil
			})
		},
	})
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	opt, err := asynq.ParseRedisURI(redisURL)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	client := asynq.NewClient(opt)
	defer client.Close()
	if err := srv.Start(); err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	defer srv.Shutdown()
	start := time.Now()
	for i := range n {
		if _, err := client.EnqueueContext(ctx, asynq.NewTask("bench:noop", nil), asynq.Queue(tasks.QueueDefault),
			asynq.TaskID(fmt.Sprintf("noop-%d", i))); err != nil {
			return 0, fmt.Errorf("bench: enqueue no-op: %w", err)
		}
	}
	select {
	case <-finished:
	case <-time.After(pipelineTimeout):
		return 0, fmt.Errorf("bench: no-op tasks: %d of %d after %s", done.Load(), n, pipelineTimeout)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// waitFor polls the admin statistics until ok holds.
func waitFor(ctx context.Context, st *store.Store, ok func(store.AdminStats) bool) error {
	deadline := time.Now().Add(pipelineTimeout)
	for {
		a, err := st.AdminStats(ctx)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if ok(a) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: still %+v after %s", a, pipelineTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startWorker runs the worker binary on the sandbox with the offline writer.
func startWorker(ctx context.Context, cfg Config, dbURL, redisURL, persona string) (*exec.Cmd, error) {
	return runWorker(ctx, cfg.WorkerBin, cfg.Log, "DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "PLATFORM=sandbox",
		"WRITER=offline", "PERSONA_HANDLE="+persona, "LOG_LEVEL=warn", "SANDBOX_PACE=1h")
}

// runWorker starts the worker binary bin with env added to this process's
// environment and a free metrics port, its output to log, and returns once
// it serves its metrics, that is once it works: the clock starts then.
func runWorker(ctx context.Context, bin string, log io.Writer, env ...string) (*exec.Cmd, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: free port: %w", err)
	}
	metrics := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("bench: free port: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(append(os.Environ(), env...), "METRICS_ADDR="+metrics)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start worker: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return cmd, nil
			}
		}
		if time.Now().After(deadline) {
			stopProcess(cmd)
			return nil, fmt.Errorf("bench: worker not ready: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stopProcess ends a process started by the benchmark.
func stopProcess(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
	}
}

// redisDB returns redisURL naming database db instead.
func redisDB(redisURL string, db int) string {
	i := strings.LastIndex(redisURL, "/")
	return fmt.Sprintf("%s/%d", redisURL[:i], db)
}
