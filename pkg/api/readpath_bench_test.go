package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"infernal/pkg/api"
)

// discardWriter is a ResponseWriter that keeps nothing but its header map,
// emptied for each request, so that a benchmark measures the server alone.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkPublicReadPath serves a cached public answer through the whole
// router and middleware, as deployed: the access log at info, as JSON
// lines (to io.Discard). Its time and allocations per request are what the
// web tier adds to net/http's own work on the public read path.
func BenchmarkPublicReadPath(b *testing.B) {
	st := &fakeStore{}
	srv := api.New(api.Config{
		Store: st, Auth: fakeAuth{st}, Queue: fakeQueue{st},
		Log: slog.New(slog.NewJSONHandler(io.Discard, nil)).With("component", "web"), Handle: "devil", Platform: "sandbox",
	})
	req := httptest.NewRequest(http.MethodGet, "/api/public/logs?offset=0", nil)
	w := &discardWriter{h: http.Header{}}
	srv.ServeHTTP(w, req)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &discardWriter{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			srv.ServeHTTP(w, req)
		}
	})
}
