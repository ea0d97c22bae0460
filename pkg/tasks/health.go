package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Healthy reports whether the worker's server is taking tasks: started, not
// shut down, and its Redis answers.
func (s *Server) Healthy() error {
	if !s.running.Load() {
		return errors.New("tasks: server not running")
	}
	if err := s.srv.Ping(); err != nil {
		return fmt.Errorf("tasks: redis: %w", err)
	}
	return nil
}

// Handler serves the worker's own listener (METRICS_ADDR): metrics at
// /metrics, and at /healthz 200 while Healthy, 503 otherwise.
func (s *Server) Handler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := s.Healthy(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, err.Error()+"\n") // the prober reads the status only
			return
		}
		_, _ = io.WriteString(w, "ok\n") // the prober reads the status only
	})
	return mux
}

// ProbeWorker is the worker's -healthcheck: it asks the worker listening on
// addr (its METRICS_ADDR; an empty or wildcard host means this machine) for
// /healthz and fails unless the answer is 200 within five seconds.
func ProbeWorker(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("tasks: probe %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("tasks: probe: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("tasks: probe: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512)) // only to explain a failure
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("tasks: probe %s: %s %s", url, resp.Status, body)
	}
	return nil
}
