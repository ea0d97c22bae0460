package openaitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A storm of StormFor starts at the first request, however late it comes,
// refuses every request with a retry-after while it lasts, and ends.
func TestStormForStartsAtTheFirstRequest(t *testing.T) {
	t.Parallel()
	s := New(Config{StormFor: 300 * time.Millisecond, StormRetryAfter: 2 * time.Second})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	// Later than the storm would last had it started with the server.
	time.Sleep(400 * time.Millisecond)
	chat := func() *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"burn"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first := chat()
	if first.StatusCode != http.StatusTooManyRequests || first.Header.Get("Retry-After") != "2" {
		t.Fatalf("first request: %d, retry-after %q; want 429 after 2 s", first.StatusCode, first.Header.Get("Retry-After"))
	}
	time.Sleep(400 * time.Millisecond)
	if after := chat(); after.StatusCode != http.StatusOK {
		t.Errorf("after the storm: %d, want 200", after.StatusCode)
	}
	if st := s.Stats(); st.Requests != 2 || st.Refused != 1 {
		t.Errorf("stats %+v, want 2 requests, 1 refused", st)
	}
}
