package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// opsEnv serves a built frontend from a temporary folder, and an ops
// dashboard that panics on one path, behind the admin login.
func opsEnv(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":         "<!doctype html><title>infernal</title>",
		"assets/app-1a2b.js": "console.log('hell')",
		"favicon.svg":        "<svg/>",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := storetest.New(t)
	queue, err := tasks.NewClient(taskstest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	authn, err := auth.NewService(st, time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := authn.Bootstrap(context.Background(), "admin", password, log); err != nil {
		t.Fatal(err)
	}
	ops := http.NewServeMux()
	ops.HandleFunc("/diaries666op/queues/", func(w http.ResponseWriter, r *http.Request) {
		// A test double shaped like asynqmon's page, two inline scripts and one from a file; the test reads what arrived.
		_, _ = io.WriteString(w, `<!doctype html><html><head><script>window.FLAG_READ_ONLY="/true"</script><title>queues dashboard</title></head>`+
			`<body><script>boot()</script><script src="/diaries666op/queues/static/js/main.js"></script></body></html>`)
	})
	ops.HandleFunc("/diaries666op/queues/static/js/main.js", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "boot = () => 1") // as above
	})
	ops.HandleFunc("/diaries666op/queues/static/css/cached.css", func(w http.ResponseWriter, r *http.Request) {
		// A file the dashboard would let caches keep; the ops pages are never stored.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		_, _ = io.WriteString(w, "body{}") // as above
	})
	ops.HandleFunc("/diaries666op/queues/boom", func(http.ResponseWriter, *http.Request) {
		panic("secret internal detail")
	})
	srv := newServer(t, api.New(api.Config{Store: st, Auth: authn, Queue: queue, Log: log, StaticDir: dir, Ops: ops}))
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL+"/api/auth/login", "application/json", strings.NewReader(`{"username":"admin","password":"`+password+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "diaries666op_session" && c.HttpOnly && c.SameSite == http.SameSiteStrictMode {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatal("login set no HttpOnly, SameSite=Strict session cookie")
	}
	return srv, cookie
}

func TestServing(t *testing.T) {
	t.Parallel()
	srv, cookie := opsEnv(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name       string
		path       string
		cookie     string
		accept     string
		wantStatus int
		wantBody   string
		wantHeader string
		wantValue  string
	}{
		{name: "index not cached", path: "/", wantStatus: 200, wantBody: "<title>infernal", wantHeader: "Cache-Control", wantValue: "no-cache"},
		{name: "client route", path: "/diaries666op/dashboard", wantStatus: 200, wantBody: "<title>infernal", wantHeader: "Cache-Control", wantValue: "no-cache"},
		{name: "hashed asset cached", path: "/assets/app-1a2b.js", wantStatus: 200, wantBody: "hell", wantHeader: "Cache-Control", wantValue: "immutable"},
		{name: "missing asset", path: "/assets/gone.js", wantStatus: 404, wantBody: `"error"`},
		{name: "other file", path: "/favicon.svg", wantStatus: 200, wantBody: "<svg/>"},
		{name: "traversal", path: "/../../etc/passwd", wantStatus: 200, wantBody: "<title>infernal"},
		{name: "api stays json", path: "/api/nope", wantStatus: 404, wantBody: `"error"`, wantHeader: "Content-Type", wantValue: "application/json"},
		{name: "ops without login in a browser", path: "/diaries666op/queues/", accept: "text/html", wantStatus: 303, wantHeader: "Location", wantValue: "/diaries666op/login"},
		{name: "ops without login by a script", path: "/diaries666op/queues/", wantStatus: 401, wantBody: `"error"`},
		{name: "ops with a bad cookie", path: "/diaries666op/queues/", cookie: "forged", wantStatus: 401},
		// Each inline script by its hash (sha256 of `window.FLAG_READ_ONLY="/true"` and of `boot()`), never 'unsafe-inline'.
		{name: "ops with the session cookie", path: "/diaries666op/queues/", cookie: cookie, wantStatus: 200, wantBody: "queues dashboard",
			wantHeader: "Content-Security-Policy", wantValue: "script-src 'self' '" + sha256Source(`window.FLAG_READ_ONLY="/true"`) + "' '" + sha256Source("boot()") + "';"},
		{name: "ops script file", path: "/diaries666op/queues/static/js/main.js", cookie: cookie, wantStatus: 200, wantBody: "boot",
			wantHeader: "Content-Security-Policy", wantValue: "script-src 'self';"},
		{name: "panic is a 500 without detail", path: "/diaries666op/queues/boom", cookie: cookie, wantStatus: 500, wantBody: `{"error":"internal error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "diaries666op_session", Value: tt.cookie})
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) {
				t.Fatalf("got %d %q, want %d containing %q", resp.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
			if strings.Contains(string(body), "secret internal detail") || strings.Contains(string(body), "goroutine") {
				t.Errorf("internals leaked: %s", body)
			}
			if tt.wantHeader != "" && !strings.Contains(resp.Header.Get(tt.wantHeader), tt.wantValue) {
				t.Errorf("%s = %q, want %q", tt.wantHeader, resp.Header.Get(tt.wantHeader), tt.wantValue)
			}
		})
	}
}

// Every answer under the queue dashboard's path is no-store, as every other
// admin answer: its pages, its files (even one the dashboard marks
// cacheable), its errors, and the answers to a client not signed in.
func TestQueueDashboardNotStored(t *testing.T) {
	t.Parallel()
	srv, cookie := opsEnv(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name, method, path, cookie, accept string
		wantStatus                         int
	}{
		{name: "page", path: "/diaries666op/queues/", cookie: cookie, wantStatus: 200},
		{name: "HEAD of the page", method: "HEAD", path: "/diaries666op/queues/", cookie: cookie, wantStatus: 200},
		{name: "script file", path: "/diaries666op/queues/static/js/main.js", cookie: cookie, wantStatus: 200},
		{name: "file marked cacheable", path: "/diaries666op/queues/static/css/cached.css", cookie: cookie, wantStatus: 200},
		{name: "panic", path: "/diaries666op/queues/boom", cookie: cookie, wantStatus: 500},
		{name: "not signed in, browser", path: "/diaries666op/queues/", accept: "text/html", wantStatus: 303},
		{name: "not signed in, script", path: "/diaries666op/queues/", wantStatus: 401},
		{name: "forged cookie", path: "/diaries666op/queues/static/js/main.js", cookie: "forged", wantStatus: 401},
		{name: "cross-site change", method: "POST", path: "/diaries666op/queues/api/queues/default:pause", cookie: cookie, wantStatus: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "GET"
			}
			req, err := http.NewRequest(method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "diaries666op_session", Value: tt.cookie})
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			if method == "POST" {
				req.Header.Set("Origin", "https://evil.example")
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
				t.Errorf("Cache-Control %q, want exactly no-store", got)
			}
		})
	}
}

// sha256Source is the CSP source of an inline script's text.
func sha256Source(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
