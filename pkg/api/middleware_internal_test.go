package api

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestLimitBodyRefusesDeclaredSizeBeforeContinue sends what curl sends for a
// 3 MB upload: headers with "Expect: 100-continue", then waits. The server
// must answer 413 with the JSON error at once, never "100 Continue", and the
// handler must not run.
func TestLimitBodyRefusesDeclaredSizeBeforeContinue(t *testing.T) {
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
