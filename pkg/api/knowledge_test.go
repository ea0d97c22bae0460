package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/embeddings"
	"infernal/pkg/knowledge"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/writer/openai/openaitest"
)

// upload posts one multipart file named name holding content to
// /api/knowledge.
func (e *env) upload(name string, content []byte) (int, string) {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := fw.Write(content); err != nil {
		e.t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		e.t.Fatal(err)
	}
	return e.send("POST", "/api/knowledge", mw.FormDataContentType(), &buf)
}

// send sends body as contentType with the admin's token.
func (e *env) send(method, path, contentType string, body io.Reader) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

type documentAnswer struct {
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Bytes   int    `json:"bytes"`
	Chunks  int    `json:"chunks"`
	Enabled bool   `json:"enabled"`
}

// A document uploaded as a file or as JSON is listed, found by a search
// that asks about it (and only then), disabled, enabled and deleted.
func TestKnowledgeLifecycle(t *testing.T) {
	t.Parallel()
	e := setup(t)
	status, body := e.upload("Opening hours.md", []byte(knowledge.SampleText))
	if status != 201 {
		t.Fatalf("upload: %d %s", status, body)
	}
	var doc documentAnswer
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Opening hours" || doc.Chunks != 3 || !doc.Enabled || doc.Bytes != len(knowledge.SampleText) {
		t.Fatalf("document %+v", doc)
	}
	status, body = e.do("POST", "/api/knowledge", e.token, `{"title":"Menu","text":"# Drinks\n\nThe bar serves sulphur cocktails and lava espresso."}`)
	if status != 201 {
		t.Fatalf("JSON upload: %d %s", status, body)
	}
	status, body = e.do("GET", "/api/knowledge", e.token, "")
	if status != 200 || strings.Count(body, `"id"`) != 2 {
		t.Fatalf("list: %d %s", status, body)
	}

	search := func(q string) []map[string]any {
		t.Helper()
		status, body := e.do("GET", "/api/knowledge/search?q="+strings.ReplaceAll(q, " ", "+"), e.token, "")
		if status != 200 {
			t.Fatalf("search: %d %s", status, body)
		}
		var out struct {
			Chunks int              `json:"chunks"`
			Facts  []map[string]any `json:"facts"`
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		return out.Facts
	}
	facts := search("what are the opening hours of the pit tonight")
	if len(facts) == 0 || !strings.Contains(facts[0]["text"].(string), "midnight to dawn") || facts[0]["title"] != "Opening hours" {
		t.Fatalf("the opening hours are not found first: %v", facts)
	}
	if facts := search("my sourdough starter died again"); len(facts) != 0 {
		t.Fatalf("an unrelated text got facts: %v", facts)
	}

	if status, body := e.do("PATCH", fmt.Sprintf("/api/knowledge/%d", doc.ID), e.token, `{"enabled":false}`); status != 200 || !strings.Contains(body, `"enabled":false`) {
		t.Fatalf("disable: %d %s", status, body)
	}
	if facts := search("what are the opening hours of the pit tonight"); len(facts) != 0 {
		t.Fatalf("a disabled document's chunk was found: %v", facts)
	}
	if status, body := e.do("PATCH", fmt.Sprintf("/api/knowledge/%d", doc.ID), e.token, `{"enabled":true}`); status != 200 {
		t.Fatalf("enable: %d %s", status, body)
	}
	if status, body := e.do("DELETE", fmt.Sprintf("/api/knowledge/%d", doc.ID), e.token, ""); status != 204 {
		t.Fatalf("delete: %d %s", status, body)
	}
	if facts := search("what are the opening hours of the pit tonight"); len(facts) != 0 {
		t.Fatalf("a deleted document's chunk was found: %v", facts)
	}
	if status, _ := e.do("DELETE", fmt.Sprintf("/api/knowledge/%d", doc.ID), e.token, ""); status != 404 {
		t.Fatalf("delete again: %d, want 404", status)
	}
}

