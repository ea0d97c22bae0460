package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"infernal/pkg/learning"
	"infernal/pkg/post"
)

// learnFieldOf decodes a 400's {"error", "field"}, failing when it is not one.
func learnFieldOf(t *testing.T, status int, body string) string {
	t.Helper()
	var out struct{ Error, Field string }
	if err := json.Unmarshal([]byte(body), &out); err != nil || status != 400 || out.Error == "" {
		t.Fatalf("want a 400 naming a field, got %d %s", status, body)
	}
	return out.Field
}

// importNDJSON posts body to the import as contentType.
func (e *env) importNDJSON(contentType, body string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+"/api/cases/import", strings.NewReader(body))
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

// Reject takes an optional reason of at most 200 characters, single and
// bulk (bulk only with reject), kept with the case; garbage is a 400
// naming reason.
func TestRejectReason(t *testing.T) {
	t.Parallel()
	e := setup(t)
	bad := []struct{ name, path, body string }{
		{"too long", "/api/posts/%d/reject", `{"reason":"` + strings.Repeat("x", 201) + `"}`},
		{"two lines", "/api/posts/%d/reject", `{"reason":"a\nb"}`},
		{"bulk approve with a reason", "/api/posts/bulk", `{"action":"approve","ids":[%d],"reason":"no"}`},
		{"bulk too long", "/api/posts/bulk", `{"action":"reject","ids":[%d],"reason":"` + strings.Repeat("x", 201) + `"}`},
	}
	id := e.pending("r1", post.SourceMention, 0, "a draft")
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			path, body := tt.path, tt.body
			if strings.Contains(path, "%d") {
				path = fmt.Sprintf(path, id)
			} else {
				body = fmt.Sprintf(body, id)
			}
			status, out := e.do("POST", path, e.token, body)
			if f := learnFieldOf(t, status, out); f != "reason" {
				t.Fatalf("field %q, want reason", f)
			}
		})
	}
	if e.status(id) != post.StatusPending {
		t.Fatal("a refused reject changed the post")
	}
	if status, body := e.do("POST", fmt.Sprintf("/api/posts/%d/reject", id), e.token, `{"reason":"Wrong tone"}`); status != 200 {
		t.Fatalf("reject: %d %s", status, body)
	}
	other := e.pending("r2", post.SourceMention, 0, "another draft")
	if status, body := e.do("POST", "/api/posts/bulk", e.token, fmt.Sprintf(`{"action":"reject","ids":[%d],"reason":"Off-topic"}`, other)); status != 200 {
		t.Fatalf("bulk: %d %s", status, body)
	}
	status, body := e.do("GET", "/api/cases", e.token, "")
	if status != 200 {
		t.Fatalf("cases: %d %s", status, body)
	}
	var out struct {
		Cases []struct {
			PostID   int64  `json:"post_id"`
			Decision string `json:"decision"`
			By       string `json:"by"`
			Reason   string `json:"reason"`
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Cases) != 2 {
		t.Fatalf("cases: %s %v", body, err)
	}
	want := map[int64]string{id: "web Wrong tone", other: "bulk Off-topic"}
	for _, c := range out.Cases {
		if got := c.By + " " + c.Reason; c.Decision != "rejected" || got != want[c.PostID] {
			t.Fatalf("case of %d: %s %q, want %q", c.PostID, c.Decision, got, want[c.PostID])
		}
	}
}

