package embeddings_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/embeddings"
	"infernal/pkg/retrieval"
	"infernal/pkg/spend"
	"infernal/pkg/writer/openai/openaitest"
)

// standIn serves s under /v1, as OpenAI's API is.
func standIn(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(http.StripPrefix("/v1", h))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func client(t *testing.T, cfg embeddings.Config) *embeddings.Client {
	t.Helper()
	c, err := embeddings.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// usage records what a client told its Usage.
type usage struct {
	mu    sync.Mutex
	calls []string
	total int
}

func (u *usage) add(_ context.Context, model string, prompt, completion int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls = append(u.calls, model)
	u.total += prompt + completion
}

// The client sends OpenAI's request (POST /v1/embeddings, the model, the
// texts as a list, the key as a bearer token) and reads OpenAI's answer:
// one vector per text, in order, texts alike closer than texts apart,
// the same text the same vector; its tokens are told to Usage.
func TestEmbedAgainstTheStandIn(t *testing.T) {
	t.Parallel()
	s := openaitest.New(openaitest.Config{Concepts: [][]string{{"coffee", "espresso"}}})
	u := &usage{}
	c := client(t, embeddings.Config{BaseURL: standIn(t, s), APIKey: "sk-test", Model: "text-embedding-3-small", Usage: u.add})
	texts := []string{"my espresso went cold", "my coffee went cold", "the ferry leaves at dawn", "my espresso went cold"}
	vs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) || len(vs[0]) != openaitest.DefaultDimensions {
		t.Fatalf("%d vectors of %d dimensions", len(vs), len(vs[0]))
	}
	if retrieval.Cosine(vs[0], vs[3]) < 0.9999 {
		t.Errorf("one text, two vectors: cosine %v", retrieval.Cosine(vs[0], vs[3]))
	}
	if near, far := retrieval.Cosine(vs[0], vs[1]), retrieval.Cosine(vs[0], vs[2]); near < 0.99 || far > 0.3 {
		t.Errorf("synonyms at cosine %v, strangers at %v", near, far)
	}
	reqs := s.Embeddings()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if r := reqs[0]; r.Model != "text-embedding-3-small" || r.Authorization != "Bearer sk-test" || strings.Join(r.Input, "|") != strings.Join(texts, "|") {
		t.Fatalf("request %+v", r)
	}
	if len(u.calls) != 1 || u.calls[0] != "text-embedding-3-small" || u.total <= 0 {
		t.Fatalf("usage told %v, %d tokens", u.calls, u.total)
	}
}

// Texts beyond the batch size go in several requests, one after another,
// and come back in order; empty texts are not sent and resemble nothing;
// a text is sent cut to MaxInput characters.
func TestEmbedBatches(t *testing.T) {
	t.Parallel()
	s := openaitest.New(openaitest.Config{MaxInputs: 2})
	u := &usage{}
	base := standIn(t, s)
	batched := client(t, embeddings.Config{BaseURL: base, Model: "m", MaxBatch: 2, Usage: u.add})
	texts := []string{"one sloth", "two wraths", "", "three prides", "four envies", "  ", "five lusts"}
	vs, err := batched.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, r := range s.Embeddings() {
		sizes = append(sizes, len(r.Input))
		if r.Authorization != "" {
			t.Errorf("no key given, yet %q sent", r.Authorization)
		}
	}
	if len(sizes) != 3 || sizes[0] != 2 || sizes[1] != 2 || sizes[2] != 1 {
		t.Fatalf("batches of %v, want 2, 2 and 1", sizes)
	}
	if len(u.calls) != 3 {
		t.Fatalf("usage told %d times, want once a batch", len(u.calls))
	}
	whole := client(t, embeddings.Config{BaseURL: standIn(t, openaitest.New(openaitest.Config{})), Model: "m"})
	for i, text := range texts {
		if strings.TrimSpace(text) == "" {
			if len(vs[i]) != 0 {
				t.Errorf("text %d is empty, yet has a vector", i)
			}
			continue
		}
		one, err := whole.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if retrieval.Cosine(one[0], vs[i]) < 0.9999 {
			t.Errorf("text %d %q: its vector is not its own", i, text)
		}
	}
	if vs, err := batched.Embed(context.Background(), []string{"", " "}); err != nil || len(vs) != 2 {
		t.Fatalf("only empty texts: %v, %v", vs, err)
	}
	if n := len(s.Embeddings()); n != 3 {
		t.Fatalf("only empty texts made a request (%d in all)", n)
	}
	long := strings.Repeat("é", embeddings.MaxInput+10)
	if _, err := batched.Embed(context.Background(), []string{long}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Embeddings()
	if got := []rune(reqs[len(reqs)-1].Input[0]); len(got) != embeddings.MaxInput {
		t.Fatalf("a long text sent as %d characters, want %d", len(got), embeddings.MaxInput)
	}
}

// Every answer that is not an embeddings list is an error naming what
// the provider said, shortened to one line; what was billed is counted.
func TestEmbedErrors(t *testing.T) {
	t.Parallel()
	answer := func(status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
	tests := []struct {
		name      string
		h         http.Handler
		status    int
		want      string
		wantUsage int
	}{
		{name: "unknown model", status: 404,
			h:    answer(404, `{"error":{"message":"The model 'nope' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`),
			want: "answered 404: The model 'nope' does not exist"},
		{name: "bad key", status: 401,
			h:    answer(401, `{"error":{"message":"Incorrect API key provided: sk-***","type":"invalid_request_error","code":"invalid_api_key"}}`),
			want: "Incorrect API key provided"},
		{name: "rate limited", status: 429,
			h:    answer(429, `{"error":{"message":"Rate limit reached for text-embedding-3-small","type":"requests","code":"rate_limit_exceeded"}}`),
			want: "answered 429: Rate limit reached"},
		{name: "a local server's error", status: 400, h: answer(400, `{"error":"model \"nomic\" not found, try pulling it first"}`),
			want: `model "nomic" not found`},
		{name: "gateway page", status: 502, h: answer(502, "<html><body><h1>502 Bad Gateway</h1>\n"+strings.Repeat("nginx ", 200)+"</body></html>"),
			want: "answered 502: 502 Bad Gateway"},
		{name: "server error without a body", status: 500, h: answer(500, ""), want: "answered 500: an empty body"},
		{name: "garbage", h: answer(200, `{"object":"list","data":[{"index":0,"embedding":[0.1,`), want: "not an embeddings list"},
		{name: "not JSON at all", h: answer(200, `<html>maintenance</html>`), want: "not an embeddings list"},
		{name: "too few vectors", wantUsage: 7,
			h:    answer(200, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m","usage":{"prompt_tokens":7,"total_tokens":7}}`),
			want: "1 vectors for 2 texts"},
		{name: "an index twice", h: answer(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`), want: "two vectors for text 0"},
		{name: "an index out of range", h: answer(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[0,1]}]}`), want: "valid index"},
		{name: "no index", h: answer(200, `{"data":[{"index":0,"embedding":[1,0]},{"embedding":[0,1]}]}`), want: "valid index"},
		{name: "an empty vector", h: answer(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[]}]}`), want: "empty vector"},
		{name: "two dimensions", h: answer(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`), want: "2 and 3 dimensions"},
		{name: "a redirect", status: 307, h: http.RedirectHandler("https://elsewhere.example/v1/embeddings", http.StatusTemporaryRedirect),
			want: "answered 307"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &usage{}
			c := client(t, embeddings.Config{BaseURL: standIn(t, tt.h), APIKey: "sk-secret", Model: "m", Usage: u.add})
			_, err := c.Embed(context.Background(), []string{"one", "two"})
			var e *embeddings.Error
			if !errors.As(err, &e) || e.Status != tt.status || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want an *Error of status %d naming %q", err, tt.status, tt.want)
			}
			if strings.Contains(err.Error(), "\n") || len([]rune(e.Message)) > 200 || strings.Contains(err.Error(), "sk-secret") {
				t.Fatalf("error %q is not one short line without the key", err)
			}
			if u.total != tt.wantUsage {
				t.Fatalf("usage %d tokens, want %d", u.total, tt.wantUsage)
			}
		})
	}
	t.Run("no server", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		c := client(t, embeddings.Config{BaseURL: srv.URL + "/v1", Model: "m"})
		if _, err := c.Embed(context.Background(), []string{"one"}); err == nil || !strings.Contains(err.Error(), "embeddings:") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c := client(t, embeddings.Config{BaseURL: standIn(t, openaitest.New(openaitest.Config{})), Model: "m"})
		if _, err := c.Embed(ctx, []string{"one"}); !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		cfg  embeddings.Config
		want string
	}{
		{name: "no model", cfg: embeddings.Config{}, want: "model is required"},
		{name: "blank model", cfg: embeddings.Config{Model: " "}, want: "model is required"},
		{name: "not http", cfg: embeddings.Config{Model: "m", BaseURL: "ftp://h/v1"}, want: "not an http(s) URL"},
		{name: "no host", cfg: embeddings.Config{Model: "m", BaseURL: "http:///v1"}, want: "not an http(s) URL"},
		{name: "negative batch", cfg: embeddings.Config{Model: "m", MaxBatch: -1}, want: "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := embeddings.New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error naming %q", err, tt.want)
			}
		})
	}
	c := client(t, embeddings.Config{Model: "text-embedding-3-small"})
	if c.Model() != "text-embedding-3-small" {
		t.Fatalf("Model = %q", c.Model())
	}
}

