// Command bench runs the benchmark of `make bench` (see package bench and
// bench/run.sh, which starts the throwaway servers and builds the binaries).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"infernal/bench"
)

func main() {
	cfg := bench.Config{Log: os.Stderr}
	flag.StringVar(&cfg.ServerURL, "pg", "", "throwaway PostgreSQL server URL")
	flag.StringVar(&cfg.RedisURL, "redis", "", "throwaway Redis URL")
	flag.StringVar(&cfg.WebBin, "web", "bin/web", "the web binary")
	flag.StringVar(&cfg.WorkerBin, "worker", "bin/worker", "the worker binary")
	flag.StringVar(&cfg.Parts, "parts", "all", "all, pipeline alone, flood (the flood of the public statistics alone) or readpath (the three public API pages alone)")
	flag.StringVar(&cfg.StaticDir, "static", "frontend/dist", "the built frontend")
	flag.Float64Var(&cfg.Scale, "scale", 1, "data set size, 1 = 1,000,000 posts and 200,000 log threads")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "length of each load run")
	flag.StringVar(&cfg.Out, "out", "bench/RESULTS.md", "where the results are written")
	flag.StringVar(&cfg.Analysis, "analysis", "bench/ANALYSIS.md", "hand-written analysis appended to the results")
	probe := flag.String("probe", "", "run as the flood's probe of the web tier at this URL (started by the benchmark itself)")
	probeInterval := flag.Duration("probe-interval", 250*time.Millisecond, "the probe's interval")
	bare := flag.String("bare", "", "run as the ceiling: a bare net/http server answering the recorded answers of this file (started by the benchmark itself)")
	flag.Parse()
	if *bare != "" {
		if err := bench.Bare(*bare, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *probe != "" {
		if err := bench.Probe(*probe, *probeInterval, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if cfg.ServerURL == "" || cfg.RedisURL == "" || cfg.Scale <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -pg and -redis are required, -scale must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
