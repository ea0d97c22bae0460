package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"infernal/pkg/api"
)

// HEAD is answered wherever GET is, with GET's status and no body; a
// route without GET still refuses it.
func TestHeadWhereverGet(t *testing.T) {
	t.Parallel()
	srv := hardenedEnv(t, "", nil)
	tests := []struct {
		path string
		want int
	}{
		{path: "/healthz", want: http.StatusOK},
		{path: "/api/public/stats", want: http.StatusOK},
		// Nothing is posted yet: the handler itself answers 404, to GET and HEAD alike.
		{path: "/api/public/latest", want: http.StatusNotFound},
		{path: "/api/public/logs", want: http.StatusOK},
		{path: "/api/settings", want: http.StatusUnauthorized},
		{path: "/api/auth/login", want: http.StatusMethodNotAllowed},
		{path: "/api/no-such-route", want: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if tt.want != http.StatusMethodNotAllowed {
				if get, _ := send(t, http.MethodGet, srv.URL+tt.path, "", nil); get.StatusCode != tt.want {
					t.Fatalf("GET %s = %d, want %d", tt.path, get.StatusCode, tt.want)
				}
			}
			head, body := send(t, http.MethodHead, srv.URL+tt.path, "", nil)
			if head.StatusCode != tt.want || body != "" {
				t.Errorf("HEAD %s = %d with body %q, want %d and none", tt.path, head.StatusCode, body, tt.want)
			}
		})
	}
}

// /metrics is never kept by a cache, whoever reads it.
func TestMetricsNoStore(t *testing.T) {
	t.Parallel()
	const token = "prometheus-0123456789abcdef"
	srv := deployServer(t, token, nil)
	for _, bearer := range []string{token, fakeToken} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET /metrics = %d, Cache-Control %q; want 200 and no-store", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
}

// A body that does not arrive within the server's read timeout is a 408,
// not a 503: no dependency is down, the client is slow.
func TestSlowBodyIs408(t *testing.T) {
	t.Parallel()
	st := &fakeStore{}
	srv := httptest.NewUnstartedServer(api.New(api.Config{
		Store: st, Auth: fakeAuth{st}, Queue: fakeQueue{st},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil", Platform: "x",
	}))
	// The deadline is what the test exercises, not what it measures: the
	// client below sends part of its body and then nothing more.
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	for _, path := range []string{"/api/auth/login", "/api/persona/preview"} {
		t.Run(path, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_, err = io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: "+srv.Listener.Addr().String()+
				"\r\nAuthorization: Bearer "+fakeToken+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"user")
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error string `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusRequestTimeout || body.Error != "the request body did not arrive in time" {
				t.Errorf("slow body: %d %q, want 408", resp.StatusCode, body.Error)
			}
		})
	}
}
