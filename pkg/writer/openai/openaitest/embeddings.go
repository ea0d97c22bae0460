package openaitest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultDimensions is the length of the stand-in's vectors unless
// Config.Dimensions says otherwise.
const DefaultDimensions = 256

// maxEmbeddingInputs is OpenAI's most inputs in one embeddings request.
const maxEmbeddingInputs = 2048

// invalidInput is OpenAI's message for an input it cannot embed (an
// empty string among them).
const invalidInput = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."

// EmbeddingsRequest is one POST /embeddings as received.
type EmbeddingsRequest struct {
	Model string
	Input []string
	// Authorization is the request's Authorization header.
	Authorization string
}

// Embeddings returns every embeddings request received so far, in order.
func (s *Server) Embeddings() []EmbeddingsRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbeddingsRequest(nil), s.inputs...)
}

// embeddingsBody is the request as OpenAI documents it: input is one
// string or a list of them (lists of token ids are not served here).
type embeddingsBody struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     int             `json:"dimensions"`
}

type embedding struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

type embeddingsUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

type embeddingsAnswer struct {
	Object string          `json:"object"`
	Data   []embedding     `json:"data"`
	Model  string          `json:"model"`
	Usage  embeddingsUsage `json:"usage"`
}

// embeddings answers POST /embeddings as OpenAI does: a list of one vector
// per input, in order, and the tokens used; a request it cannot serve is a
// 400 in OpenAI's words.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var body embeddingsBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		invalid(w, "We could not parse the JSON body of your request.", "")
		return
	}
	var input []string
	var one string
	switch {
	case json.Unmarshal(body.Input, &one) == nil:
		input = []string{one}
	case json.Unmarshal(body.Input, &input) == nil:
	default:
		invalid(w, invalidInput, "input")
		return
	}
	s.mu.Lock()
	s.inputs = append(s.inputs, EmbeddingsRequest{Model: body.Model, Input: input, Authorization: r.Header.Get("Authorization")})
	s.mu.Unlock()
	dims := s.cfg.Dimensions
	switch {
	case body.Model == "":
		invalid(w, "you must provide a model parameter", "model")
		return
	case len(input) == 0 || len(input) > s.cfg.MaxInputs:
		invalid(w, fmt.Sprintf("'$.input' must hold 1 to %d items, not %d.", s.cfg.MaxInputs, len(input)), "input")
		return
	case body.EncodingFormat != "" && body.EncodingFormat != "float":
		invalid(w, "only the float encoding_format is served here", "encoding_format")
		return
	case body.Dimensions < 0 || body.Dimensions > dims:
		invalid(w, fmt.Sprintf("dimensions must be 1 to %d", dims), "dimensions")
		return
	case body.Dimensions > 0:
		dims = body.Dimensions
	}
	out := embeddingsAnswer{Object: "list", Model: body.Model, Data: make([]embedding, len(input))}
	for i, text := range input {
		if text == "" {
			invalid(w, invalidInput, "input")
			return
		}
		out.Data[i] = embedding{Object: "embedding", Index: i, Embedding: s.vector(text, dims)}
		out.Usage.PromptTokens += tokens(text)
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out) // a test stand-in's write to a closed connection matters not
}

// invalid answers a 400 as OpenAI words one.
func invalid(w http.ResponseWriter, message, param string) {
	var p any
	if param != "" {
		p = param
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	body := map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error", "param": p, "code": nil}}
	_ = json.NewEncoder(w).Encode(body) // a test stand-in's write to a closed connection matters not
}

// tokens is about what OpenAI counts of text: a token per four bytes, at
// least one.
func tokens(text string) int {
	return max(1, (len(text)+3)/4)
}

// stopWords are left out of the vectors, as a model's meaning ignores them.
var stopWords = map[string]bool{"the": true, "and": true, "a": true, "an": true, "of": true, "to": true, "is": true, "in": true,
	"on": true, "my": true, "it": true, "i": true, "you": true, "your": true, "this": true, "that": true, "for": true, "at": true,
	"with": true, "was": true, "are": true, "be": true, "so": true, "me": true, "again": true, "today": true}

// vector is text's embedding, deterministic: a hashed bag of its words
// (each word of Config.Concepts as its group's first), in dims
// dimensions, of length 1. Texts sharing words, or words of one concept,
// are close; a text without words is its whole text hashed.
func (s *Server) vector(text string, dims int) []float32 {
	v := make([]float64, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	n := 0
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || stopWords[w] {
			continue
		}
		if c, ok := s.concept[w]; ok {
			w = c
		}
		add(v, w)
		n++
	}
	if n == 0 {
		add(v, strings.ToLower(strings.TrimSpace(text)))
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dims)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// add counts word in v: +1 or -1 (by the hash's top bit) in the dimension
// its hash names.
func add(v []float64, word string) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(word)) // a hash's Write never fails
	sum := h.Sum64()
	sign := 1.0
	if sum>>63 == 1 {
		sign = -1
	}
	v[sum%uint64(len(v))] += sign
}
