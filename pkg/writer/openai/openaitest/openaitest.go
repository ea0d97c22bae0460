// Package openaitest is a local stand-in for an OpenAI-compatible chat
// completions server, for tests and the benchmark: it answers after a set
// latency, allows PerMinute requests a minute, announces its windows in
// OpenAI's x-ratelimit-* headers as OpenAI does, answers 429 with a
// retry-after beyond them (and, for a storm, until a given time), and
// counts what it was asked. It records every prompt it was sent, with its
// image parts, and can refuse images as a model without vision does. It
// serves OpenAI's embeddings too (embeddings.go).
package openaitest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// tokensPerRequest is the tokens window's allowance per request allowed:
// generous, so that the requests window is the one that binds.
const tokensPerRequest = 10_000

// Config shapes the stand-in.
type Config struct {
	// Latency is how long every answer takes.
	Latency time.Duration
	// PerMinute is how many requests a minute it allows, refilled
	// continuously as OpenAI's limits are; 0 allows any number and sends
	// no rate-limit headers, as a local server does.
	PerMinute int
	// Burst is how many requests it allows at once after a quiet spell
	// (the bucket's size); 0 means a second's worth of PerMinute, at
	// least 1.
	Burst int
	// CountDelay is how long after a request arrives it is counted: the
	// way to a provider's rate limiter, which a slow network or a busy
	// machine lengthens.
	CountDelay time.Duration
	// StormUntil, when set, makes it answer every request 429 until then,
	// with a retry-after of StormRetryAfter (1 s if zero).
	StormUntil      time.Time
	StormRetryAfter time.Duration
	// StormFor, when set, makes the storm start at the first request and
	// last this long: however late a loaded machine sends it, the storm
	// is met.
	StormFor time.Duration
	// RefuseImages makes it a model without image input: a request with
	// an image_url part is answered 400 in OpenAI's words.
	RefuseImages bool
	// Gather makes each answer wait, before its Latency, until Gather
	// requests are in flight at once (or GatherWait passes), so a test
	// sees the concurrency a client allows however late a loaded machine
	// starts its calls; 0 waits for nobody.
	Gather int
	// GatherWait bounds Gather's wait (5 s if zero): the last requests of
	// a run, fewer than Gather, go on after it.
	GatherWait time.Duration
	// Dimensions is the length of the embeddings' vectors (DefaultDimensions if zero).
	Dimensions int
	// MaxInputs is the most texts one embeddings request may carry,
	// OpenAI's 2,048 if zero; more are refused with a 400.
	MaxInputs int
	// Concepts are groups of words the embeddings take for one meaning
	// (synonyms, as a real model's vectors bring together), each group
	// embedded as its first word.
	Concepts [][]string
}

// ImageRefusal is the message of the 400 that refuses images, OpenAI's
// for a model without vision.
const ImageRefusal = "Invalid content type. image_url is only supported by certain models."

// Image is one image_url part of a prompt.
type Image struct {
	URL    string `json:"url"`
	Detail string `json:"detail"`
}

// Prompt is one request as received: its model, the text of its
// messages (every text part, in order, joined by newlines) and its image
// parts; Refused says it was refused for its images.
type Prompt struct {
	Model   string
	Text    string
	Images  []Image
	Refused bool
}

// Stats is what the stand-in was asked.
type Stats struct {
	// Requests counts every request received; Answered the drafts given,
	// Refused the 429s.
	Requests, Answered, Refused int
	// InsideWindow counts the requests received while a window it had
	// announced closed (a remaining count of 0, until the first request
	// comes back by the announced refill; or a 429, until its
	// retry-after) was still closed.
	InsideWindow int
	// MaxInFlight is the most requests it answered at once.
	MaxInFlight int
}

