package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/persona"
	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// personaBody is a persona as the API answers it.
type personaBody struct {
	Version     int       `json:"version"`
	Name        string    `json:"name"`
	Bio         string    `json:"bio"`
	Voice       string    `json:"voice"`
	Examples    []string  `json:"examples"`
	AvoidTopics []string  `json:"avoid_topics"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func (e *env) persona() personaBody {
	e.t.Helper()
	status, body := e.do("GET", "/api/persona", e.token, "")
	if status != 200 {
		e.t.Fatalf("GET /api/persona: %d %s", status, body)
	}
	var p personaBody
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) personaVersions() []int {
	e.t.Helper()
	status, body := e.do("GET", "/api/persona/versions", e.token, "")
	if status != 200 {
		e.t.Fatalf("GET /api/persona/versions: %d %s", status, body)
	}
	var out struct{ Versions []personaBody }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		e.t.Fatal(err)
	}
	var vs []int
	for _, v := range out.Versions {
		vs = append(vs, v.Version)
	}
	return vs
}

// GET answers the seeded persona; a PUT stores a new version and answers
// it; versions accumulate, newest first; every bad body is a 400 naming
// its field and stores nothing.
func TestPersonaAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if _, err := e.store.SeedPersona(context.Background(), persona.Default()); err != nil {
		t.Fatal(err)
	}
	if p := e.persona(); p.Version != 1 || p.Voice != persona.Default().Voice || p.Examples == nil || p.AvoidTopics == nil || p.UpdatedAt.IsZero() {
		t.Fatalf("seeded persona %+v", p)
	}
	status, body := e.do("PUT", "/api/persona", e.token,
		`{"name":" Imp ","bio":"A small demon.","voice":"Squeaky menace.","examples":["Boo, mortal.",""],"avoid_topics":["elections"]}`)
	if status != 200 {
		t.Fatalf("PUT /api/persona: %d %s", status, body)
	}
	var put personaBody
	if err := json.Unmarshal([]byte(body), &put); err != nil || put.Version != 2 || put.Name != "Imp" || !slices.Equal(put.Examples, []string{"Boo, mortal."}) {
		t.Fatalf("PUT answered %s (%v)", body, err)
	}
	if p := e.persona(); p.Version != 2 || p.Voice != "Squeaky menace." || !slices.Equal(p.AvoidTopics, []string{"elections"}) {
		t.Errorf("after the PUT: %+v", p)
	}

	valid := map[string]any{"name": "Imp", "bio": "", "voice": "v", "examples": []string{}, "avoid_topics": []string{}}
	with := func(field string, value any) string {
		m := map[string]any{}
		for k, v := range valid {
			m[k] = v
		}
		if value == nil {
			delete(m, field)
		} else {
			m[field] = value
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	tests := []struct {
		name      string
		body      string
		wantField string
	}{
		{name: "not JSON", body: `voice: yes`, wantField: ""},
		{name: "an array", body: `["voice"]`, wantField: ""},
		{name: "trailing data", body: with("voice", "v") + `{}`, wantField: ""},
		{name: "unknown field", body: with("tone", "dark"), wantField: "tone"},
		{name: "a null field", body: with("bio", nil), wantField: "bio"},
		{name: "a right-to-left override", body: with("voice", "dry\u202eyrd"), wantField: "voice"},
		{name: "voice missing", body: with("voice", nil), wantField: "voice"},
		{name: "examples missing", body: with("examples", nil), wantField: "examples"},
		{name: "empty voice", body: with("voice", "   "), wantField: "voice"},
		{name: "voice over 4000 characters", body: with("voice", strings.Repeat("é", 4001)), wantField: "voice"},
		{name: "voice of the wrong type", body: with("voice", 42), wantField: "voice"},
		{name: "more than 20 examples", body: with("examples", slices.Repeat([]string{"boo"}, 21)), wantField: "examples"},
		{name: "an example over 280 weighted characters", body: with("examples", []string{"ok", strings.Repeat("🔥", 141)}), wantField: "examples[1]"},
		{name: "an example of the wrong type", body: with("examples", []any{"ok", 3}), wantField: "examples[1]"},
		{name: "a name on two lines", body: with("name", "Imp\nthe second"), wantField: "name"},
		{name: "a control character", body: with("bio", "a\u0007b"), wantField: "bio"},
		{name: "a topic too long", body: with("avoid_topics", []string{strings.Repeat("x", 101)}), wantField: "avoid_topics[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("PUT", "/api/persona", e.token, tt.body)
			var out map[string]any
			if err := json.Unmarshal([]byte(body), &out); err != nil || status != 400 {
				t.Fatalf("got %d %s, want 400", status, body)
			}
			if field, ok := out["field"].(string); !ok || field != tt.wantField || out["error"] == "" {
				t.Errorf("got %s, want a 400 naming field %q", body, tt.wantField)
			}
		})
	}
	if got := e.personaVersions(); !slices.Equal(got, []int{2, 1}) {
		t.Errorf("versions %v after refused PUTs, want [2 1]", got)
	}
	if status, _ := e.do("PUT", "/api/persona", "", with("voice", "v")); status != 401 {
		t.Errorf("PUT without a session: %d, want 401", status)
	}
}

// The Post JSON names the draft's persona version and carries its review,
// null for a draft never judged.
func TestPostNamesPersonaAndReview(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if _, err := e.store.SeedPersona(ctx, persona.Default()); err != nil {
		t.Fatal(err)
	}
	old := e.pending("1", post.SourceMention, 0, "An old draft.")
	judged, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "2",
		ConversationID: "c2", OriginalPostText: "coffee", AuthorUsername: "m2", CreatedAt: e.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, judged, store.Draft{Response: "Hell brews it.", Category: "gluttony", PersonaVersion: 1,
		Review: &post.Review{Score: 4, Reason: "In character.", By: "offline"}}); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/posts/mentions", e.token, "")
	if status != 200 {
		t.Fatalf("list: %d %s", status, body)
	}
	var out struct {
		Posts []map[string]json.RawMessage `json:"posts"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range out.Posts {
		got[string(p["id"])] = string(p["persona_version"]) + " " + string(p["review"])
	}
	want := map[string]string{
		id(old):    "null null",
		id(judged): `1 {"score":4,"reason":"In character.","by":"offline"}`,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("post %s: persona_version and review %s, want %s", k, got[k], v)
		}
	}
}