// Every bad upload and request gets its own answer, and stores nothing.
func TestKnowledgeGarbage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	big := strings.Repeat("a", knowledge.MaxDocumentBytes+1)
	uploads := []struct {
		name    string
		file    string
		content []byte
		want    int
		field   string
	}{
		{"too big a file", "big.txt", []byte(big), 413, ""},
		{"wrong type", "photo.png", []byte("\x89PNG\r\n"), 415, ""},
		{"no extension", "notes", []byte("text"), 415, ""},
		{"binary", "data.txt", []byte{0xff, 0xfe, 0x00, 0x41}, 400, "text"},
		{"NUL bytes", "data.md", []byte("a\x00b"), 400, "text"},
		{"empty", "empty.md", nil, 400, "text"},
		{"blank", "blank.txt", []byte(" \n\n\t"), 400, "text"},
	}
	for _, tt := range uploads {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.upload(tt.file, tt.content)
			if status != tt.want {
				t.Fatalf("%d %s, want %d", status, body, tt.want)
			}
			if tt.field != "" {
				if f := learnFieldOf(t, status, body); f != tt.field {
					t.Fatalf("field %q, want %q", f, tt.field)
				}
			}
		})
	}
	requests := []struct {
		name, method, path, body string
		want                     int
		field                    string
	}{
		{"bad JSON", "POST", "/api/knowledge", `{"title":`, 400, ""},
		{"unknown field", "POST", "/api/knowledge", `{"title":"a","text":"b","x":1}`, 400, ""},
		{"no title", "POST", "/api/knowledge", `{"text":"b"}`, 400, "title"},
		{"blank title", "POST", "/api/knowledge", `{"title":" ","text":"b"}`, 400, "title"},
		{"long title", "POST", "/api/knowledge", `{"title":"` + strings.Repeat("t", 201) + `","text":"b"}`, 400, "title"},
		{"no text", "POST", "/api/knowledge", `{"title":"a"}`, 400, "text"},
		{"empty text", "POST", "/api/knowledge", `{"title":"a","text":""}`, 400, "text"},
		{"text too big", "POST", "/api/knowledge", `{"title":"a","text":"` + big + `"}`, 413, ""},
		{"text not a string", "POST", "/api/knowledge", `{"title":"a","text":3}`, 400, "text"},
		{"bad id", "PATCH", "/api/knowledge/abc", `{"enabled":true}`, 400, ""},
		{"zero id", "DELETE", "/api/knowledge/0", ``, 400, ""},
		{"unknown id", "PATCH", "/api/knowledge/999", `{"enabled":true}`, 404, ""},
		{"no enabled", "PATCH", "/api/knowledge/999", `{}`, 400, "enabled"},
		{"enabled not a boolean", "PATCH", "/api/knowledge/1", `{"enabled":"yes"}`, 400, "enabled"},
		{"search without q", "GET", "/api/knowledge/search", ``, 400, "q"},
		{"search too long", "GET", "/api/knowledge/search?q=" + strings.Repeat("q", knowledge.MaxQuery+1), ``, 400, "q"},
		{"search not UTF-8", "GET", "/api/knowledge/search?q=%ff", ``, 400, "q"},
	}
	for _, tt := range requests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do(tt.method, tt.path, e.token, tt.body)
			if status != tt.want {
				t.Fatalf("%d %s, want %d", status, body, tt.want)
			}
			if tt.field != "" {
				if f := learnFieldOf(t, status, body); f != tt.field {
					t.Fatalf("field %q, want %q", f, tt.field)
				}
			}
		})
	}
	if status, body := e.send("POST", "/api/knowledge", "application/pdf", strings.NewReader("%PDF")); status != 415 {
		t.Fatalf("a PDF body: %d %s, want 415", status, body)
	}
	if status, body := e.do("GET", "/api/knowledge", "", ""); status != 401 {
		t.Fatalf("without a token: %d %s", status, body)
	}
	if status, body := e.do("GET", "/api/knowledge", e.token, ""); status != 200 || body != "{\"documents\":[]}\n" {
		t.Fatalf("a bad upload stored something: %d %s", status, body)
	}
}

// The 201st document is a 413, and stores nothing.
func TestKnowledgeDocumentLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for i := range knowledge.MaxDocuments {
		if status, body := e.do("POST", "/api/knowledge", e.token, fmt.Sprintf(`{"title":"doc %d","text":"fact %d"}`, i, i)); status != 201 {
			t.Fatalf("document %d: %d %s", i, status, body)
		}
	}
	if status, body := e.upload("one-too-many.md", []byte("# More\n\nfacts")); status != 413 {
		t.Fatalf("the 201st: %d %s, want 413", status, body)
	}
	_, body := e.do("GET", "/api/knowledge", e.token, "")
	if n := strings.Count(body, `"id"`); n != knowledge.MaxDocuments {
		t.Fatalf("%d documents stored, want %d", n, knowledge.MaxDocuments)
	}
}

