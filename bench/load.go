package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// saturationWorkers is how many keep-alive connections the saturating load
// keeps busy, as `wrk -c32` did when the flood was first measured.
const saturationWorkers = 32

// fixedRate is the steady load of the latency run.
const fixedRate = 1000

// rounds is how many times each run is repeated, page and ceiling taking
// turns; the best round of each counts, since the machine's other work
// only ever makes a round worse.
const rounds = 3

// bestOf runs the page's and the ceiling's load in turns (page, ceiling,
// page, ceiling, ...) and keeps the best round of each: the highest
// throughput at saturation (rate 0, see saturate), or the lowest p99 at a
// fixed rate (vegeta).
func bestOf(page, ceiling string, rate int, d time.Duration) (attackResult, attackResult) {
	var bp, bc attackResult
	better := func(a, b attackResult) bool {
		if b.requests == 0 {
			return true
		}
		if rate == 0 {
			return a.throughput > b.throughput
		}
		return a.p99 < b.p99
	}
	run := func(url string) attackResult {
		if rate == 0 {
			return saturate(url, d)
		}
		return attack(url, rate, d)
	}
	for range rounds {
		if p := run(page); better(p, bp) {
			p.errorRequests += bp.errorRequests
			bp = p
		} else {
			bp.errorRequests += p.errorRequests
		}
		if c := run(ceiling); better(c, bc) {
			bc = c
		}
	}
	return bp, bc
}

// attackResult is what one vegeta run measured.
type attackResult struct {
	throughput float64
	p50, p99   time.Duration
	success    float64
	requests   uint64
	// errorRequests counts the failed requests of every round bestOf ran.
	errorRequests int
}

// attack loads url for d at a fixed rate with vegeta.
func attack(url string, rate int, d time.Duration) attackResult {
	targeter := vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: url})
	attacker := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second))
	var m vegeta.Metrics
	for res := range attacker.Attack(targeter, vegeta.Rate{Freq: rate, Per: time.Second}, d, url) {
		m.Add(res)
	}
	m.Close()
	return attackResult{throughput: m.Throughput, p50: m.Latencies.P50, p99: m.Latencies.P99, success: m.Success, requests: m.Requests,
		errorRequests: int(float64(m.Requests)*(1-m.Success) + 0.5)}
}

// probe is what the probe process measured: an admin list and /readyz
// called every interval during a flood, as an administrator and a load
// balancer would.
type probe struct {
	// done is closed when the probe has stopped; read the figures after it.
	done       chan struct{}
	err        error
	Admin      []time.Duration `json:"admin"`
	ReadyFails int             `json:"ready_fails"`
	ReadyCalls int             `json:"ready_calls"`
	Errs       int             `json:"errs"`
}

// runProbe starts the probe in a process of its own (this binary with
// -probe, see Probe) until stop closes: inside this one, its calls would
// wait for a core behind the load generator's own goroutines, and the
// figure would time the benchmark rather than the web tier.
func runProbe(w *webProcess, stop <-chan struct{}, interval time.Duration) *probe {
	p := &probe{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		self, err := os.Executable()
		if err != nil {
			p.err = fmt.Errorf("bench: probe: %w", err)
			return
		}
		cmd := exec.Command(self, "-probe", w.base, "-probe-interval", interval.String())
		cmd.Env = append(os.Environ(), probeTokenEnv+"="+w.token)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			p.err = fmt.Errorf("bench: probe: %w", err)
			return
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Start(); err != nil {
			p.err = fmt.Errorf("bench: probe: %w", err)
			return
		}
		<-stop
		// The probe stops when its standard input closes.
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			p.err = fmt.Errorf("bench: probe: %w", err)
			return
		}
		if err := json.Unmarshal(out.Bytes(), p); err != nil {
			p.err = fmt.Errorf("bench: probe answer: %w", err)
		}
	}()
	return p
}

// probeTokenEnv carries the administrator's token to the probe process.
const probeTokenEnv = "BENCH_PROBE_TOKEN"

// Probe is the probe process (`bench -probe URL`): it calls an admin list
// of the web tier at base, with the token of BENCH_PROBE_TOKEN, and
// /readyz, every interval until stdin closes, then writes what it measured
// to out as JSON.
func Probe(base string, interval time.Duration, stdin io.Reader, out io.Writer) error {
	w := &webProcess{base: base, token: os.Getenv(probeTokenEnv), client: &http.Client{Timeout: 30 * time.Second}}
	stop := make(chan struct{})
	go func() {
		// Whatever ends the read (EOF or an error) ends the probe.
		_, _ = io.Copy(io.Discard, stdin)
		close(stop)
	}()
	p := &probe{}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if err := json.NewEncoder(out).Encode(p); err != nil {
				return fmt.Errorf("bench: probe: %w", err)
			}
			return nil
		case <-t.C:
		}
		status, _, took, err := w.get("/api/posts/mentions?page=1&sortBy=date")
		rs, _, _, rerr := w.get("/readyz")
		if err != nil || status != http.StatusOK {
			p.Errs++
		} else {
			p.Admin = append(p.Admin, took)
		}
		p.ReadyCalls++
		if rerr != nil || rs != http.StatusOK {
			p.ReadyFails++
		}
	}
}

