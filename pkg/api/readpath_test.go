package api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"infernal/pkg/api"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Every request leaves one access-log line, at the logger's level, with
// the fields collectors read, and the id the answer carries.
func TestAccessLogLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		level     slog.Level
		path      string
		requestID string
		wantLine  bool
		wantPath  string
		wantCode  int
		wantLevel string
	}{
		{name: "public page at info", level: slog.LevelInfo, path: "/api/public/logs?offset=0", wantLine: true, wantPath: "/api/public/logs", wantCode: 200, wantLevel: "INFO"},
		{name: "the proxy's id is kept", level: slog.LevelInfo, path: "/api/public/logs", requestID: "proxy-id_1.2", wantLine: true, wantPath: "/api/public/logs", wantCode: 200, wantLevel: "INFO"},
		{name: "unknown route", level: slog.LevelInfo, path: "/api/public/nothing", wantLine: true, wantPath: "/api/public/nothing", wantCode: 404, wantLevel: "INFO"},
		{name: "server error at error", level: slog.LevelWarn, path: "/api/public/stats", wantLine: true, wantPath: "/api/public/stats", wantCode: 500, wantLevel: "ERROR"},
		{name: "nothing at warn", level: slog.LevelWarn, path: "/api/public/logs", wantLine: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			st := &fakeStore{}
			srv := api.New(api.Config{
				Store: st, Auth: fakeAuth{st}, Queue: fakeQueue{st},
				Log:    slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: tt.level})).With("component", "web"),
				Handle: "devil", Platform: "sandbox",
			})
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.requestID != "" {
				req.Header.Set("X-Request-Id", tt.requestID)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			var lines []string
			for l := range strings.Lines(logs.String()) {
				if strings.Contains(l, `"msg":"http"`) {
					lines = append(lines, l)
				}
			}
			if !tt.wantLine {
				if len(lines) != 0 {
					t.Errorf("access lines %q, want none", lines)
				}
				return
			}
			if len(lines) != 1 {
				t.Fatalf("access lines %q, want one", lines)
			}
			var got struct {
				Level, Msg, Component, Method, Path string
				Status, Bytes                       int
				DurationMS                          *int64 `json:"duration_ms"`
				RequestID                           string `json:"request_id"`
			}
			if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
				t.Fatal(err)
			}
			if got.Level != tt.wantLevel || got.Component != "web" || got.Method != "GET" || got.Path != tt.wantPath ||
				got.Status != tt.wantCode || got.Status != rec.Code || got.Bytes != rec.Body.Len() || got.DurationMS == nil {
				t.Errorf("line %s, answer %d of %d bytes", lines[0], rec.Code, rec.Body.Len())
			}
			if id := rec.Header().Get("X-Request-Id"); got.RequestID != id || id == "" || (tt.requestID != "" && id != tt.requestID) {
				t.Errorf("request_id %q, X-Request-Id %q, sent %q", got.RequestID, id, tt.requestID)
			}
		})
	}
}
