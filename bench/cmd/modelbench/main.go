// Command modelbench runs the model leg of `make bench` (issue 20): a burst
// of mentions drafted through a local OpenAI-compatible stand-in that
// answers in a second and allows R requests a minute, once bound by the
// provider's rate (two workers sharing its windows) and once by the calls
// in flight (a local server announcing no limits). It prints the results
// as a Markdown table; bench/run.sh appends it to bench/RESULTS.md.
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
	base := bench.ModelConfig{Log: os.Stderr, Latency: time.Second, WorkerConcurrency: 32}
	flag.StringVar(&base.ServerURL, "pg", "", "throwaway PostgreSQL server URL")
	flag.StringVar(&base.RedisURL, "redis", "", "throwaway Redis URL")
	flag.StringVar(&base.WorkerBin, "worker", "bin/worker", "the worker binary")
	flag.IntVar(&base.Mentions, "mentions", 600, "the burst's size")
	flag.IntVar(&base.ModelConcurrency, "model-concurrency", 16, "MODEL_CONCURRENCY of each worker")
	flag.DurationVar(&base.Latency, "latency", time.Second, "how long the stand-in takes to answer")
	perMinute := flag.Int("rate", 600, "R: the requests a minute the stand-in allows in the rate-bound leg")
	flag.Parse()
	if base.ServerURL == "" || base.RedisURL == "" || base.Mentions <= 0 || *perMinute <= 0 {
		fmt.Fprintln(os.Stderr, "modelbench: -pg and -redis are required, -mentions and -rate must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rate, local := base, base
	rate.Name, rate.Workers, rate.PerMinute, rate.RedisDB = "provider's rate", 2, *perMinute, 3
	local.Name, local.Workers, local.RedisDB = "calls in flight", 1, 4
	var results []bench.ModelResult
	for _, leg := range []bench.ModelConfig{rate, local} {
		fmt.Fprintf(os.Stderr, "modelbench: %s\n", leg.Name)
		r, err := bench.ModelLeg(ctx, leg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	fmt.Print(bench.ModelTable(results))
}