// publicLoad loads each public page of the web binary, run as deployed
// (see startWeb), and the same answer from a bare net/http server (see
// Bare), at saturation and at a fixed rate.
// With cfg.Parts "flood", only the flood of the statistics runs, with its
// admin-list and /readyz probe; with "readpath", the three public API pages.
func publicLoad(ctx context.Context, cfg Config, w *webProcess, rep *report, logf func(string, ...any)) error {
	pages := []struct{ name, path string }{
		{name: "GET /api/public/stats", path: "/api/public/stats"},
		{name: "GET /api/public/latest", path: "/api/public/latest"},
		{name: "GET /api/public/logs?offset=0", path: "/api/public/logs?offset=0"},
		{name: "GET / (the SPA's index.html)", path: "/"},
	}
	switch cfg.Parts {
	case "flood":
		pages = pages[:1]
	case "readpath":
		pages = pages[:3]
	}
	paths := make([]string, len(pages))
	for i, pg := range pages {
		paths[i] = pg.path
	}
	bare, err := startBare(w, paths, w.dir)
	if err != nil {
		return err
	}
	defer bare.stop()
	for _, pg := range pages {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		status, body, _, err := w.get(pg.path)
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("bench: %s answered %d: %w", pg.path, status, err)
		}
		ceiling := bare.base + pg.path
		logf("%s (%d bytes): saturation, %s", pg.path, len(body), saturator())

		var pr *probe
		stop := make(chan struct{})
		if pg.path == "/api/public/stats" {
			pr = runProbe(w, stop, 250*time.Millisecond)
		}
		sat, satCeil := bestOf(w.base+pg.path, ceiling, 0, cfg.Duration)
		close(stop)
		if pr != nil {
			<-pr.done
			if pr.err != nil {
				return pr.err
			}
		}
		ratio := sat.throughput / satCeil.throughput
		rep.add(Row{Figure: pg.name + ": saturation throughput (" + strconv.Itoa(saturationWorkers) + " keep-alive connections; ceiling: a bare net/http server, same bytes)",
			Value: fmt.Sprintf("%.0f req/s", sat.throughput), Ceiling: fmt.Sprintf("%.0f req/s", satCeil.throughput),
			Ratio: fmt.Sprintf("%.2f", ratio), Target: "≥ 0.80 × ceiling", Verdict: verdict(ratio >= 0.8)})
		rep.add(Row{Figure: pg.name + ": failed requests at saturation, all rounds", Value: strconv.Itoa(sat.errorRequests),
			Target: "0", Verdict: verdict(sat.errorRequests == 0)})
		if pr != nil {
			med, worst := percentile(pr.Admin, 0.5), percentile(pr.Admin, 1)
			rep.add(Row{Figure: "admin list (mentions, page 1) during the stats flood, from a process of its own, " + strconv.Itoa(len(pr.Admin)) + " calls",
				Value:  fmt.Sprintf("median %s, max %s, %d errors", ms(med), ms(worst), pr.Errs),
				Target: "< 50 ms", Verdict: verdict(worst < 50*time.Millisecond && pr.Errs == 0 && len(pr.Admin) > 0)})
			rep.add(Row{Figure: "/readyz during the stats flood", Value: fmt.Sprintf("%d of %d not 200", pr.ReadyFails, pr.ReadyCalls),
				Target: "all 200", Verdict: verdict(pr.ReadyFails == 0 && pr.ReadyCalls > 0)})
		}

		if cfg.Parts == "flood" {
			continue
		}
		logf("%s: %d req/s", pg.path, fixedRate)
		fixed, fixedCeil := bestOf(w.base+pg.path, ceiling, fixedRate, cfg.Duration)
		rep.add(Row{Figure: fmt.Sprintf("%s: p99 at %d req/s (p50 %s; failed requests, all rounds: %d)", pg.name, fixedRate, ms(fixed.p50), fixed.errorRequests),
			Value: ms(fixed.p99), Ceiling: ms(fixedCeil.p99), Ratio: fmt.Sprintf("%.2f", float64(fixed.p99)/float64(fixedCeil.p99)),
			Target: "< 20 ms, no errors", Verdict: verdict(fixed.p99 < 20*time.Millisecond && fixed.errorRequests == 0)})
	}
	return nil
}

// percentile returns the q-quantile (0..1) of ds, nearest rank.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
