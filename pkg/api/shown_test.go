package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
)

// staleBody is the 409 answer to a decision on a draft version that is no
// longer the post's.
type staleBody struct {
	Error        string `json:"error"`
	DraftVersion int    `json:"draft_version"`
}

// redraft gives pending post pid a new writer draft, as a regenerate does,
// and returns its new draft version.
func (e *env) redraft(pid int64, text string) int {
	e.t.Helper()
	p, err := e.store.SaveRegenerated(context.Background(), pid, store.Draft{Response: text, Category: "wrath"}, "", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.DraftVersion
}

func (e *env) draftVersion(pid int64) int {
	e.t.Helper()
	p, err := e.store.Post(context.Background(), pid)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.DraftVersion
}

// A decision names the draft version it was made on: one made on a text
// that has since changed is a 409 naming the current version, and changes
// nothing; {} still decides on the current draft.
func TestDecisionsOnTheVersionShown(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.pending("1", post.SourceMention, 0, "first words")
	if v := e.draftVersion(a); v != 1 {
		t.Fatalf("a first draft is version %d, want 1", v)
	}
	if v := e.redraft(a, "second words"); v != 2 {
		t.Fatalf("a regenerated draft is version %d, want 2", v)
	}
	b := e.pending("2", post.SourceMention, 0, "to reject")
	c := e.pending("3", post.SourceMention, 0, "edit me")

	tests := []struct {
		name        string
		path        string
		body        string
		wantStatus  int
		wantError   string
		wantVersion int
		check       func(t *testing.T)
	}{
		{name: "approve the old text", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":1}`, wantStatus: 409,
			wantError: "the draft changed since it was shown", wantVersion: 2,
			check: func(t *testing.T) { wantStatus(t, e, a, post.StatusPending) }},
		{name: "approve an edit of the old text", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":1,"response":"mine"}`, wantStatus: 409,
			wantError: "the draft changed since it was shown", wantVersion: 2,
			check: func(t *testing.T) { wantResponse(t, e, a, "second words") }},
		{name: "version zero", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":0}`, wantStatus: 400, wantError: "draft_version"},
		{name: "version negative", path: "/api/posts/" + id(a) + "/reject", body: `{"draft_version":-3}`, wantStatus: 400, wantError: "draft_version"},
		{name: "version a string", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":"2"}`, wantStatus: 400},
		{name: "version a fraction", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":1.5}`, wantStatus: 400},
		{name: "reject the old text", path: "/api/posts/" + id(a) + "/reject", body: `{"draft_version":1}`, wantStatus: 409,
			wantError: "the draft changed since it was shown", wantVersion: 2,
			check: func(t *testing.T) { wantStatus(t, e, a, post.StatusPending) }},
		{name: "approve the text shown", path: "/api/posts/" + id(a) + "/approve", body: `{"draft_version":2}`, wantStatus: 200,
			check: func(t *testing.T) { wantResponse(t, e, a, "second words"); wantStatus(t, e, a, post.StatusApproved) }},
		{name: "reject the text shown", path: "/api/posts/" + id(b) + "/reject", body: `{"draft_version":1}`, wantStatus: 200,
			check: func(t *testing.T) { wantStatus(t, e, b, post.StatusRejected) }},
		{name: "edit without approving", path: "/api/posts/" + id(c) + "/edit", body: `{"response":"edited words","draft_version":1}`, wantStatus: 200,
			check: func(t *testing.T) {
				wantStatus(t, e, c, post.StatusPending)
				wantResponse(t, e, c, "edited words")
				if v := e.draftVersion(c); v != 2 {
					t.Errorf("a saved edit is version %d, want 2", v)
				}
			}},
		{name: "edit on a stale version", path: "/api/posts/" + id(c) + "/edit", body: `{"response":"other","draft_version":1}`, wantStatus: 409,
			wantError: "the draft changed since it was shown", wantVersion: 2,
			check: func(t *testing.T) { wantResponse(t, e, c, "edited words") }},
		{name: "edit too long", path: "/api/posts/" + id(c) + "/edit", body: `{"response":"` + strings.Repeat("x", 281) + `"}`, wantStatus: 422, wantError: "281 characters",
			check: func(t *testing.T) { wantResponse(t, e, c, "edited words") }},
		{name: "edit without a response", path: "/api/posts/" + id(c) + "/edit", body: `{"draft_version":2}`, wantStatus: 400, wantError: "response is required"},
		{name: "edit an empty body", path: "/api/posts/" + id(c) + "/edit", body: ``, wantStatus: 400},
		{name: "edit NUL", path: "/api/posts/" + id(c) + "/edit", body: `{"response":"a\u0000b"}`, wantStatus: 400, wantError: "U+0000"},
		{name: "edit unknown", path: "/api/posts/999999/edit", body: `{"response":"x"}`, wantStatus: 404},
		{name: "approve after the edit, on the old version", path: "/api/posts/" + id(c) + "/approve", body: `{"draft_version":1}`, wantStatus: 409, wantVersion: 2},
		{name: "approve the edit", path: "/api/posts/" + id(c) + "/approve", body: `{"draft_version":2}`, wantStatus: 200,
			check: func(t *testing.T) { wantResponse(t, e, c, "edited words") }},
		{name: "edit an approved post", path: "/api/posts/" + id(c) + "/edit", body: `{"response":"late"}`, wantStatus: 409, wantError: "not pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", tt.path, e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantError != "" {
				if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
					t.Errorf("error %q, want it to contain %q", msg, tt.wantError)
				}
			}
			if tt.wantVersion != 0 {
				var sb staleBody
				if err := json.Unmarshal([]byte(body), &sb); err != nil || sb.DraftVersion != tt.wantVersion {
					t.Errorf("stale body %s: draft_version %d, want %d (%v)", body, sb.DraftVersion, tt.wantVersion, err)
				}
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
}

// Bulk takes items with the version shown: a stale item is a 409 among the
// results, naming the current version, and the others go through.
func TestBulkItemsOnTheVersionShown(t *testing.T) {
	t.Parallel()
	e := setup(t)
	fresh := e.pending("1", post.SourceMention, 0, "fresh")
	stale := e.pending("2", post.SourceMention, 0, "old")
	e.redraft(stale, "new")
	plain := e.pending("3", post.SourceMention, 0, "plain")

	body := `{"action":"approve","items":[{"id":` + id(fresh) + `,"draft_version":1},{"id":` + id(stale) + `,"draft_version":1},{"id":` + id(plain) + `}]}`
	status, out := e.do("POST", "/api/posts/bulk", e.token, body)
	if status != 200 {
		t.Fatalf("bulk: %d %s", status, out)
	}
	var res struct {
		Results []struct {
			ID           int64   `json:"id"`
			OK           bool    `json:"ok"`
			Status       int     `json:"status"`
			Error        *string `json:"error"`
			DraftVersion *int    `json:"draft_version"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 3 {
		t.Fatalf("results %s", out)
	}
	if r := res.Results[0]; !r.OK || r.Status != 200 || r.ID != fresh {
		t.Errorf("fresh item: %+v", r)
	}
	if r := res.Results[1]; r.OK || r.Status != 409 || r.Error == nil || *r.Error != "the draft changed since it was shown" || r.DraftVersion == nil || *r.DraftVersion != 2 {
		t.Errorf("stale item: %+v", r)
	}
	if r := res.Results[2]; !r.OK || r.Status != 200 {
		t.Errorf("item without a version: %+v", r)
	}
	wantStatus(t, e, fresh, post.StatusApproved)
	wantStatus(t, e, stale, post.StatusPending)
	wantStatus(t, e, plain, post.StatusApproved)

	// Every decision is in the history with its channel.
	h := e.decisions(fresh)
	if len(h) != 1 || h[0].Action != "approve" || h[0].By != "bulk" || h[0].DraftVersion != 1 {
		t.Errorf("decisions of the bulk-approved post: %+v", h)
	}

	bad := []struct{ name, body, want string }{
		{"ids and items", `{"action":"approve","ids":[1],"items":[{"id":1}]}`, "not both"},
		{"no items", `{"action":"approve","items":[]}`, "items must hold"},
		{"item id zero", `{"action":"approve","items":[{"id":0}]}`, "items[0].id"},
		{"item version zero", `{"action":"reject","items":[{"id":1,"draft_version":0}]}`, "items[0].draft_version"},
		{"repeated item", `{"action":"reject","items":[{"id":1},{"id":1}]}`, "items[1] repeats"},
		{"unknown item field", `{"action":"reject","items":[{"id":1,"v":2}]}`, "unknown field"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", "/api/posts/bulk", e.token, tt.body)
			if status != 400 || !strings.Contains(errorOf(t, body), tt.want) {
				t.Errorf("got %d %s, want 400 naming %q", status, body, tt.want)
			}
		})
	}
}

type decisionBody struct {
	Action       string `json:"action"`
	By           string `json:"by"`
	DraftVersion int    `json:"draft_version"`
}

func (e *env) decisions(pid int64) []decisionBody {
	e.t.Helper()
	status, body := e.do("GET", "/api/posts/"+id(pid)+"/history", e.token, "")
	if status != 200 {
		e.t.Fatalf("history: %d %s", status, body)
	}
	var h struct {
		Decisions []decisionBody `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		e.t.Fatal(err)
	}
	return h.Decisions
}

// The web's decisions are in the history as by web, in order.
func TestHistoryNamesTheChannel(t *testing.T) {
	t.Parallel()
	e := setup(t)
	pid := e.pending("1", post.SourceMention, 0, "words")
	if status, body := e.do("POST", "/api/posts/"+id(pid)+"/edit", e.token, `{"response":"better words"}`); status != 200 {
		t.Fatalf("edit: %d %s", status, body)
	}
	if status, body := e.do("POST", "/api/posts/"+id(pid)+"/reject", e.token, `{"draft_version":2}`); status != 200 {
		t.Fatalf("reject: %d %s", status, body)
	}
	got := e.decisions(pid)
	want := []decisionBody{{"edit", "web", 1}, {"reject", "web", 2}}
	if len(got) != len(want) {
		t.Fatalf("decisions %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("decision %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The settings show the Telegram link as the worker keeps it.
func TestTelegramLink(t *testing.T) {
	t.Parallel()
	e := setup(t)
	status, body := e.do("GET", "/api/telegram", e.token, "")
	if status != 200 || !strings.Contains(body, `"linked":false`) {
		t.Fatalf("before any worker ran it: %d %s", status, body)
	}
	if status, _ := e.do("GET", "/api/telegram", "", ""); status != 401 {
		t.Errorf("without a token: %d, want 401", status)
	}
	ctx := context.Background()
	if _, err := e.store.StartTelegram(ctx, "infernal_review_bot", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetTelegramError(ctx, "updates not read: telegram: getUpdates: 502 Bad Gateway"); err != nil {
		t.Fatal(err)
	}
	status, body = e.do("GET", "/api/telegram", e.token, "")
	var v struct {
		Linked    bool    `json:"linked"`
		Bot       string  `json:"bot"`
		LastError string  `json:"last_error"`
		ErrorAt   *string `json:"last_error_at"`
	}
	if err := json.Unmarshal([]byte(body), &v); status != 200 || err != nil || !v.Linked || v.Bot != "infernal_review_bot" || !strings.Contains(v.LastError, "502") || v.ErrorAt == nil {
		t.Errorf("linked: %d %s", status, body)
	}
}