// The cases list, searches, pages and deletes; garbage is a 400 naming
// its parameter, an unknown case a 404.
func TestCasesRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tt := range []struct{ path, field string }{
		{"/api/cases?page=0", ""}, {"/api/cases?page=x", ""}, {"/api/cases?q=" + strings.Repeat("a", 201), "q"},
	} {
		status, body := e.do("GET", tt.path, e.token, "")
		if status != 400 || (tt.field != "" && learnFieldOf(t, status, body) != tt.field) || errorOf(t, body) == "" {
			t.Fatalf("%s: %d %s", tt.path, status, body)
		}
	}
	for _, path := range []string{"/api/cases/0", "/api/cases/abc"} {
		if status, _ := e.do("DELETE", path, e.token, ""); status != 400 {
			t.Fatalf("DELETE %s: %d, want 400", path, status)
		}
	}
	if status, _ := e.do("DELETE", "/api/cases/999999", e.token, ""); status != 404 {
		t.Fatalf("DELETE unknown: %d, want 404", status)
	}
	text := "Hell keeps it brief."
	id := e.pending("c1", post.SourceMention, 0, "A long draft about coffee and sin 🔥")
	if status, body := e.do("POST", fmt.Sprintf("/api/posts/%d/approve", id), e.token, fmt.Sprintf(`{"response":%q}`, text)); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	status, body := e.do("GET", "/api/cases?q=brief", e.token, "")
	var page struct {
		Cases []struct {
			ID        int64  `json:"id"`
			Decision  string `json:"decision"`
			DraftText string `json:"draft_text"`
			FinalText string `json:"final_text"`
		}
		Pagination struct{ Total int }
	}
	if err := json.Unmarshal([]byte(body), &page); status != 200 || err != nil || page.Pagination.Total != 1 || page.Cases[0].Decision != "edited" || page.Cases[0].FinalText != text {
		t.Fatalf("search: %d %s", status, body)
	}
	if _, body := e.do("GET", "/api/cases?q=nothing+like+it", e.token, ""); !strings.Contains(body, `"total":0`) {
		t.Fatalf("no match: %s", body)
	}
	if status, body := e.do("DELETE", fmt.Sprintf("/api/cases/%d", page.Cases[0].ID), e.token, ""); status != 204 || body != "" {
		t.Fatalf("delete: %d %q", status, body)
	}
	if e.status(id) != post.StatusApproved {
		t.Fatal("deleting a case changed its post")
	}
	if status, body := e.do("GET", fmt.Sprintf("/api/posts/%d/history", id), e.token, ""); status != 200 || !strings.Contains(body, `"learned"`) {
		t.Fatalf("history: %d %s", status, body)
	}
}

// An import takes JSON lines, each imported whole or skipped with its
// reason; over its limits it is a 413 and imports nothing; another
// content type is a 415.
func TestImportCases(t *testing.T) {
	t.Parallel()
	e := setup(t)
	lines := strings.Join([]string{
		`{"mention":"My sourdough died","reply":"Hell's ovens mourn it."}`,
		``,
		`{"mention":"Coffee time","reply":"Read https://example.com first"}`,
		`{"mention":"Hi","reply":"Ask @stranger about it"}`,
		`not json`,
		`{"mention":"Long","reply":"` + strings.Repeat("x", 300) + `"}`,
		`{"mention":"","reply":"empty mention"}`,
		`{"mention":"Where","reply":"here","platform":"mastodon"}`,
		`{"mention":"Extra","reply":"field","likes":3}`,
		`{"mention":"Marathon at dawn","reply":"Sloth salutes you.","platform":"sandbox"}`,
		`{"mention":"Mon café est froid","reply":"Le four t'attend.","language":"fr-ca"}`,
		`{"mention":"Wrong tag","reply":"Sloth it is.","language":"français"}`,
		`{"mention":"Number tag","reply":"Sloth it is.","language":3}`,
		`{"mention":"No tag","reply":"Sloth waits.","language":"und"}`,
	}, "\n")
	status, body := e.importNDJSON("application/x-ndjson", lines)
	var out struct {
		Imported int
		Skipped  []struct {
			Line  int
			Error string
		}
	}
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil {
		t.Fatalf("import: %d %s", status, body)
	}
	skipped := map[int]string{}
	for _, s := range out.Skipped {
		skipped[s.Line] = s.Error
	}
	want := map[int]string{3: "link", 4: "foreign_mention", 5: "JSON", 6: "", 7: "mention is required", 8: "platform", 9: "JSON",
		12: "language", 13: "JSON"}
	if out.Imported != 4 || len(skipped) != len(want) {
		t.Fatalf("imported %d, skipped %v; want 4 and lines 3-9, 12 and 13", out.Imported, skipped)
	}
	for q, lang := range map[string]string{"café": "fr-CA", "waits": "", "sourdough": ""} {
		status, body := e.do("GET", "/api/cases?q="+url.QueryEscape(q), e.token, "")
		var page struct {
			Cases []struct {
				Language string `json:"language"`
			} `json:"cases"`
		}
		if err := json.Unmarshal([]byte(body), &page); status != 200 || err != nil || len(page.Cases) != 1 || page.Cases[0].Language != lang {
			t.Fatalf("cases of %q: %d %s; want one in %q", q, status, body, lang)
		}
	}
	for line, part := range want {
		if !strings.Contains(skipped[line], part) {
			t.Fatalf("line %d: %q, want it to name %q", line, skipped[line], part)
		}
	}
	if status, _ := e.importNDJSON("application/json", lines); status != 415 {
		t.Fatalf("as JSON: %d, want 415", status)
	}
	many := strings.Repeat(`{"mention":"a","reply":"b"}`+"\n", 10001)
	if status, body := e.importNDJSON("application/x-ndjson", many); status != 413 || !strings.Contains(body, "10000 lines") {
		t.Fatalf("10,001 lines: %d %s", status, body)
	}
	huge := `{"mention":"a","reply":"` + strings.Repeat("b", 5<<20) + `"}`
	if status, _ := e.importNDJSON("application/x-ndjson", huge); status != 413 {
		t.Fatalf("over 5 MB: %d, want 413", status)
	}
	if _, total, err := e.store.Cases(context.Background(), "", 1); err != nil || total != 4 {
		t.Fatalf("after the refused imports: %d cases, %v", total, err)
	}
}

