package openaitest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every answer says, as OpenAI's do, how long the request took from when
// it was counted (openai-processing-ms): at least the stand-in's latency,
// less than the client's round trip.
func TestAnswersSayHowLongTheyTook(t *testing.T) {
	t.Parallel()
	const latency = 150 * time.Millisecond
	srv := httptest.NewServer(New(Config{Latency: latency, PerMinute: 600}))
	t.Cleanup(srv.Close)
	start := time.Now()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"burn"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	took := time.Since(start)
	ms, err := strconv.Atoi(resp.Header.Get("openai-processing-ms"))
	if err != nil {
		t.Fatalf("openai-processing-ms %q: %v", resp.Header.Get("openai-processing-ms"), err)
	}
	if got := time.Duration(ms) * time.Millisecond; got < latency || got > took {
		t.Errorf("openai-processing-ms %v, want between the latency %v and the round trip %v", got, latency, took)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ratelimit-remaining-requests") == "" {
		t.Errorf("status %d, remaining %q: want a 200 announcing its windows", resp.StatusCode, resp.Header.Get("x-ratelimit-remaining-requests"))
	}
}
