package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
)

// TestLimitBodyRefusesDeclaredSizeBeforeContinue sends what curl sends for a
// 3 MB upload: headers with "Expect: 100-continue", then waits. The server
// must answer 413 with the JSON error at once, never "100 Continue", and the
// handler must not run.
func TestLimitBodyRefusesDeclaredSizeBeforeContinue(t *testing.T) {
	t.Parallel()
	called := make(chan struct{}, 1)
	srv := httptest.NewServer(limitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case called <- struct{}{}:
		default: // already reported
		}
		_, _ = io.Copy(io.Discard, r.Body)
	})))
	defer srv.Close()

	tests := []struct {
		name   string
		length int
		want   int
	}{
		{name: "declared over the limit", length: 3 << 20, want: http.StatusRequestEntityTooLarge},
		{name: "one byte over the limit", length: maxBody + 1, want: http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
				"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", tt.length)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("read response: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.want)
			}
			var body map[string]string
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if !strings.Contains(body["error"], "larger than") {
				t.Errorf("error = %q, want it to say the body is too large", body["error"])
			}
			select {
			case <-called:
				t.Error("the handler ran for a body declared over the limit")
			default:
			}
		})
	}
}

// TestLimitBodyPassesSmallBodies keeps bodies within the limit untouched.
func TestLimitBodyPassesSmallBodies(t *testing.T) {
	t.Parallel()
	var got string
	h := limitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read: %v", err)
		}
		got = string(b)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/auth/login", strings.NewReader(`{"a":1}`)))
	if got != `{"a":1}` {
		t.Errorf("handler read %q, want the body", got)
	}
}

// Every request's context carries a deadline below the server's write
// timeout, so work whose answer could not be written any more is cancelled.
func TestRequestsCarryADeadline(t *testing.T) {
	t.Parallel()
	if RequestTimeout >= writeTimeout {
		t.Fatalf("RequestTimeout %s is not below the write timeout %s", RequestTimeout, writeTimeout)
	}
	if got := NewHTTPServer(":0", http.NotFoundHandler(), slog.Default()).WriteTimeout; got != writeTimeout {
		t.Fatalf("server WriteTimeout = %s, want %s", got, writeTimeout)
	}
	var deadline time.Time
	var ok bool
	h := withRequest(RequestTimeout)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		deadline, ok = r.Context().Deadline()
	}))
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if !ok {
		t.Fatal("the handler's context has no deadline")
	}
	if left := deadline.Sub(start); left > RequestTimeout+time.Second || left < RequestTimeout-time.Second {
		t.Errorf("deadline %s after the start, want about %s", left, RequestTimeout)
	}
	// The router installs it: the store called by a route sees it.
	st := &deadlineStore{}
	s := New(Config{Store: st})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/public/latest", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("latest = %d, want 404", rec.Code)
	}
	if !st.hadDeadline {
		t.Error("the store was called without a deadline")
	}
}

// deadlineStore notes whether LatestPosted's context has a deadline; other
// methods are not called.
type deadlineStore struct {
	Store
	hadDeadline bool
}

func (d *deadlineStore) LatestPosted(ctx context.Context) (post.Post, error) {
	_, d.hadDeadline = ctx.Deadline()
	return post.Post{}, store.ErrNotFound
}

// The security headers' values are shared by every answer: whatever a
// handler does to its own answer's headers, the next answer carries them
// unchanged.
func TestSecurityHeadersSharedValuesStayIntact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		touch func(h http.Header)
	}{
		{name: "set", touch: func(h http.Header) { h.Set("Content-Security-Policy", "changed") }},
		{name: "add", touch: func(h http.Header) { h.Add("X-Frame-Options", "SAMEORIGIN") }},
		{name: "delete", touch: func(h http.Header) { h.Del("Referrer-Policy") }},
		{name: "values appended to", touch: func(h http.Header) { h["Permissions-Policy"] = append(h["Permissions-Policy"], "x") }},
	}
	s := New(Config{})
	want := map[string]string{
		"Content-Security-Policy":    s.csp,
		"X-Content-Type-Options":     "nosniff",
		"X-Frame-Options":            "DENY",
		"Referrer-Policy":            "strict-origin-when-cross-origin",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Permissions-Policy":         "camera=(), microphone=(), geolocation=()",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			touched := s.securityHeaders(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tt.touch(w.Header()) }))
			touched.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
			rec := httptest.NewRecorder()
			s.securityHeaders(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			for k, v := range want {
				if got := rec.Header()[k]; len(got) != 1 || got[0] != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
