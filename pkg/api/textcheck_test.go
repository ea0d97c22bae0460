package api_test

import (
	"strings"
	"testing"

	"infernal/pkg/post"
)

// Every text the administrator writes is refused, with a 400 naming its
// field, when it holds a control character or a bidirectional override;
// a null draft_version and a repeated member are refused like any other
// malformed value; the post is left as it was.
func TestAdministratorTextAndBodyChecks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := e.pending("1", post.SourceMention, 0, "first words")
	manual := e.manualPending("2", "by hand")
	if status, body := e.do("POST", "/api/posts/"+id(manual)+"/approve", e.token, `{}`); status != 200 {
		t.Fatalf("approve the hand-posted one: %d %s", status, body)
	}
	persona := func(field, value string) string {
		f := map[string]string{"name": `"Imp"`, "bio": `""`, "voice": `"Dry."`, "examples": `[]`, "avoid_topics": `[]`}
		f[field] = value
		return `{"name":` + f["name"] + `,"bio":` + f["bio"] + `,"voice":` + f["voice"] + `,"examples":` + f["examples"] + `,"avoid_topics":` + f["avoid_topics"] + `}`
	}
	settings := func(field, value string) string {
		f := map[string]string{"target_usernames": `[]`, "search_topics": `[]`, "blocked_authors": `[]`, "blocked_phrases": `[]`}
		f[field] = value
		return `{"target_usernames":` + f["target_usernames"] + `,"search_topics":` + f["search_topics"] + `,"blocked_authors":` +
			f["blocked_authors"] + `,"blocked_phrases":` + f["blocked_phrases"] + `,"caps":{}}`
	}
	posts := "/api/posts/" + id(p)
	tests := []struct {
		name, method, path, body string
		wantField, wantError     string
	}{
		{name: "edit, BEL", path: posts + "/edit", body: `{"response":"ding\u0007"}`, wantField: "response", wantError: "U+0007"},
		{name: "edit, ANSI escape", path: posts + "/edit", body: `{"response":"\u001b[31mred"}`, wantField: "response", wantError: "U+001B"},
		{name: "edit, NUL", path: posts + "/edit", body: `{"response":"a\u0000b"}`, wantField: "response", wantError: "U+0000"},
		{name: "edit, right-to-left override", path: posts + "/edit", body: `{"response":"evil\u202egnp.exe"}`, wantField: "response", wantError: "U+202E"},
		{name: "edit, first strong isolate", path: posts + "/edit", body: `{"response":"a\u2068b"}`, wantField: "response", wantError: "U+2068"},
		{name: "edit, C1 control", path: posts + "/edit", body: `{"response":"a\u009bb"}`, wantField: "response", wantError: "U+009B"},
		{name: "approve, response with ESC", path: posts + "/approve", body: `{"response":"\u001b]0;title\u0007"}`, wantField: "response", wantError: "U+001B"},
		{name: "approve, response with LRE", path: posts + "/approve", body: `{"response":"\u202aa"}`, wantField: "response", wantError: "U+202A"},
		{name: "regenerate, instruction with PDI", path: posts + "/regenerate", body: `{"instruction":"darker\u2069"}`, wantField: "instruction"},
		{name: "give up, reason with BEL", path: "/api/posts/" + id(manual) + "/give-up", body: `{"reason":"no\u0007"}`, wantField: "reason", wantError: "U+0007"},
		{name: "give up, reason with RLO", path: "/api/posts/" + id(manual) + "/give-up", body: `{"reason":"\u202eno"}`, wantField: "reason", wantError: "U+202E"},
		{name: "persona, voice with ESC", method: "PUT", path: "/api/persona", body: persona("voice", `"Dry.\u001b[2J"`), wantField: "voice", wantError: "U+001B"},
		{name: "persona, bio with RLO", method: "PUT", path: "/api/persona", body: persona("bio", `"a\u202eb"`), wantField: "bio", wantError: "U+202E"},
		{name: "persona, example with LRI", method: "PUT", path: "/api/persona", body: persona("examples", `["Burn.","a\u2066b"]`), wantField: "examples[1]", wantError: "U+2066"},
		{name: "persona, avoided topic with BEL", method: "PUT", path: "/api/persona", body: persona("avoid_topics", `["x\u0007"]`), wantField: "avoid_topics[0]", wantError: "U+0007"},
		{name: "persona, bio with a lone CR", method: "PUT", path: "/api/persona", body: persona("bio", `"over\rwrite"`), wantField: "bio", wantError: "U+000D"},
		{name: "preview, persona with RLO", path: "/api/persona/preview", body: `{"post_text":"hi","persona":` + persona("voice", `"\u202e"`) + `}`, wantField: "persona.voice", wantError: "U+202E"},
		{name: "settings, topic with RLO", method: "PUT", path: "/api/settings", body: settings("search_topics", `["a\u202eb"]`), wantField: "search_topics[0]", wantError: "U+202E"},
		{name: "settings, phrase with ESC", method: "PUT", path: "/api/settings", body: settings("blocked_phrases", `["\u001bx"]`), wantField: "blocked_phrases[0]", wantError: "U+001B"},
		{name: "settings, target with RLI", method: "PUT", path: "/api/settings", body: settings("target_usernames", `["alice\u2067"]`), wantField: "target_usernames[0]", wantError: "U+2067"},
		{name: "approve, null draft_version", path: posts + "/approve", body: `{"draft_version":null}`, wantField: "draft_version", wantError: "must not be null"},
		{name: "reject, null draft_version", path: posts + "/reject", body: `{"draft_version":null}`, wantField: "draft_version"},
		{name: "edit, null draft_version", path: posts + "/edit", body: `{"response":"x","draft_version":null}`, wantField: "draft_version"},
		{name: "regenerate, null draft_version", path: posts + "/regenerate", body: `{"draft_version":null}`, wantField: "draft_version"},
		{name: "bulk, null draft_version of an item", path: "/api/posts/bulk", body: `{"action":"reject","items":[{"id":` + id(p) + `,"draft_version":null}]}`, wantField: "items[0].draft_version"},
		{name: "approve, null response", path: posts + "/approve", body: `{"response":null}`, wantField: "response"},
		{name: "edit, repeated response", path: posts + "/edit", body: `{"response":"a","response":"b"}`, wantField: "response", wantError: "more than once"},
		{name: "approve, repeated draft_version", path: posts + "/approve", body: `{"draft_version":1,"draft_version":1}`, wantField: "draft_version", wantError: "more than once"},
		{name: "bulk, repeated member of an item", path: "/api/posts/bulk", body: `{"action":"reject","items":[{"id":` + id(p) + `,"id":` + id(p) + `}]}`, wantField: "items[0].id"},
		{name: "settings, repeated nested cap", method: "PUT", path: "/api/settings", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_day":3,"sends_per_day":900}}`, wantField: "caps.sends_per_day"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "POST"
			}
			status, body := e.do(method, tt.path, e.token, tt.body)
			if status != 400 {
				t.Fatalf("got %d %s, want 400", status, body)
			}
			if f := fieldOf(t, body); f != tt.wantField {
				t.Errorf("field %q, want %q (%s)", f, tt.wantField, body)
			}
			if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
				t.Errorf("error %q, want it to contain %q", msg, tt.wantError)
			}
		})
	}
	wantResponse(t, e, p, "first words")
	wantStatus(t, e, p, post.StatusPending)

	// Line breaks and tabs stay allowed.
	if status, body := e.do("POST", posts+"/edit", e.token, `{"response":"line one\nline two\tand a tab\r\nthree"}`); status != 200 {
		t.Fatalf("a text with line breaks: %d %s", status, body)
	}
}