// knowledge.chunks is 0 to 5, default 3, round-trips GET -> PUT, and a bad
// value is a 400 naming it.
func TestKnowledgeSettings(t *testing.T) {
	t.Parallel()
	e := setup(t)
	status, body := e.do("GET", "/api/settings", e.token, "")
	if status != 200 || !strings.Contains(body, `"knowledge":{"chunks":3}`) {
		t.Fatalf("default: %d %s", status, body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	got["knowledge"] = map[string]any{"chunks": 5}
	put, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, string(put)); status != 200 || !strings.Contains(body, `"knowledge":{"chunks":5}`) {
		t.Fatalf("put: %d %s", status, body)
	}
	delete(got, "knowledge")
	put, err = json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, string(put)); status != 200 || !strings.Contains(body, `"knowledge":{"chunks":5}`) {
		t.Fatalf("an absent knowledge did not keep the stored one: %d %s", status, body)
	}
	for _, bad := range []string{`{"chunks":6}`, `{"chunks":-1}`} {
		got["knowledge"] = json.RawMessage(bad)
		put, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		status, body := e.do("PUT", "/api/settings", e.token, string(put))
		if f := learnFieldOf(t, status, body); f != "knowledge.chunks" {
			t.Fatalf("%s: field %q", bad, f)
		}
	}
}

// searchAnswer is GET /api/knowledge/search's answer.
type searchAnswer struct {
	Facts []struct {
		DocumentID int64   `json:"document_id"`
		ChunkID    int64   `json:"chunk_id"`
		Title      string  `json:"title"`
		Score      float64 `json:"score"`
	} `json:"facts"`
	Ranking struct {
		By     string `json:"by"`
		Reason string `json:"reason"`
	} `json:"ranking"`
}

func (e *env) searchKnowledge(q string) searchAnswer {
	e.t.Helper()
	status, body := e.do("GET", "/api/knowledge/search?q="+url.QueryEscape(q), e.token, "")
	var out searchAnswer
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil {
		e.t.Fatalf("search %q: %d %s", q, status, body)
	}
	return out
}

func (a searchAnswer) titles() string {
	var out []string
	for _, f := range a.Facts {
		out = append(out, f.Title)
	}
	return strings.Join(out, ",")
}

// rankingDocs are two documents: one sharing more of rankingQuery's words,
// one meaning what it asks in others (see embeddingConcepts).
var rankingDocs = []string{
	`{"title":"Ferry","text":"# Ferry\n\nThis morning Charon's ferry broke an oar near the obsidian docks; the harbour master will fix ropes, sails and lanterns before nightfall."}`,
	`{"title":"Coffee","text":"# Coffee maker\n\nWhen the coffee machine stopped, a demon could fix it."}`,
}

const rankingQuery = "my espresso machine broke this morning, who can fix it"

// embeddingConcepts are the words the embeddings stand-in takes for one
// meaning, as a real model's vectors bring synonyms together.
var embeddingConcepts = [][]string{{"espresso", "coffee"}, {"machine", "maker", "machines"}, {"broke", "stopped", "died"}, {"fix", "repair", "mend"}}

