package api_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

// roundTrip is a GET -> PUT pair of the API: what the GET answers, the PUT
// takes back unchanged.
type roundTrip struct {
	path string
	// seed, when set, is PUT first, so that every field holds something.
	seed string
	// serverOwned are the members the server sets on every PUT, left out
	// of the comparison (a persona's version and when it was stored).
	serverOwned []string
	// change is one field changed, as a client edits one input.
	change func(body map[string]any)
	// changed checks the answer to the changed PUT.
	changed func(t *testing.T, body map[string]any)
}

// roundTrips are every GET -> PUT pair the API serves (the autopilot lives
// inside the settings).
var roundTrips = []roundTrip{
	{
		path: "/api/settings",
		seed: `{"target_usernames":["alice","did:plc:abc123"],"search_topics":["brimstone"],"blocked_authors":["@bob","12345"],
			"blocked_phrases":["spoiler"],"caps":{"sends_per_day":40},
			"autopilot":{"enabled":true,"min_review_score":4,"authors":["alice"],"any_author":false,"categories":["wrath"],"max_per_hour":3,"grace_seconds":60},
			"platforms":{"mastodon":{"reply_to_direct":true}}}`,
		change: func(b map[string]any) { b["search_topics"] = []any{"brimstone", "hellfire"} },
		changed: func(t *testing.T, b map[string]any) {
			if !reflect.DeepEqual(b["search_topics"], []any{"brimstone", "hellfire"}) {
				t.Errorf("search_topics after the change: %v", b["search_topics"])
			}
		},
	},
	{
		// A platform's own options, and accounts of every platform's syntax.
		path: "/api/settings",
		seed: `{"target_usernames":["alice","@Carol@Mastodon.Example","did:plc:abc123"],"search_topics":[],
			"blocked_authors":["dave@social.example","12345"],"blocked_phrases":[],"caps":{},"platforms":{"mastodon":{"reply_to_direct":false}}}`,
		change: func(b map[string]any) {
			b["platforms"] = map[string]any{"mastodon": map[string]any{"reply_to_direct": true}}
		},
		changed: func(t *testing.T, b map[string]any) {
			if !reflect.DeepEqual(b["platforms"], map[string]any{"mastodon": map[string]any{"reply_to_direct": true}}) {
				t.Errorf("platforms after the change: %v", b["platforms"])
			}
			if !reflect.DeepEqual(b["target_usernames"], []any{"alice", "carol@mastodon.example", "did:plc:abc123"}) {
				t.Errorf("target_usernames: %v", b["target_usernames"])
			}
		},
	},
	{
		path:        "/api/persona",
		seed:        `{"name":"Imp","bio":"A small devil.","voice":"Short and dry.","examples":["Burn."],"avoid_topics":["politics"]}`,
		serverOwned: []string{"version", "updated_at"},
		change:      func(b map[string]any) { b["bio"] = "A smaller devil." },
		changed: func(t *testing.T, b map[string]any) {
			if b["bio"] != "A smaller devil." {
				t.Errorf("bio after the change: %v", b["bio"])
			}
		},
	},
}

// Every GET -> PUT pair round-trips: the GET's answer, PUT back unchanged,
// is taken (answer-only fields included) and changes nothing a later GET
// shows; PUT back with one field changed, it changes that field alone.
func TestGetPutRoundTrips(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, rt := range roundTrips {
		t.Run(rt.path, func(t *testing.T) {
			if status, body := e.do("PUT", rt.path, e.token, rt.seed); status != 200 {
				t.Fatalf("seed: %d %s", status, body)
			}
			before := e.getObject(t, rt.path)
			raw, err := json.Marshal(before)
			if err != nil {
				t.Fatal(err)
			}
			if status, body := e.do("PUT", rt.path, e.token, string(raw)); status != 200 {
				t.Fatalf("PUT of the GET's answer: %d %s", status, body)
			}
			after := e.getObject(t, rt.path)
			if !reflect.DeepEqual(without(before, rt.serverOwned), without(after, rt.serverOwned)) {
				t.Fatalf("the round trip changed the answer:\nbefore %v\nafter  %v", before, after)
			}

			rt.change(after)
			raw, err = json.Marshal(after)
			if err != nil {
				t.Fatal(err)
			}
			if status, body := e.do("PUT", rt.path, e.token, string(raw)); status != 200 {
				t.Fatalf("PUT with one field changed: %d %s", status, body)
			}
			changed := e.getObject(t, rt.path)
			rt.changed(t, changed)
			rt.change(before)
			if !reflect.DeepEqual(without(before, rt.serverOwned), without(changed, rt.serverOwned)) {
				t.Fatalf("one field changed, others moved too:\nwant %v\ngot  %v", before, changed)
			}
		})
	}
}

