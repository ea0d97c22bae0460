// Package openai drafts the persona's words with a chat model behind any
// OpenAI-compatible chat completions API: OpenAI itself, or a local Ollama,
// vLLM or llama.cpp server. The persona's prompt is the embedded template
// prompt.tmpl.
package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"text/template"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/post"
	"infernal/pkg/upstream"
	"infernal/pkg/writer"
)

// Name is what the writer calls itself in logs.
const Name = "openai"

// Defaults for the fields of Config left empty.
const (
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultModel is a small, cheap chat model that follows a JSON format well.
	DefaultModel = "gpt-4o-mini"
	// DefaultParameter is the temperature and the presence and frequency
	// penalties used when Config leaves them at zero, as the spec's logs
	// default to 0.3.
	DefaultParameter = post.DefaultLLMParameter
	// DefaultTimeout bounds one request when Config brings no HTTP client;
	// local models on small machines can be slow.
	DefaultTimeout = 2 * time.Minute
)

// Config says which server and model to use and how to sample.
type Config struct {
	// BaseURL is the API root the paths /chat/completions hang from, for
	// example http://127.0.0.1:11434/v1 for Ollama; DefaultBaseURL if empty.
	BaseURL string
	// APIKey is sent as a bearer token; it may be empty for local servers.
	APIKey string
	// Model is the model name; DefaultModel if empty.
	Model string
	// Temperature, PresencePenalty and FrequencyPenalty are sent with every
	// request and recorded on every draft. Zero means DefaultParameter: the
	// API cannot tell an explicit zero from an absent field, and 0.3 is the
	// product's default.
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64
	// MaxTokens caps the answer's length in tokens; zero sends no cap.
	MaxTokens int
	// PlainText leaves response_format out of requests, for servers that
	// reject {"type": "json_object"}; the answer is still parsed as JSON when
	// it is JSON.
	PlainText bool
	// HTTPClient makes the requests; a client with DefaultTimeout if nil.
	HTTPClient *http.Client
	// Now tells profile prompts the time of day; time.Now if nil.
	Now func() time.Time
	// Concurrency bounds the calls in flight through this writer
	// (MODEL_CONCURRENCY); zero leaves them unbounded.
	Concurrency int
	// Limiter, when set, keeps the provider's announced rate-limit windows
	// shared by every worker: no call is sent inside a closed one (see
	// limitTransport).
	Limiter Limiter
	// Usage, when set, is told the tokens of every answer (its
	// usage.prompt_tokens and completion_tokens), refusals included, since
	// they are billed too (*spend.Meter's Usage is one).
	Usage func(ctx context.Context, model string, promptTokens, completionTokens int)
	// Vision says whether drafts and reviews send the images of the posts
	// they answer (MODEL_VISION); "" is VisionAuto.
	Vision Vision
	// Blind, when set, keeps the models found to take no images for every
	// process; unset, each writer remembers its own.
	Blind BlindModels
	// Log is told, once, that the model takes no images; nil discards.
	Log *slog.Logger
}

// DefaultConfig returns a Config for OpenAI with the default model and
// sampling parameters and the given API key.
func DefaultConfig(apiKey string) Config {
	return Config{
		BaseURL:          DefaultBaseURL,
		APIKey:           apiKey,
		Model:            DefaultModel,
		Temperature:      DefaultParameter,
		PresencePenalty:  DefaultParameter,
		FrequencyPenalty: DefaultParameter,
	}
}

// Writer drafts responses with a chat model. It is safe for concurrent use.
type Writer struct {
	client *goopenai.Client
	// http is the client's HTTP client: its transport bounds the calls in
	// flight and keeps them inside the provider's windows.
	http   *http.Client
	cfg    Config
	prompt *template.Template
	// blind is set once this writer found (or was told) that the model
	// takes no images.
	blind atomic.Bool
}