// The knowledge search ranks as the worker ranks a draft's facts: with
// EMBEDDINGS_MODEL, the provider's embeddings re-rank the candidates (the
// same order as the worker's retriever gives), their tokens counted in
// the model spend; none are asked for while the model budget is spent, or
// for a text that no chunk shares a word with; the answer says how it
// ranked. Without an embedder it ranks by text and says why.
func TestKnowledgeSearchRanksAsTheWorker(t *testing.T) {
	t.Parallel()
	model := openaitest.New(openaitest.Config{Concepts: embeddingConcepts})
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	var st *store.Store
	e := setupWith(t, func(cfg *api.Config) {
		st = cfg.Store.(*store.Store)
		meter := &spend.Meter{Ledger: st, Prices: spend.DefaultPrices(), Log: cfg.Log, Now: time.Now}
		emb, err := embeddings.New(embeddings.Config{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", Usage: meter.Usage})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Embedder = emb
		cfg.Budgets = spend.Budgets{ModelDaily: 1}
	})
	ctx := context.Background()
	for _, d := range rankingDocs {
		if status, body := e.do("POST", "/api/knowledge", e.token, d); status != 201 {
			t.Fatalf("upload: %d %s", status, body)
		}
	}

	got := e.searchKnowledge(rankingQuery)
	if got.Ranking.By != "embeddings" || got.Ranking.Reason != "" || !strings.HasPrefix(got.titles(), "Coffee,") {
		t.Fatalf("search %+v, want the coffee machine first, by embeddings", got)
	}
	emb, err := embeddings.New(embeddings.Config{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	worker, rk, err := (&knowledge.Retriever{Store: st, Embedder: emb}).Search(ctx, rankingQuery, knowledge.DefaultChunks)
	if err != nil || !rk.Embeddings || len(worker) != len(got.Facts) {
		t.Fatalf("the worker's retrieval: %+v, %+v, %v", worker, rk, err)
	}
	for i, f := range worker {
		if got.Facts[i].ChunkID != f.ChunkID || math.Abs(got.Facts[i].Score-f.Score) > 1e-9 {
			t.Fatalf("fact %d: the search's %+v, the worker's %+v", i, got.Facts[i], f)
		}
	}
	day, _ := spend.Periods(time.Now())
	sums, err := st.SpendTotals(ctx, day)
	if err != nil || sums.ModelUSD <= 0 {
		t.Fatalf("the search's embeddings are not in the model spend: %+v, %v", sums, err)
	}
	asked := len(model.Embeddings())

	if got := e.searchKnowledge("parliament votes on the fisheries quota"); len(got.Facts) != 0 || got.Ranking.By != "text" ||
		got.Ranking.Reason != "no chunk shares a word with the text" {
		t.Fatalf("an unrelated text: %+v", got)
	}
	set, err := st.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.Knowledge.Chunks = 0
	if err := st.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if got := e.searchKnowledge(rankingQuery); len(got.Facts) != 0 || got.Ranking.Reason != "knowledge.chunks is 0: a prompt gets no facts" {
		t.Fatalf("with knowledge.chunks 0: %+v", got)
	}
	set.Knowledge.Chunks = knowledge.DefaultChunks
	if err := st.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordModelUsage(ctx, spend.ModelUsage{At: time.Now(), Model: "gpt-4o-mini", PromptTokens: 1, USD: 1}); err != nil {
		t.Fatal(err)
	}
	got = e.searchKnowledge(rankingQuery)
	if got.Ranking.By != "text" || got.Ranking.Reason != "the daily model budget is spent" || !strings.HasPrefix(got.titles(), "Ferry,") {
		t.Fatalf("at the budget: %+v, want the ferry first, by text", got)
	}
	if n := len(model.Embeddings()); n != asked {
		t.Fatalf("%d embeddings requests after the first search; want none", n-asked)
	}
}

// A failed embeddings call leaves the search ranked by text, as it leaves
// a draft's, and says why; without EMBEDDINGS_MODEL it says so.
func TestKnowledgeSearchFallsBackToText(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`)
	}))
	t.Cleanup(failing.Close)
	broken := setupWith(t, func(cfg *api.Config) {
		emb, err := embeddings.New(embeddings.Config{BaseURL: failing.URL + "/v1", Model: "text-embedding-3-small"})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Embedder = emb
	})
	plain := setup(t)
	for _, e := range []*env{broken, plain} {
		for _, d := range rankingDocs {
			if status, body := e.do("POST", "/api/knowledge", e.token, d); status != 201 {
				t.Fatalf("upload: %d %s", status, body)
			}
		}
	}
	got := broken.searchKnowledge(rankingQuery)
	if got.Ranking.By != "text" || !strings.HasPrefix(got.Ranking.Reason, "the embeddings call failed: ") ||
		!strings.Contains(got.Ranking.Reason, "503: The engine is currently overloaded") || !strings.HasPrefix(got.titles(), "Ferry,") {
		t.Fatalf("after a failure: %+v", got)
	}
	want := plain.searchKnowledge(rankingQuery)
	if want.Ranking.By != "text" || want.Ranking.Reason != "EMBEDDINGS_MODEL is not set" || want.titles() != got.titles() {
		t.Fatalf("without embeddings: %+v; after a failure %+v", want, got)
	}
}
