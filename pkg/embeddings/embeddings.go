// Package embeddings turns texts into vectors with an OpenAI-compatible
// embeddings API (POST {base}/embeddings: OpenAI itself, or a local
// Ollama, vLLM or llama.cpp server): the retrieval.Embedder that re-ranks
// the learned examples and the knowledge base's facts when
// EMBEDDINGS_MODEL is set, in the worker (for drafts) and in the web tier
// (for the knowledge search). It speaks plain net/http and links nothing
// of the writers, so that the web tier may use it.
package embeddings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"infernal/pkg/upstream"
)

// Defaults for the fields of Config left empty.
const (
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultTimeout bounds one request when Config brings no HTTP client:
	// an embedding is quick, and the web tier's requests end at 20 s.
	DefaultTimeout = 15 * time.Second
	// DefaultMaxBatch is the most texts one request carries; more are
	// sent in several requests, one after another. OpenAI takes 2,048;
	// a draft's retrieval sends about a hundred.
	DefaultMaxBatch = 256
)

// MaxInput is the most characters of one text sent: a longer one is
// embedded by its head, well inside every provider's per-input limit
// (OpenAI's 8,192 tokens) whatever its script.
const MaxInput = 4000

// maxAnswer bounds the answer read: 256 vectors of 3,072 dimensions
// (text-embedding-3-large) as JSON take about 16 MB.
const maxAnswer = 64 << 20

// Config says which server and model to use.
type Config struct {
	// BaseURL is the API root the path /embeddings hangs from
	// (OPENAI_BASE_URL); DefaultBaseURL if empty.
	BaseURL string
	// APIKey is sent as a bearer token; it may be empty for local servers.
	APIKey string
	// Model is the embeddings model (EMBEDDINGS_MODEL); required.
	Model string
	// HTTPClient makes the requests: the worker gives the writer's, so
	// that embeddings share its rate-limit windows and its bound on the
	// model calls in flight. Nil: a client with DefaultTimeout that
	// follows no redirect (the key goes to the base URL's host only).
	HTTPClient *http.Client
	// MaxBatch is the most texts one request carries; 0 takes
	// DefaultMaxBatch.
	MaxBatch int
	// Usage, when set, is told the tokens of every answer (its
	// usage.prompt_tokens; embeddings have no completion), so that they
	// count in the model spend and budget (*spend.Meter's Usage is one).
	Usage func(ctx context.Context, model string, promptTokens, completionTokens int)
}

// Client embeds texts. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
}

// New returns a client for cfg, with its empty fields defaulted. It fails
// without a model, or when the base URL is not an http(s) URL.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embeddings: a model is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embeddings: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.MaxBatch < 0 {
		return nil, fmt.Errorf("embeddings: batch size %d is negative", cfg.MaxBatch)
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: DefaultTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	return &Client{cfg: cfg, endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/embeddings"}, nil
}

// Model is the embeddings model the client asks for.
func (c *Client) Model() string { return c.cfg.Model }

// Error is an answer of the provider that is not an embeddings list: its
// HTTP status and what it said, as a short excerpt.
type Error struct {
	// Status is the HTTP status; 0 for a 200 whose body was no list.
	Status int
	// Message is the provider's error message, or an excerpt of its body.
	Message string
}

// Error says what the provider answered.
func (e *Error) Error() string {
	if e.Status == 0 {
		return "embeddings: the answer is not an embeddings list: " + e.Message
	}
	return fmt.Sprintf("embeddings: the provider answered %d: %s", e.Status, e.Message)
}

// request is the body of POST /embeddings, as OpenAI documents it.
type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// answer is OpenAI's embeddings list.
type answer struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string    `json:"object"`
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// Embed returns one vector per text, in order, of one dimension: texts
// are sent in batches of at most Config.MaxBatch, each cut to MaxInput
// characters. A text that is empty or white space alone is not sent
// (providers refuse it) and gets an empty vector, which resembles
// nothing. An error answer, a body that is not an embeddings list, a
// vector missing, repeated or of another dimension is an error (an *Error
// for what the provider said); the batches answered before it are
// counted all the same.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var at []int // the texts sent, by their place in texts
	var input []string
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = []float32{}
			continue
		}
		at = append(at, i)
		input = append(input, cut(t, MaxInput))
	}
	dims := -1
	for start := 0; start < len(input); start += c.cfg.MaxBatch {
		end := min(start+c.cfg.MaxBatch, len(input))
		vs, err := c.batch(ctx, input[start:end])
		if err != nil {
			return nil, err
		}
		for k, v := range vs {
			if dims >= 0 && len(v) != dims {
				return nil, &Error{Message: fmt.Sprintf("vectors of %d and %d dimensions", dims, len(v))}
			}
			dims = len(v)
			out[at[start+k]] = v
		}
	}
	return out, nil
}

// batch embeds input in one request.
func (c *Client) batch(ctx context.Context, input []string) ([][]float32, error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: input})
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("embeddings: reading the answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Error{Status: resp.StatusCode, Message: providerMessage(raw)}
	}
	if len(raw) > maxAnswer {
		return nil, &Error{Message: fmt.Sprintf("longer than %d bytes", maxAnswer)}
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Message: upstream.Excerpt(err.Error() + ": " + string(raw))}
	}
	// The tokens are billed once answered, whatever follows.
	if c.cfg.Usage != nil && a.Usage.PromptTokens > 0 {
		model := a.Model
		if model == "" {
			model = c.cfg.Model
		}
		c.cfg.Usage(ctx, model, a.Usage.PromptTokens, 0)
	}
	if len(a.Data) != len(input) {
		return nil, &Error{Message: fmt.Sprintf("%d vectors for %d texts", len(a.Data), len(input))}
	}
	out := make([][]float32, len(input))
	for _, d := range a.Data {
		switch {
		case d.Index == nil || *d.Index < 0 || *d.Index >= len(out):
			return nil, &Error{Message: fmt.Sprintf("a vector without a valid index among %d texts", len(input))}
		case out[*d.Index] != nil:
			return nil, &Error{Message: fmt.Sprintf("two vectors for text %d", *d.Index)}
		case len(d.Embedding) == 0:
			return nil, &Error{Message: fmt.Sprintf("an empty vector for text %d", *d.Index)}
		}
		out[*d.Index] = d.Embedding
	}
	return out, nil
}

// providerMessage is what an error answer says: OpenAI's
// {"error": {"message"}} (or {"error": "..."}, as some local servers
// answer), else an excerpt of the body.
func providerMessage(raw []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			return upstream.Excerpt(obj.Message)
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return upstream.Excerpt(s)
		}
	}
	if ex := upstream.Excerpt(string(raw)); ex != "" {
		return ex
	}
	return "an empty body"
}

// cut is s cut to n characters.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
