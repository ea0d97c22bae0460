package bench

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// readAnswer reads an answer's status and skips its body, leaving the
// reader at the next answer.
func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr bool
	}{
		{name: "200 with a body", in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcNEXT", want: 200},
		{name: "lower-case header", in: "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\nNEXT", want: 404},
		{name: "no length", in: "HTTP/1.1 200 OK\r\n\r\nNEXT", wantErr: true},
		{name: "cut short", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tt.in))
			got, err := readAnswer(br)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want an error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			rest, _ := br.ReadString(0)
			if got != tt.want || rest != "NEXT" {
				t.Errorf("status %d, then %q; want %d, then NEXT", got, rest, tt.want)
			}
		})
	}
}

// The keep-alive generator reuses its connections and counts what failed.
func TestKeepAliveLoad(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		wantFailed bool
	}{
		{name: "200", status: http.StatusOK},
		{name: "500", status: http.StatusInternalServerError, wantFailed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte("{}\n"))
			}))
			var conns atomic.Int32
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			r := keepAliveLoad(srv.URL+"/x", 200*time.Millisecond)
			if tt.wantFailed {
				if r.errorRequests == 0 {
					t.Errorf("no failures counted: %+v", r)
				}
				return
			}
			if r.requests == 0 || r.errorRequests != 0 || r.throughput <= 0 {
				t.Errorf("got %+v", r)
			}
			if n := conns.Load(); n > saturationWorkers {
				t.Errorf("%d connections for %d requests, want at most %d", n, r.requests, saturationWorkers)
			}
		})
	}
}
