package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// saturationThreads is wrk's -t: one thread per core of the machine the
// issue measured on.
const saturationThreads = 2

// saturator names the load generator of the saturation runs: wrk when it
// is installed (.ci/run installs it), else keepAliveLoad, which behaves
// like it.
func saturator() string {
	if _, err := exec.LookPath("wrk"); err == nil {
		return "wrk"
	}
	return "keep-alive"
}

// saturatorDescription says in the results what loaded the pages at saturation.
func saturatorDescription() string {
	if saturator() == "wrk" {
		return fmt.Sprintf("`wrk -t%d -c%d`, keep-alive", saturationThreads, saturationWorkers)
	}
	return fmt.Sprintf("the benchmark's keep-alive generator (wrk not installed): %d connections, each sending its next request as soon as the answer is read, as `wrk -c%d` does", saturationWorkers, saturationWorkers)
}

// saturate loads rawURL at saturation for d, as a visitor's traffic
// arrives through a proxy: saturationWorkers keep-alive connections, each
// sending its next request as soon as the answer is read.
func saturate(rawURL string, d time.Duration) attackResult {
	if saturator() == "wrk" {
		r, err := runWrk(rawURL, d)
		if err == nil {
			return r
		}
		// A run wrk could not make counts as failed, and says why.
		fmt.Fprintln(os.Stderr, err)
		return attackResult{errorRequests: 1}
	}
	return keepAliveLoad(rawURL, d)
}

var (
	wrkRate     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkDone     = regexp.MustCompile(`(\d+) requests in`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSockErrs = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// runWrk runs wrk against rawURL for d and reads its report.
func runWrk(rawURL string, d time.Duration) (attackResult, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	out, err := exec.Command("wrk", "-t"+strconv.Itoa(saturationThreads), "-c"+strconv.Itoa(saturationWorkers),
		"-d"+strconv.Itoa(secs)+"s", rawURL).CombinedOutput()
	if err != nil {
		return attackResult{}, fmt.Errorf("bench: wrk: %w: %s", err, out)
	}
	m := wrkRate.FindSubmatch(out)
	n := wrkDone.FindSubmatch(out)
	if m == nil || n == nil {
		return attackResult{}, fmt.Errorf("bench: wrk: no rate in %s", out)
	}
	var r attackResult
	r.throughput, _ = strconv.ParseFloat(string(m[1]), 64)
	done, _ := strconv.ParseUint(string(n[1]), 10, 64)
	r.requests = done
	if e := wrkNon2xx.FindSubmatch(out); e != nil {
		k, _ := strconv.Atoi(string(e[1]))
		r.errorRequests += k
	}
	if e := wrkSockErrs.FindSubmatch(out); e != nil {
		for _, f := range e[1:] {
			k, _ := strconv.Atoi(string(f))
			r.errorRequests += k
		}
	}
	if done > 0 {
		r.success = 1 - float64(r.errorRequests)/float64(done)
	}
	return r, nil
}

// keepAliveLoad is the load of wrk without wrk: saturationWorkers
// connections, each writing a GET and reading its answer (status line,
// headers, Content-Length bytes) in a loop, with nothing per request but
// the bytes: a client costing about what wrk costs leaves the web tier
// what it would have.
func keepAliveLoad(rawURL string, d time.Duration) attackResult {
	u, err := url.Parse(rawURL)
	if err != nil {
		return attackResult{errorRequests: 1}
	}
	req := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: infernal-bench\r\n\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range saturationWorkers {
		wg.Go(func() {
			for ctx.Err() == nil {
				n, err := keepAliveConn(ctx, u.Host, req)
				ok.Add(n)
				if err != nil && ctx.Err() == nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	done := ok.Load() + failed.Load()
	r := attackResult{throughput: float64(ok.Load()) / took.Seconds(), requests: uint64(done), errorRequests: int(failed.Load())}
	if done > 0 {
		r.success = float64(ok.Load()) / float64(done)
	}
	return r
}

// keepAliveConn sends req on one connection to host until ctx ends or the
// connection fails, and returns how many answers were 200.
func keepAliveConn(ctx context.Context, host string, req []byte) (int64, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return 0, fmt.Errorf("bench: dial: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	br := bufio.NewReaderSize(conn, 64<<10)
	var n int64
	for ctx.Err() == nil {
		if _, err := conn.Write(req); err != nil {
			return n, fmt.Errorf("bench: write: %w", err)
		}
		status, err := readAnswer(br)
		if err != nil {
			return n, err
		}
		if status != 200 {
			return n, fmt.Errorf("bench: status %d", status)
		}
		n++
	}
	return n, nil
}

// readAnswer reads one HTTP/1.1 answer with a Content-Length body and
// returns its status.
func readAnswer(br *bufio.Reader) (int, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, fmt.Errorf("bench: read: %w", err)
	}
	f := bytes.Fields(line)
	if len(f) < 2 {
		return 0, fmt.Errorf("bench: status line %q", line)
	}
	status, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return 0, fmt.Errorf("bench: status line %q: %w", line, err)
	}
	length := -1
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return 0, fmt.Errorf("bench: read: %w", err)
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(h, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return 0, fmt.Errorf("bench: Content-Length %q: %w", v, err)
			}
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("bench: answer without Content-Length")
	}
	if _, err := br.Discard(length); err != nil {
		return 0, fmt.Errorf("bench: body: %w", err)
	}
	return status, nil
}
