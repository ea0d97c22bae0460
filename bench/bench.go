// Package bench measures the product the way `make bench` reports it: the
// synthetic history, the public read path under load against the real web
// binary, the admin views, the frontend's weight and the processes' memory,
// each figure beside a ceiling measured in the same run. It writes
// bench/RESULTS.md. It is never linked into the product's binaries.
package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Config says where the benchmark runs and how big it is.
type Config struct {
	// ServerURL names the throwaway PostgreSQL server; the benchmark makes
	// its own database there.
	ServerURL string
	// RedisURL names the throwaway Redis.
	RedisURL string
	// WebBin and WorkerBin are the built web and worker binaries.
	WebBin, WorkerBin string
	// Parts names the parts to run: "all", "pipeline" alone, "flood":
	// the data and the flood of the public statistics with its probe alone,
	// or "readpath": the data and the three public API pages alone.
	Parts string
	// StaticDir is the built frontend.
	StaticDir string
	// Scale multiplies the data set (1: 1,000,000 posts, 200,000 threads).
	Scale float64
	// Duration is how long each load run lasts.
	Duration time.Duration
	// Out is where RESULTS.md is written; Analysis, when it exists, is
	// copied at its end.
	Out, Analysis string
	// Log receives progress lines.
	Log io.Writer
}

// Row is one figure of the results table.
type Row struct {
	Figure, Value, Ceiling, Ratio, Target, Verdict string
}

// report gathers the results.
type report struct {
	rows  []Row
	plans []string
	notes []string
}

func (r *report) add(row Row) { r.rows = append(r.rows, row) }

// Run runs every part and writes the results.
func Run(ctx context.Context, cfg Config) error {
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, "bench: "+format+"\n", args...) }
	rep := &report{}
	start := time.Now()
	if cfg.Parts == "pipeline" {
		return runPipeline(ctx, cfg, rep, start, logf)
	}
	// The pipeline runs first, on the fresh server, its rows listed after
	// the admin views': its ceiling runs on Redis alone, so the leg must not
	// meet what the load leaves in PostgreSQL (after the flood, a shared
	// buffer pool hot with the million posts halved the send leg).
	pipeline := &report{}
	if cfg.Parts == "all" {
		logf("pipeline")
		if err := pipelineLeg(ctx, cfg, int(10_000*cfg.Scale), pipeline); err != nil {
			return err
		}
	}
	dbURL, err := freshDatabase(ctx, cfg.ServerURL, "infernal_bench")
	if err != nil {
		return err
	}
	posts, threads := int(1_000_000*cfg.Scale), int(200_000*cfg.Scale)
	logf("generating %d posts and %d log threads", posts, threads)
	if err := generate(ctx, dbURL, posts, threads, rep); err != nil {
		return err
	}
	logf("starting the web tier")
	web, err := startWeb(ctx, cfg, dbURL)
	if err != nil {
		return err
	}
	defer web.stop()
	logf("public read path under load")
	if err := publicLoad(ctx, cfg, web, rep, logf); err != nil {
		return err
	}
	if cfg.Parts == "flood" || cfg.Parts == "readpath" {
		machine, err := describeMachine(ctx, dbURL)
		if err != nil {
			return err
		}
		return writeResults(cfg, rep, machine, time.Since(start))
	}
	logf("admin views")
	if err := adminViews(ctx, web, dbURL, rep); err != nil {
		return err
	}
	rss, err := peakRSS(web.cmd.Process.Pid)
	if err != nil {
		return err
	}
	rep.add(Row{Figure: "web peak RSS (whole run)", Value: fmt.Sprintf("%.0f MiB", float64(rss)/(1<<20)), Target: "< 256 MiB",
		Verdict: verdict(rss < 256<<20)})
	web.stop()
	rep.rows = append(rep.rows, pipeline.rows...)
	logf("frontend weight")
	if err := frontendWeight(cfg.StaticDir, rep); err != nil {
		return err
	}
	machine, err := describeMachine(ctx, dbURL)
	if err != nil {
		return err
	}
	return writeResults(cfg, rep, machine, time.Since(start))
}

// runPipeline runs the pipeline part alone.
func runPipeline(ctx context.Context, cfg Config, rep *report, start time.Time, logf func(string, ...any)) error {
	logf("pipeline")
	if err := pipelineLeg(ctx, cfg, int(10_000*cfg.Scale), rep); err != nil {
		return err
	}
	machine, err := describeMachine(ctx, cfg.ServerURL)
	if err != nil {
		return err
	}
	return writeResults(cfg, rep, machine, time.Since(start))
}

// freshDatabase drops and creates database name on the server and returns its URL.
func freshDatabase(ctx context.Context, serverURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", fmt.Errorf("bench: connect: %w", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`, `CREATE DATABASE ` + name} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return "", fmt.Errorf("bench: %s: %w", sql, err)
		}
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("bench: server URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// verdict says whether a target was met.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// describeMachine names what the figures were measured on.
func describeMachine(ctx context.Context, dbURL string) (string, error) {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				model = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return "", fmt.Errorf("bench: connect: %w", err)
	}
	defer conn.Close(ctx)
	var pg string
	if err := conn.QueryRow(ctx, `SHOW server_version`).Scan(&pg); err != nil {
		return "", fmt.Errorf("bench: server version: %w", err)
	}
	return fmt.Sprintf("%d CPUs (%s), %s/%s, %s, PostgreSQL %s (throwaway: fsync off)",
		runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH, runtime.Version(), pg), nil
}

// writeResults writes RESULTS.md.
func writeResults(cfg Config, rep *report, machine string, took time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark results\n\nWritten by `make bench` on %s in %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), took.Round(time.Second))
	fmt.Fprintf(&b, "- Machine: %s. Load generator, web tier, PostgreSQL and Redis share it, so ratios to a ceiling measured in the same run matter, absolute times do not.\n", machine)
	fmt.Fprintf(&b, "- Scale: %g (%d posts, %d log threads); each load run lasts %s and runs %d times, page and ceiling in turns, the best round of each counting (failures count from every round).\n", cfg.Scale, int(1_000_000*cfg.Scale), int(200_000*cfg.Scale), cfg.Duration, rounds)
	fmt.Fprintf(&b, "- Public pages: the web binary at its shipped defaults (`LOG_LEVEL=info`, its log to a file); ceiling: a bare net/http server in a process of its own answering the same bytes (headers and body). Saturation: %s; fixed rate: vegeta.\n", saturatorDescription())
	if cfg.Scale != 1 {
		fmt.Fprintf(&b, "- **Reduced scale**: the targets are set for scale 1; run `make bench` (scale 1) for the full figures.\n")
	}
	b.WriteString("\n| Figure | Value | Ceiling | Ratio | Target | |\n|---|---|---|---|---|---|\n")
	for _, r := range rep.rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Figure, r.Value, dash(r.Ceiling), dash(r.Ratio), r.Target, r.Verdict)
	}
	if len(rep.plans) > 0 {
		b.WriteString("\n## Plans of the admin views and public reads\n\n| Read | Plan |\n|---|---|\n")
		for _, p := range rep.plans {
			b.WriteString(p + "\n")
		}
	}
	for _, n := range rep.notes {
		b.WriteString("\n" + n + "\n")
	}
	if cfg.Analysis != "" {
		if a, err := os.ReadFile(cfg.Analysis); err == nil {
			b.WriteString("\n" + string(a))
		}
	}
	if err := os.WriteFile(cfg.Out, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("bench: write results: %w", err)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