// Lessons: add (a near-duplicate raises the count), edit, turn off,
// promote into the persona (a new version, the lesson off), delete; a
// text that is no lesson is a 400 naming text.
func TestLessonsRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, body := range []string{`{}`, `{"text":""}`, `{"text":"` + strings.Repeat("x", 201) + `"}`,
		`{"text":"see https://example.com"}`, `{"text":"ask @someone"}`, `{"text":"two\nlines"}`, `{"text":3}`} {
		status, out := e.do("POST", "/api/lessons", e.token, body)
		if f := learnFieldOf(t, status, out); f != "text" {
			t.Fatalf("%s: field %q, want text", body, f)
		}
	}
	status, body := e.do("POST", "/api/lessons", e.token, `{"text":"No emoji"}`)
	var l struct {
		ID      int64
		Count   int
		Kind    string
		Enabled bool
	}
	if err := json.Unmarshal([]byte(body), &l); status != 201 || err != nil || l.Kind != "manual" || !l.Enabled {
		t.Fatalf("add: %d %s", status, body)
	}
	if status, body := e.do("POST", "/api/lessons", e.token, `{"text":"no emoji!"}`); status != 200 || !strings.Contains(body, `"count":2`) {
		t.Fatalf("near-duplicate: %d %s", status, body)
	}
	path := fmt.Sprintf("/api/lessons/%d", l.ID)
	if status, body := e.do("PATCH", path, e.token, `{}`); status != 400 {
		t.Fatalf("empty patch: %d %s", status, body)
	}
	if status, out := e.do("PATCH", path, e.token, `{"text":"@you"}`); learnFieldOf(t, status, out) != "text" {
		t.Fatalf("bad patch: %d %s", status, out)
	}
	if status, body := e.do("PATCH", path, e.token, `{"text":"No emoji, ever","enabled":false}`); status != 200 || !strings.Contains(body, `"enabled":false`) {
		t.Fatalf("patch: %d %s", status, body)
	}
	if status, _ := e.do("PATCH", "/api/lessons/999999", e.token, `{"enabled":true}`); status != 404 {
		t.Fatalf("patch unknown: %d", status)
	}
	status, body = e.do("POST", path+"/promote", e.token, "")
	var promoted struct {
		Persona struct {
			Version int
			Voice   string
		}
		Lesson struct{ Enabled bool }
	}
	if err := json.Unmarshal([]byte(body), &promoted); status != 200 || err != nil || !strings.HasSuffix(promoted.Persona.Voice, "- No emoji, ever") || promoted.Lesson.Enabled {
		t.Fatalf("promote: %d %s", status, body)
	}
	if status, body := e.do("GET", "/api/lessons", e.token, ""); status != 200 || !strings.Contains(body, "No emoji, ever") {
		t.Fatalf("list: %d %s", status, body)
	}
	if status, _ := e.do("DELETE", path, e.token, ""); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _ := e.do("DELETE", path, e.token, ""); status != 404 {
		t.Fatalf("delete twice: %d", status)
	}
	if _, err := learning.CheckLesson("fine"); err != nil {
		t.Fatal(err)
	}
}