// startPreviewWorker runs the worker's preview stage, with the offline
// writer, on e's queue until the test ends.
func startPreviewWorker(t *testing.T, e *env) {
	t.Helper()
	d := &pipeline.Drafter{Store: e.store, Writer: offline.New("devil"), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: e.redisURL,
		Register: func(mux *asynq.ServeMux) { mux.HandleFunc(tasks.TypePreviewPersona, d.Preview) },
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}

// A preview goes through the queue to a worker and back with a draft,
// with the stored persona or a given unsaved one, and makes no post; bad
// bodies are 400s naming their field; without a worker it is a 503.
func TestPersonaPreview(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if _, err := e.store.SeedPersona(context.Background(), persona.Default()); err != nil {
		t.Fatal(err)
	}
	serveWaiting(t, e, 15*time.Second)
	startPreviewWorker(t, e)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantField  string
	}{
		{name: "stored persona", body: `{"post_text":"Third coffee and it's not even 10am"}`, wantStatus: 200},
		{name: "unsaved persona", body: `{"post_text":"Monday again","persona":{"name":"Imp","bio":"","voice":"Squeaky.","examples":[],"avoid_topics":[]}}`, wantStatus: 200},
		{name: "empty post text", body: `{"post_text":"  "}`, wantStatus: 400, wantField: "post_text"},
		{name: "no post text", body: `{}`, wantStatus: 400, wantField: "post_text"},
		{name: "bad unsaved persona", body: `{"post_text":"x","persona":{"name":"Imp","bio":"","voice":"","examples":[],"avoid_topics":[]}}`, wantStatus: 400, wantField: "persona.voice"},
		{name: "unknown field", body: `{"post_text":"x","save":true}`, wantStatus: 400, wantField: "save"},
		{name: "not JSON", body: `post_text=x`, wantStatus: 400, wantField: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", "/api/persona/preview", e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			var out map[string]any
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatal(err)
			}
			if status == 200 {
				if r, _ := out["response"].(string); r == "" || out["category"] == "" || len(out) != 2 {
					t.Errorf("preview answered %s", body)
				}
				return
			}
			if field, ok := out["field"].(string); !ok || field != tt.wantField {
				t.Errorf("got %s, want field %q", body, tt.wantField)
			}
		})
	}
	for _, status := range post.Statuses {
		ids, err := e.store.IDsInStatus(context.Background(), status, time.Now().Add(time.Hour), 10)
		if err != nil || len(ids) != 0 {
			t.Errorf("previews made %s posts: %v %v", status, ids, err)
		}
	}
}

// Without a worker answering in time, a preview is a 503 and its task is
// dropped, so that no model is paid for an answer nobody reads.
func TestPersonaPreviewWithoutWorker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if _, err := e.store.SeedPersona(context.Background(), persona.Default()); err != nil {
		t.Fatal(err)
	}
	serveWaiting(t, e, 200*time.Millisecond)
	status, body := e.do("POST", "/api/persona/preview", e.token, `{"post_text":"anyone there?"}`)
	if status != 503 || !strings.Contains(errorOf(t, body), "no worker") {
		t.Fatalf("got %d %s, want 503", status, body)
	}
	pending, err := e.queue.Inspector().ListPendingTasks(tasks.QueueHigh)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 {
		t.Errorf("%d preview tasks left waiting, want none", len(pending))
	}
}
