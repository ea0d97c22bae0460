package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"infernal/pkg/knowledge"
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
