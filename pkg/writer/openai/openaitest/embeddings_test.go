package openaitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The stand-in answers POST /embeddings in OpenAI's wire format, and
// refuses what OpenAI refuses with a 400 in OpenAI's words.
func TestEmbeddingsWire(t *testing.T) {
	t.Parallel()
	s := New(Config{MaxInputs: 2})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantN      int
		wantDims   int
		wantError  string
	}{
		{name: "a list", body: `{"model":"text-embedding-3-small","input":["hell is warm","sloth wins"]}`, wantStatus: 200, wantN: 2, wantDims: DefaultDimensions},
		{name: "one string", body: `{"model":"m","input":"hell is warm"}`, wantStatus: 200, wantN: 1, wantDims: DefaultDimensions},
		{name: "fewer dimensions", body: `{"model":"m","input":["a b"],"dimensions":8,"encoding_format":"float"}`, wantStatus: 200, wantN: 1, wantDims: 8},
		{name: "an empty text", body: `{"model":"m","input":["fine",""]}`, wantStatus: 400, wantError: "'$.input' is invalid"},
		{name: "no model", body: `{"input":["fine"]}`, wantStatus: 400, wantError: "model"},
		{name: "too many", body: `{"model":"m","input":["a","b","c"]}`, wantStatus: 400, wantError: "1 to 2 items"},
		{name: "no input", body: `{"model":"m","input":[]}`, wantStatus: 400, wantError: "1 to 2 items"},
		{name: "token ids", body: `{"model":"m","input":[[1,2,3]]}`, wantStatus: 400, wantError: "'$.input' is invalid"},
		{name: "base64", body: `{"model":"m","input":["a"],"encoding_format":"base64"}`, wantStatus: 400, wantError: "encoding_format"},
		{name: "not JSON", body: `{"model":`, wantStatus: 400, wantError: "parse the JSON body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/v1/embeddings", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out struct {
				Object string `json:"object"`
				Data   []struct {
					Object    string    `json:"object"`
					Index     int       `json:"index"`
					Embedding []float32 `json:"embedding"`
				} `json:"data"`
				Model string `json:"model"`
				Usage struct {
					PromptTokens int `json:"prompt_tokens"`
					TotalTokens  int `json:"total_tokens"`
				} `json:"usage"`
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d (%v), want %d", resp.StatusCode, err, tt.wantStatus)
			}
			if tt.wantStatus != 200 {
				if !strings.Contains(out.Error.Message, tt.wantError) || out.Error.Type != "invalid_request_error" {
					t.Fatalf("error %+v, want one naming %q", out.Error, tt.wantError)
				}
				return
			}
			if out.Object != "list" || len(out.Data) != tt.wantN || out.Model == "" || out.Usage.PromptTokens <= 0 || out.Usage.TotalTokens != out.Usage.PromptTokens {
				t.Fatalf("answer %+v", out)
			}
			for i, d := range out.Data {
				if d.Object != "embedding" || d.Index != i || len(d.Embedding) != tt.wantDims {
					t.Fatalf("vector %d: %s, index %d, %d dimensions", i, d.Object, d.Index, len(d.Embedding))
				}
			}
		})
	}
	// Every request whose texts were read is recorded: all but the token ids and the broken JSON.
	if n := len(s.Embeddings()); n != len(tests)-2 {
		t.Fatalf("%d requests recorded, want %d", n, len(tests)-2)
	}
	if st := s.Stats(); st.Requests != 0 {
		t.Fatalf("the chat's statistics count %d embeddings requests", st.Requests)
	}
}
