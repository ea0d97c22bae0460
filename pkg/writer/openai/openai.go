// Package openai drafts the persona's words with a chat model behind any
// OpenAI-compatible chat completions API: OpenAI itself, or a local Ollama,
// vLLM or llama.cpp server. The persona's prompt is the embedded template
// prompt.tmpl.
package openai

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer"
)

//go:embed prompt.tmpl
var promptFile string

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
	cfg    Config
	prompt *template.Template
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
	cc.HTTPClient = limited(cfg.HTTPClient, cfg)
	return &Writer{client: goopenai.NewClientWithConfig(cc), cfg: cfg, prompt: prompt}, nil
}

func parsePrompt() (*template.Template, error) {
	t, err := template.New("prompt").Funcs(template.FuncMap{"join": strings.Join}).Parse(promptFile)
	if err != nil {
		return nil, fmt.Errorf("openai: prompt template: %w", err)
	}
	return t, nil
}

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
	resp, err := w.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		var apiErr *goopenai.APIError
		if errors.As(err, &apiErr) && isContentFilter(apiErr) {
			return writer.Draft{}, fmt.Errorf("openai: %w: %s", writer.ErrRefused, apiErr.Message)
		}
		if busy(err) {
			return writer.Draft{}, fmt.Errorf("openai: chat completion: %w: %w", writer.ErrBusy, err)
		}
		return writer.Draft{}, fmt.Errorf("openai: chat completion: %w", err)
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

// promptData is what prompt.tmpl is executed with.
type promptData struct {
	Persona        string
	Kind           writer.Kind
	Author         string
	PostText       string
	PreviousDraft  string
	PreviousLength int
	// Avoid is a recent persona post the draft must not resemble.
	Avoid      string
	MaxLength  int
	Categories []string
	Now        string
	// CurrentDraft is the draft the reviewer wants replaced, and
	// Instruction their wish for the new one; both are quoted in fenced tags.
	CurrentDraft string
	Instruction  string
	// Fence is this request's random suffix of the tags the mortal's text
	// and the earlier draft are quoted in, so that no text can close them.
	Fence string
	// Context is a reply's conversation, quoted in fenced blocks too, and
	// OwnContext whether it holds the persona's own earlier posts.
	Context    []contextBlock
	OwnContext bool
	// Character is the operator's persona, quoted in a fenced block as
	// data; the hard rules after it win.
	Character persona.Persona
}

// messages renders the system and user messages for req.
func (w *Writer) messages(req writer.Request) ([]goopenai.ChatCompletionMessage, error) {
	data, err := w.data(req)
	if err != nil {
		return nil, err
	}
	return w.render(data, "system", "user")
}

// render executes the system and user templates named with data.
func (w *Writer) render(data promptData, system, user string) ([]goopenai.ChatCompletionMessage, error) {
	var sys, usr bytes.Buffer
	if err := w.prompt.ExecuteTemplate(&sys, system, data); err != nil {
		return nil, fmt.Errorf("openai: %s prompt: %w", system, err)
	}
	if err := w.prompt.ExecuteTemplate(&usr, user, data); err != nil {
		return nil, fmt.Errorf("openai: %s prompt: %w", user, err)
	}
	return []goopenai.ChatCompletionMessage{
		{Role: goopenai.ChatMessageRoleSystem, Content: sys.String()},
		{Role: goopenai.ChatMessageRoleUser, Content: usr.String()},
	}, nil
}

// data is what the templates render req from.
func (w *Writer) data(req writer.Request) (promptData, error) {
	if req.Kind != writer.KindReply && req.Kind != writer.KindProfile {
		return promptData{}, fmt.Errorf("openai: unknown kind %q", req.Kind)
	}
	// Both handles are reduced like the context's, so that no handle can
	// carry a line of its own into the prompt outside the fences.
	persona := handle(req.Persona)
	if persona == "" {
		persona = "infernal"
	}
	data := promptData{
		Persona:        persona,
		Kind:           req.Kind,
		Author:         handle(req.Author),
		PostText:       strings.TrimSpace(req.PostText),
		PreviousDraft:  strings.TrimSpace(req.PreviousDraft),
		PreviousLength: req.PreviousLength,
		Avoid:          strings.TrimSpace(req.Avoid),
		MaxLength:      twittertext.MaxLength,
		Now:            w.cfg.Now().UTC().Format("Monday 2 January 2006, 15:04 MST"),
		CurrentDraft:   strings.TrimSpace(req.CurrentDraft),
		Instruction:    strings.TrimSpace(req.Instruction),
		Character:      writer.CharacterOf(req),
	}
	texts := []string{data.PostText, data.PreviousDraft, data.Avoid, data.CurrentDraft, data.Instruction,
		data.Character.Name, data.Character.Bio, data.Character.Voice}
	texts = append(texts, data.Character.Examples...)
	texts = append(texts, data.Character.AvoidTopics...)
	if req.Kind == writer.KindReply {
		data.Context = contextBlocks(req.Context)
	}
	for _, b := range data.Context {
		texts = append(texts, b.Text, b.Author)
		data.OwnContext = data.OwnContext || b.Tag == "own"
	}
	data.Fence = fence(texts...)
	if data.PreviousDraft != "" && data.PreviousLength <= 0 {
		data.PreviousLength = twittertext.WeightedLength(req.PreviousDraft)
	}
	for _, c := range post.Categories {
		data.Categories = append(data.Categories, string(c))
	}
	return data, nil
}