// ledger keeps the model usage a meter records, in memory.
type ledger struct {
	mu    sync.Mutex
	usage []spend.ModelUsage
}

func (l *ledger) SpendTotals(_ context.Context, since time.Time) (spend.Sums, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var s spend.Sums
	for _, u := range l.usage {
		if !u.At.Before(since) {
			s.ModelUSD += u.USD
		}
	}
	return s, nil
}

func (l *ledger) RecordXCall(context.Context, spend.XCall) (spend.XCallBilled, error) {
	return spend.XCallBilled{}, nil
}

func (l *ledger) RecordModelUsage(_ context.Context, u spend.ModelUsage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.usage = append(l.usage, u)
	return nil
}

// Embeddings count in the model spend, priced as the model's prompt
// tokens, and so in its budget: at the ceiling, drafts (and the web
// tier's search) wait.
func TestEmbedCountsInTheModelSpend(t *testing.T) {
	t.Parallel()
	l := &ledger{}
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	meter := &spend.Meter{Ledger: l, Prices: spend.Prices{PromptPerM: 1000, CompletionPerM: 1},
		Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }}
	s := openaitest.New(openaitest.Config{})
	c := client(t, embeddings.Config{BaseURL: standIn(t, s), Model: "text-embedding-3-small", Usage: meter.Usage})
	texts := []string{"the pit opens at midnight", "brimstone saunas run hot"}
	if _, err := c.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if len(l.usage) != 1 {
		t.Fatalf("%d usages recorded, want 1", len(l.usage))
	}
	u := l.usage[0]
	tokens := 0
	for _, text := range texts {
		tokens += (len(text) + 3) / 4
	}
	if u.Model != "text-embedding-3-small" || u.PromptTokens != tokens || u.CompletionTokens != 0 || u.USD != float64(tokens)*1000/1e6 {
		t.Fatalf("recorded %+v, want %d prompt tokens at 1000 USD a million", u, tokens)
	}
	gate := &spend.Gate{Meter: meter, Budgets: spend.Budgets{ModelDaily: u.USD}}
	if why, err := gate.ModelBlocked(context.Background()); err != nil || why != "the daily model budget is spent" {
		t.Fatalf("ModelBlocked = %q, %v; the embeddings spent the day's budget", why, err)
	}
}