// The answer-only fields are taken whatever they hold, and ignored; any
// other unknown field, or a null, is still a 400 naming it.
func TestPutIgnoresAnswerOnlyFields(t *testing.T) {
	t.Parallel()
	e := setup(t)
	settings := func(extra string) string {
		return `{"target_usernames":["alice"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}` + extra + `}`
	}
	persona := func(extra string) string {
		return `{"name":"Imp","bio":"","voice":"Dry.","examples":[],"avoid_topics":[]` + extra + `}`
	}
	tests := []struct {
		name, path, body string
		wantStatus       int
		wantField        string
	}{
		{name: "settings, answer-only fields as answered", path: "/api/settings", wantStatus: 200,
			body: settings(`,"targets_not_found":["ghost"],"target_ids":[{"entry":"alice","handle":"alice","id":null}],"blocked_author_ids":[]`)},
		{name: "settings, answer-only fields of another shape", path: "/api/settings", wantStatus: 200,
			body: settings(`,"targets_not_found":42,"target_ids":"x","blocked_author_ids":{"a":[null]}`)},
		{name: "settings, answer-only fields null", path: "/api/settings", wantStatus: 200,
			body: settings(`,"targets_not_found":null,"target_ids":null,"blocked_author_ids":null`)},
		{name: "settings, answer-only field repeated", path: "/api/settings", wantStatus: 400, wantField: "target_ids",
			body: settings(`,"target_ids":[],"target_ids":[]`)},
		{name: "settings, unknown field", path: "/api/settings", wantStatus: 400, wantField: "targets_found",
			body: settings(`,"targets_found":[]`)},
		{name: "settings, null autopilot", path: "/api/settings", wantStatus: 400, wantField: "autopilot",
			body: settings(`,"autopilot":null`)},
		{name: "persona, version and updated_at as answered", path: "/api/persona", wantStatus: 200,
			body: persona(`,"version":7,"updated_at":"2026-01-02T03:04:05Z"`)},
		{name: "persona, version and updated_at garbage", path: "/api/persona", wantStatus: 200,
			body: persona(`,"version":"seven","updated_at":[1]`)},
		{name: "persona, unknown field", path: "/api/persona", wantStatus: 400, wantField: "tone",
			body: persona(`,"tone":"dark"`)},
		{name: "persona, null field", path: "/api/persona", wantStatus: 400, wantField: "bio",
			body: `{"name":"Imp","bio":null,"voice":"Dry.","examples":[],"avoid_topics":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("PUT", tt.path, e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantField != "" {
				if f := fieldOf(t, body); f != tt.wantField {
					t.Fatalf("field %q, want %q (%s)", f, tt.wantField, body)
				}
				return
			}
			got := e.getObject(t, tt.path)
			if tt.path == "/api/settings" && !reflect.DeepEqual(got["targets_not_found"], []any{}) {
				t.Errorf("targets_not_found was set by the PUT: %v", got["targets_not_found"])
			}
			if tt.path == "/api/persona" && got["version"] == float64(7) {
				t.Errorf("the PUT set the version: %v", got["version"])
			}
		})
	}
}

// getObject GETs path and decodes its JSON object.
func (e *env) getObject(t *testing.T, path string) map[string]any {
	t.Helper()
	status, body := e.do("GET", path, e.token, "")
	if status != 200 {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return out
}

// without is body less the named members.
func without(body map[string]any, names []string) map[string]any {
	out := maps.Clone(body)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// fieldOf decodes the "field" of a 400's body, failing when it has none.
func fieldOf(t *testing.T, body string) string {
	t.Helper()
	var out struct {
		Field *string `json:"field"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.Field == nil {
		t.Fatalf("no field in %q (%v)", body, err)
	}
	return *out.Field
}