// settings.learning round-trips; an absent one keeps the stored; a bad
// value is a 400 naming learning.<field>.
func TestLearningSettings(t *testing.T) {
	t.Parallel()
	e := setup(t)
	base := `"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}`
	for _, tt := range []struct{ learning, field string }{
		{`{"enabled":true,"examples":9,"lessons":5}`, "learning.examples"},
		{`{"enabled":true,"examples":3,"lessons":11}`, "learning.lessons"},
		{`{"enabled":true,"examples":-1,"lessons":5}`, "learning.examples"},
		{`{"examples":3,"lessons":5}`, "learning.enabled"},
		{`{"enabled":true,"lessons":5}`, "learning.examples"},
		{`{"enabled":"yes","examples":3,"lessons":5}`, "learning.enabled"},
	} {
		status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"learning":`+tt.learning+`}`)
		if f := learnFieldOf(t, status, body); f != tt.field {
			t.Fatalf("%s: field %q, want %q", tt.learning, f, tt.field)
		}
	}
	if status, body := e.do("GET", "/api/settings", e.token, ""); status != 200 || !strings.Contains(body, `"learning":{"enabled":true,"examples":3,"lessons":5}`) {
		t.Fatalf("default: %d %s", status, body)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"learning":{"enabled":false,"examples":0,"lessons":2}}`); status != 200 ||
		!strings.Contains(body, `"learning":{"enabled":false,"examples":0,"lessons":2}`) {
		t.Fatalf("put: %d %s", status, body)
	}
	status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`}`)
	if status != 200 || !strings.Contains(body, `"learning":{"enabled":false,"examples":0,"lessons":2}`) {
		t.Fatalf("absent keeps: %d %s", status, body)
	}
	// What a GET returns, a PUT accepts.
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"targets_not_found", "blocked_author_ids", "target_ids"} {
		delete(got, k)
	}
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, string(again)); status != 200 {
		t.Fatalf("round trip: %d %s", status, body)
	}
}

// Insights' weekly learning series counts the week's first drafts,
// approvals as written, edits (with their mean edit distance) and
// rejections.
func TestInsightsLearningWeekly(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a := e.pending("w1", post.SourceMention, 0, "first draft stays")
	b := e.pending("w2", post.SourceMention, 0, "abcdef")
	c := e.pending("w3", post.SourceMention, 0, "rejected draft")
	e.pending("w4", post.SourceMention, 0, "waits")
	for _, call := range []struct{ path, body string }{
		{fmt.Sprintf("/api/posts/%d/approve", a), `{}`},
		{fmt.Sprintf("/api/posts/%d/approve", b), `{"response":"abc"}`},
		{fmt.Sprintf("/api/posts/%d/reject", c), `{"reason":"Off-topic"}`},
	} {
		if status, body := e.do("POST", call.path, e.token, call.body); status != 200 {
			t.Fatalf("%s: %d %s", call.path, status, body)
		}
	}
	e.clock.Add(time.Minute)
	status, body := e.do("GET", "/api/insights?days=7", e.token, "")
	var out struct {
		Learning struct {
			Weekly []struct {
				Week             string
				DraftsN          int      `json:"drafts"`
				ApprovedN        int      `json:"approved_unedited"`
				EditedN          int      `json:"edited"`
				RejectedN        int      `json:"rejected"`
				MeanEditDistance *float64 `json:"mean_edit_distance"`
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || len(out.Learning.Weekly) < 2 {
		t.Fatalf("insights: %d %s (%v)", status, body, err)
	}
	w := out.Learning.Weekly[len(out.Learning.Weekly)-1]
	if w.DraftsN != 4 || w.ApprovedN != 1 || w.EditedN != 1 || w.RejectedN != 1 || w.MeanEditDistance == nil || *w.MeanEditDistance != 3 {
		t.Fatalf("this week = %+v (mean %v)", w, w.MeanEditDistance)
	}
	if _, err := e.store.Post(ctx, a); err != nil {
		t.Fatal(err)
	}
}