// fence returns a random suffix for the quoting tags (<post-…>, </post-…>)
// that none of texts contains, so none can close or imitate them: a text
// cannot guess the suffix, and the rare one that holds it gets another.
func fence(texts ...string) string {
	for {
		f := rand.Text()
		if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(strings.ToUpper(t), f) }) {
			return f
		}
	}
}

// isContentFilter reports whether an API error is the server's content
// filter declining the prompt (Azure and OpenAI answer 400 with such a code).
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

func isContentFilter(e *goopenai.APIError) bool {
	code, _ := e.Code.(string)
	return code == "content_filter" || code == "content_policy_violation"
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	codeFence  = regexp.MustCompile("(?s)^```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?```$")
)

// parseAnswer reads a model's answer: a JSON object with the response and
// its category, possibly in a code fence or after a reasoning model's
// <think> block, or bare text. It returns the trimmed text and the label,
// which is empty for a bare answer; an answer that starts as a JSON object
// but does not parse is an error.
func parseAnswer(content string) (text, label string, err error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if strings.HasPrefix(s, "<think>") {
		return "", "", errors.New("answer is cut off in the model's reasoning")
	}
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if strings.HasPrefix(s, "{") {
		text, label, ok := parseJSONAnswer(s)
		if !ok {
			return "", "", fmt.Errorf("answer is not the JSON asked for: %.80q", s)
		}
		return text, label, nil
	}
	// Some models chat before the object: "Sure! {...}".
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		if text, label, ok := parseJSONAnswer(s[i : j+1]); ok {
			return text, label, nil
		}
	}
	return unquote(s), "", nil
}

// parseJSONAnswer reads {"response": ..., "category": ...}, accepting the
// other names models tend to use for the two fields.
func parseJSONAnswer(s string) (text, label string, ok bool) {
	var fields map[string]any
	if err := json.Unmarshal([]byte(s), &fields); err != nil {
		return "", "", false
	}
	lower := make(map[string]any, len(fields))
	for k, v := range fields {
		lower[strings.ToLower(k)] = v
	}
	text, found := firstString(lower, "response", "reply", "text", "tweet", "post", "content", "message")
	if !found {
		return "", "", false
	}
	label, _ = firstString(lower, "category", "sin", "label", "deadly_sin")
	return strings.TrimSpace(text), label, true
}

func firstString(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			s, isString := v.(string)
			return s, isString || v == nil
		}
	}
	return "", false
}

// unquote drops the quotes a model sometimes wraps a bare answer in.
func unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"\u201c", "\u201d"}, {"'", "'"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) &&
			!strings.Contains(s[len(q[0]):len(s)-len(q[1])], q[0]) {
			return strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// sinWords maps the words a model may label a post with to its sin.
func sinWords() map[string]post.Category {
	return map[string]post.Category{
		"proud": "pride", "vanity": "pride", "hubris": "pride", "arrogance": "pride",
		"greedy": "greed", "avarice": "greed", "avaricious": "greed",
		"wrathful": "wrath", "anger": "wrath", "angry": "wrath", "rage": "wrath",
		"envious": "envy", "jealousy": "envy", "jealous": "envy",
		"lustful": "lust", "desire": "lust",
		"gluttonous": "gluttony", "glutton": "gluttony",
		"slothful": "sloth", "laziness": "sloth", "lazy": "sloth", "acedia": "sloth",
	}
}

// categorize turns the model's label into a sin: the label itself, in any
// case and with stray punctuation; else the first sin or sin word among its
// words; else keyword cues in the post, the answer and then the context
// texts; else pride.
func categorize(label, postText, answer string, contextTexts ...string) post.Category {
	words := strings.FieldsFunc(strings.ToLower(label), func(r rune) bool {
		return r < 'a' || r > 'z'
	})
	if c, err := post.ParseCategory(strings.Join(words, "")); err == nil {
		return c
	}
	synonyms := sinWords()
	for _, w := range words {
		if c, err := post.ParseCategory(w); err == nil {
			return c
		}
		if c, ok := synonyms[w]; ok {
			return c
		}
	}
	if c, ok := writer.Classify(postText); ok {
		return c
	}
	if c, ok := writer.Classify(answer); ok {
		return c
	}
	for _, t := range contextTexts {
		if c, ok := writer.Classify(t); ok {
			return c
		}
	}
	return "pride"
}

// subjects returns the texts of the context posts the mortal's post may be
// about, best first: the quoted post, the parent, then the ancestors,
// newest first; never the persona's own.
func subjects(posts []writer.ContextPost) []string {
	var out []string
	for _, rel := range []writer.Relation{writer.RelationQuoted, writer.RelationParent, writer.RelationAncestor} {
		for i := len(posts) - 1; i >= 0; i-- {
			if posts[i].Relation == rel {
				out = append(out, posts[i].Text)
			}
		}
	}
	return out
}
