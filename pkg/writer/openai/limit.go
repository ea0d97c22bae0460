package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"infernal/pkg/ratelimit"
	"infernal/pkg/upstream"
	"infernal/pkg/writer"
)

// Limiter keeps the provider's rate-limit windows shared by every worker
// (*ratelimit.Windows is one).
type Limiter interface {
	// ReserveModel takes a call of the windows named name expected to use
	// tokens tokens; notBefore is zero when the call may go now.
	ReserveModel(ctx context.Context, name string, tokens int) (call ratelimit.ModelCall, notBefore time.Time, err error)
	// RecordModel keeps what the answer's headers say of the windows;
	// closedUntil is set when a 429 closed them.
	RecordModel(ctx context.Context, call ratelimit.ModelCall, status int, h http.Header) (closedUntil time.Time, err error)
}

// MaxPaceWait is the longest a call waits in the worker for its turn in an
// open window, or for a closed one to open; a longer wait sends the draft
// back to the queue (writer.Busy) until the window opens.
const MaxPaceWait = 3 * time.Second

// pollWait is the longest a waiting call sleeps before it asks the windows
// again: the first answer of a provider ends its probe early.
const pollWait = 250 * time.Millisecond

// defaultAnswerTokens is the answer's length counted against the tokens
// window when Config.MaxTokens sets none.
const defaultAnswerTokens = 256

// limitTransport bounds the calls in flight to the model (slots) and keeps
// them inside the provider's windows (limiter): it is the writer's HTTP
// layer, below go-openai.
type limitTransport struct {
	base    http.RoundTripper
	slots   chan struct{}
	limiter Limiter
	// name names the windows: the provider's host and the model.
	name         string
	answerTokens int
}

// limited returns client with its transport wrapped by a limitTransport,
// or client itself when cfg asks for no limit.
func limited(client *http.Client, cfg Config) *http.Client {
	if cfg.Concurrency <= 0 && cfg.Limiter == nil {
		return client
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	t := &limitTransport{base: base, limiter: cfg.Limiter, answerTokens: defaultAnswerTokens}
	if cfg.Concurrency > 0 {
		t.slots = make(chan struct{}, cfg.Concurrency)
	}
	if cfg.MaxTokens > 0 {
		t.answerTokens = cfg.MaxTokens
	}
	host := cfg.BaseURL
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		host = u.Host
	}
	t.name = host + " " + cfg.Model
	out := *client
	out.Transport = t
	return &out
}

// RoundTrip sends req when a slot is free and the windows allow it,
// records what the answer says of them, and turns a 429 into writer.Busy.
func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if t.slots != nil {
		select {
		case t.slots <- struct{}{}:
			defer func() { <-t.slots }()
		case <-ctx.Done():
			return nil, fmt.Errorf("openai: waiting for a model slot: %w", ctx.Err())
		}
	}
	if t.limiter == nil {
		return t.base.RoundTrip(req)
	}
	call, err := t.reserve(ctx, t.tokens(req))
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	closed, err := t.limiter.RecordModel(ctx, call, resp.StatusCode, resp.Header)
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("openai: %w", err)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512)) // only for the message: a short read loses nothing
		resp.Body.Close()
		return nil, &writer.Busy{Until: closed, Reason: fmt.Sprintf("%s answered 429 (%s)", t.name, upstream.Excerpt(string(body)))}
	}
	return resp, nil
}

// reserve waits for a call of the windows, up to MaxPaceWait; a window
// closed for longer gives writer.Busy.
func (t *limitTransport) reserve(ctx context.Context, tokens int) (ratelimit.ModelCall, error) {
	for {
		call, notBefore, err := t.limiter.ReserveModel(ctx, t.name, tokens)
		if err != nil {
			return ratelimit.ModelCall{}, fmt.Errorf("openai: %w", err)
		}
		if notBefore.IsZero() {
			return call, nil
		}
		wait := time.Until(notBefore)
		if wait > MaxPaceWait {
			return ratelimit.ModelCall{}, &writer.Busy{Until: notBefore, Reason: "the rate-limit window of " + t.name + " is closed; the call was not sent"}
		}
		timer := time.NewTimer(min(wait, pollWait))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ratelimit.ModelCall{}, fmt.Errorf("openai: waiting for the rate-limit window: %w", ctx.Err())
		}
	}
}

// tokens estimates what req counts against the tokens window: about a
// token per four bytes of the request, plus the answer's length.
func (t *limitTransport) tokens(req *http.Request) int {
	return int(max(req.ContentLength, 0)/4) + t.answerTokens
}
