package api

import (
	"context"
	"net/http"
	"time"
)

// healthz answers while the process runs.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	respondJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz answers 200 when PostgreSQL and Redis both answer, else 503 naming
// what is down.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	down := map[string]string{}
	if err := s.store.Ping(ctx); err != nil {
		down["postgres"] = "unreachable"
	}
	if err := s.queue.Ping(ctx); err != nil {
		down["redis"] = "unreachable"
	}
	if len(down) > 0 {
		respondJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "error": "dependencies down", "down": down})
		return nil
	}
	respondJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}