// Server is the stand-in, an http.Handler serving /chat/completions under
// any prefix. It is safe for concurrent use.
type Server struct {
	cfg Config

	mu          sync.Mutex
	tokens      float64
	last        time.Time
	closedUntil time.Time
	// stormUntil ends the storm: Config.StormUntil, or StormFor after the
	// first request.
	stormUntil time.Time
	inFlight   int
	// gathered is closed when Gather requests are in flight, releasing
	// the requests waiting for them; a new one then gathers the next.
	gathered chan struct{}
	stats    Stats
	prompts  []Prompt
	// inputs are the embeddings requests received, in order.
	inputs []EmbeddingsRequest
	// concept maps each word of Config.Concepts to its group's first.
	concept map[string]string
}

// Prompts returns every request received so far, in order.
func (s *Server) Prompts() []Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Prompt(nil), s.prompts...)
}

// message is a chat message as sent: content is a string or a list of parts.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// prompt reads the text and image parts of msgs.
func prompt(model string, msgs []message) Prompt {
	p := Prompt{Model: model}
	var texts []string
	for _, m := range msgs {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			texts = append(texts, s)
			continue
		}
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL *Image `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, part := range parts {
			switch {
			case part.Type == "text":
				texts = append(texts, part.Text)
			case part.Type == "image_url" && part.ImageURL != nil:
				p.Images = append(p.Images, *part.ImageURL)
			}
		}
	}
	p.Text = strings.Join(texts, "\n")
	return p
}

// New returns a stand-in shaped by cfg, its windows full.
func New(cfg Config) *Server {
	if cfg.Burst <= 0 {
		cfg.Burst = max(cfg.PerMinute/60, 1)
	}
	if cfg.StormRetryAfter <= 0 {
		cfg.StormRetryAfter = time.Second
	}
	if cfg.GatherWait <= 0 {
		cfg.GatherWait = 5 * time.Second
	}
	if cfg.Dimensions <= 0 {
		cfg.Dimensions = DefaultDimensions
	}
	if cfg.MaxInputs <= 0 {
		cfg.MaxInputs = maxEmbeddingInputs
	}
	concept := map[string]string{}
	for _, group := range cfg.Concepts {
		for _, w := range group {
			concept[strings.ToLower(w)] = strings.ToLower(group[0])
		}
	}
	return &Server{cfg: cfg, tokens: float64(cfg.Burst), gathered: make(chan struct{}), concept: concept, stormUntil: cfg.StormUntil}
}

// Stats returns what the stand-in was asked so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// ServeHTTP answers a chat completion request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.embeddings(w, r)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	got := prompt(req.Model, req.Messages)
	if s.cfg.RefuseImages && len(got.Images) > 0 {
		got.Refused = true
		s.mu.Lock()
		s.prompts = append(s.prompts, got)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":"messages.[1].content.[1].type","code":null}}`, ImageRefusal)
		return
	}
	s.mu.Lock()
	s.prompts = append(s.prompts, got)
	s.mu.Unlock()
	if s.cfg.CountDelay > 0 {
		time.Sleep(s.cfg.CountDelay)
	}
	now := time.Now()
	s.mu.Lock()
	s.stats.Requests++
	if now.Before(s.closedUntil) {
		s.stats.InsideWindow++
	}
	n := s.stats.Requests
	if n == 1 && s.cfg.StormFor > 0 {
		s.stormUntil = now.Add(s.cfg.StormFor)
	}
	status, retryAfter := http.StatusOK, time.Duration(0)
	switch {
	case now.Before(s.stormUntil):
		status, retryAfter = http.StatusTooManyRequests, s.cfg.StormRetryAfter
	case s.cfg.PerMinute > 0:
		s.refill(now)
		if s.tokens < 1 {
			status, retryAfter = http.StatusTooManyRequests, s.untilToken()
		} else {
			s.tokens--
		}
	}
	if s.cfg.PerMinute > 0 {
		s.announce(w.Header(), now)
	}
	if status == http.StatusTooManyRequests {
		s.stats.Refused++
		s.closedUntil = later(s.closedUntil, now.Add(retryAfter))
		s.mu.Unlock()
		w.Header().Set("Retry-After", fmt.Sprintf("%d", int(math.Ceil(retryAfter.Seconds()))))
		setProcessing(w.Header(), now)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	}
	s.inFlight++
	s.stats.MaxInFlight = max(s.stats.MaxInFlight, s.inFlight)
	gathered := s.gathered
	if s.cfg.Gather > 0 && s.inFlight >= s.cfg.Gather {
		close(s.gathered)
		s.gathered = make(chan struct{})
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.stats.Answered++
		s.mu.Unlock()
	}()
	if s.cfg.Gather > 0 {
		select {
		case <-gathered:
		case <-time.After(s.cfg.GatherWait):
		case <-r.Context().Done():
			return
		}
	}
	select {
	case <-time.After(s.cfg.Latency):
	case <-r.Context().Done():
		return
	}
	// One answer serves a draft (response, category) and a review (score, reason).
	content, err := json.Marshal(map[string]any{"response": answer(n), "category": "sloth", "score": 4, "reason": "in character"})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	setProcessing(w.Header(), now)
	fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":%d,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":400,"completion_tokens":40,"total_tokens":440}}`, n, now.Unix(), req.Model, content)
}

// refill adds what the bucket gained since the last request.
func (s *Server) refill(now time.Time) {
	if !s.last.IsZero() {
		s.tokens = math.Min(float64(s.cfg.Burst), s.tokens+now.Sub(s.last).Seconds()*s.rate())
	}
	s.last = now
}

// rate is the requests allowed a second.
func (s *Server) rate() float64 { return float64(s.cfg.PerMinute) / 60 }

// untilToken is how long until the bucket holds a request again.
func (s *Server) untilToken() time.Duration {
	return time.Duration((1 - s.tokens) / s.rate() * float64(time.Second))
}

// announce writes the windows' headers as OpenAI does: the limit (what
// may be sent before the window is spent: the bucket's size), what is
// left, and how long until the window is full again, refilling evenly; an
// empty window is closed until its next request comes back.
func (s *Server) announce(h http.Header, now time.Time) {
	remaining := int(math.Floor(s.tokens))
	reset := time.Duration((float64(s.cfg.Burst) - s.tokens) / s.rate() * float64(time.Second)).Round(time.Millisecond)
	if remaining == 0 {
		// Refilling evenly until reset, it has none until the next comes back.
		s.closedUntil = later(s.closedUntil, now.Add(s.untilToken()))
	}
	h.Set("x-ratelimit-limit-requests", fmt.Sprintf("%d", s.cfg.Burst))
	h.Set("x-ratelimit-remaining-requests", fmt.Sprintf("%d", remaining))
	h.Set("x-ratelimit-reset-requests", reset.String())
	h.Set("x-ratelimit-limit-tokens", fmt.Sprintf("%d", s.cfg.Burst*tokensPerRequest))
	h.Set("x-ratelimit-remaining-tokens", fmt.Sprintf("%d", remaining*tokensPerRequest))
	h.Set("x-ratelimit-reset-tokens", reset.String())
}

// setProcessing writes openai-processing-ms, as OpenAI does: how long the
// request took from when it was counted to its answer.
func setProcessing(h http.Header, counted time.Time) {
	h.Set("openai-processing-ms", fmt.Sprintf("%d", time.Since(counted).Milliseconds()))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// wordList makes the answers, different enough that no draft is a near
// duplicate of another.
const wordList = `abyss ash brimstone cinder coal damnation dread ember fathom furnace gallows
	gloom grudge hollow idle jackal kiln languor lethargy malice mire murk nadir omen pyre quagmire
	rancor ruin scorn sloth smolder snare soot spite sulfur swamp tallow tar thorn torpor umbra venom
	vex vigil wane wick wither wrath yawn yoke zeal`

// answer is the n-th answer: twelve words drawn for n.
func answer(n int) string {
	words := strings.Fields(wordList)
	r := rand.New(rand.NewPCG(uint64(n), 0x1f))
	out := make([]string, 12)
	for i := range out {
		out[i] = words[r.IntN(len(words))]
	}
	return strings.Join(out, " ")
}