// New returns a writer for cfg, with its empty fields defaulted. It fails
// when the base URL is not an http(s) URL or a parameter is out of the
// range the API accepts.
func New(cfg Config) (*Writer, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	for _, p := range []*float64{&cfg.Temperature, &cfg.PresencePenalty, &cfg.FrequencyPenalty} {
		if *p == 0 {
			*p = DefaultParameter
		}
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	vision, err := ParseVision(string(cfg.Vision))
	if err != nil {
		return nil, err
	}
	cfg.Vision = vision
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	switch {
	case cfg.Temperature < 0 || cfg.Temperature > 2:
		return nil, fmt.Errorf("openai: temperature %v is outside 0–2", cfg.Temperature)
	case cfg.PresencePenalty < -2 || cfg.PresencePenalty > 2:
		return nil, fmt.Errorf("openai: presence penalty %v is outside -2–2", cfg.PresencePenalty)
	case cfg.FrequencyPenalty < -2 || cfg.FrequencyPenalty > 2:
		return nil, fmt.Errorf("openai: frequency penalty %v is outside -2–2", cfg.FrequencyPenalty)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("openai: max tokens %d is negative", cfg.MaxTokens)
	}
	prompt, err := parsePrompt()
	if err != nil {
		return nil, err
	}
	cc := goopenai.DefaultConfig(cfg.APIKey)
	cc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	hc := limited(cfg.HTTPClient, cfg)
	cc.HTTPClient = hc
	return &Writer{client: goopenai.NewClientWithConfig(cc), http: hc, cfg: cfg, prompt: prompt}, nil
}

// HTTPClient is the HTTP client the writer calls the provider through:
// other calls of the same provider made through it (the worker's
// embeddings, pkg/embeddings) share its bound on the calls in flight
// (Config.Concurrency) and its rate-limit windows (Config.Limiter), and a
// 429 they meet closes the windows for every worker.
func (w *Writer) HTTPClient() *http.Client { return w.http }

// Name identifies the writer in logs.
func (w *Writer) Name() string { return Name }

// Write asks the model for a draft answering req.
//
// The model is asked for {"response": "...", "category": "..."}; a bare text
// answer, or JSON inside a code fence, is accepted too. The category is the
// model's label when it names one of the seven sins (in any case, or as an
// adjective such as "slothful"); otherwise it is guessed from keyword cues
// in the post and the answer (writer.Classify), and is pride when none is
// found, pride coming before every other fall.
//
// A refusal (finish_reason content_filter, a refusal message, a content
// filter error, no choices, or an answer empty after trimming) returns an
// error wrapping writer.ErrRefused. HTTP and network errors, and answers
// that cannot be parsed, are returned wrapped: retrying may help.
func (w *Writer) Write(ctx context.Context, req writer.Request) (writer.Draft, error) {
	if err := ctx.Err(); err != nil {
		return writer.Draft{}, fmt.Errorf("openai: %w", err)
	}
	msgs, err := w.messages(req)
	if err != nil {
		return writer.Draft{}, err
	}
	creq := goopenai.ChatCompletionRequest{
		Model:            w.cfg.Model,
		Messages:         msgs,
		Temperature:      float32(w.cfg.Temperature),
		PresencePenalty:  float32(w.cfg.PresencePenalty),
		FrequencyPenalty: float32(w.cfg.FrequencyPenalty),
		// max_tokens, not max_completion_tokens: the local servers this writer
		// also serves (Ollama, vLLM, llama.cpp) know only the older name.
		MaxTokens: w.cfg.MaxTokens, //nolint:staticcheck // SA1019, see above

	}
	if !w.cfg.PlainText {
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
	}
	resp, err := w.complete(ctx, creq, req)
	if err != nil {
		var apiErr *goopenai.APIError
		if errors.As(err, &apiErr) && isContentFilter(apiErr) {
			return writer.Draft{}, fmt.Errorf("openai: %w: %s", writer.ErrRefused, upstream.Excerpt(apiErr.Message))
		}
		// The client's error quotes a body that is not the API's JSON whole.
		if busy(err) {
			return writer.Draft{}, fmt.Errorf("openai: chat completion: %w: %w", writer.ErrBusy, upstream.Error(err))
		}
		return writer.Draft{}, fmt.Errorf("openai: chat completion: %w", upstream.Error(err))
	}
	if w.cfg.Usage != nil {
		model := resp.Model
		if model == "" {
			model = w.cfg.Model
		}
		w.cfg.Usage(ctx, model, resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	if len(resp.Choices) == 0 {
		return writer.Draft{}, fmt.Errorf("openai: %w: no choices in the answer", writer.ErrRefused)
	}
	choice := resp.Choices[0]
	switch {
	case choice.FinishReason == goopenai.FinishReasonContentFilter:
		return writer.Draft{}, fmt.Errorf("openai: %w: content filter", writer.ErrRefused)
	case strings.TrimSpace(choice.Message.Refusal) != "":
		return writer.Draft{}, fmt.Errorf("openai: %w: %s", writer.ErrRefused, strings.TrimSpace(choice.Message.Refusal))
	}
	text, label, err := parseAnswer(choice.Message.Content)
	if err != nil {
		return writer.Draft{}, fmt.Errorf("openai: finish reason %q: %w", choice.FinishReason, err)
	}
	if text == "" {
		return writer.Draft{}, fmt.Errorf("openai: %w: empty answer", writer.ErrRefused)
	}
	return writer.Draft{
		Text:             text,
		Category:         categorize(label, req.PostText, text, subjects(req.Context)...),
		Temperature:      w.cfg.Temperature,
		PresencePenalty:  w.cfg.PresencePenalty,
		FrequencyPenalty: w.cfg.FrequencyPenalty,
	}, nil
}

// busy reports whether err is the server saying it is rate limited or
// overloaded (429 or 503), as an API error or a bare HTTP one.
func busy(err error) bool {
	status := 0
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// isContentFilter reports whether an API error is the server's content
// filter declining the prompt (Azure and OpenAI answer 400 with such a code).
func isContentFilter(e *goopenai.APIError) bool {
	code, _ := e.Code.(string)
	return code == "content_filter" || code == "content_policy_violation"
}
