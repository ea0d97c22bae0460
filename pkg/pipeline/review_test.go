package pipeline_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"infernal/pkg/persona"
	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/openai"
)

// modelStandIn is a local server speaking the chat completions wire
// format: it answers a draft request with draft and a judge's (known by its
// system prompt) with judge, a status and a content; it keeps the system
// prompts it was sent.
type modelStandIn struct {
	mu      sync.Mutex
	systems []string
	judge   func() (int, string)
	// draft, when set, is the draft's content instead of a clean one.
	draft string
}

func (m *modelStandIn) serve(t *testing.T) *openai.Writer {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			t.Errorf("bad request: %v", err)
			return
		}
		m.mu.Lock()
		m.systems = append(m.systems, req.Messages[0].Content)
		judge, draft := m.judge, m.draft
		m.mu.Unlock()
		status, content := http.StatusOK, `{"response": "Hell runs on coffee too, mortal.", "category": "gluttony"}`
		if draft != "" {
			content = draft
		}
		if strings.HasPrefix(req.Messages[0].Content, "You review drafts") {
			status, content = judge()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, `{"error": {"message": "judge broke", "type": "server_error"}}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "c1", "object": "chat.completion", "model": "stand-in",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
		})
	}))
	t.Cleanup(srv.Close)
	w, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "stand-in"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (m *modelStandIn) setJudge(status int, content string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.judge = func() (int, string) { return status, content }
}

// Each draft is written in the stored persona and names its version; the
// judge's review is kept; a failing judge leaves the review null and the
// draft pending; below caps.min_review_score the draft is skipped with the
// reason, and once drafted anyway it is not skipped again.
func TestDraftsNamePersonaAndReview(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	model := &modelStandIn{}
	w := model.serve(t)
	d := &pipeline.Drafter{Store: e.store, Writer: w, Judge: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	if _, err := e.store.SeedPersona(ctx, persona.Default()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PutPersona(ctx, persona.Persona{Name: "Imp", Voice: "Squeaky little menace."}); err != nil {
		t.Fatal(err)
	}
	strict := settings.DefaultCaps()
	strict.SendsPer3Hours, strict.SendsPerDay, strict.MinReviewScore = 1000, 1000, 3

	tests := []struct {
		name       string
		judge      func()
		caps       settings.Caps
		wantStatus post.Status
		wantReview *post.Review
		wantReason string
	}{
		{name: "judged", judge: func() { model.setJudge(http.StatusOK, `{"score": 4, "reason": "In character."}`) },
			caps: strict, wantStatus: post.StatusPending, wantReview: &post.Review{Score: 4, Reason: "In character.", By: "stand-in"}},
		{name: "judge fails", judge: func() { model.setJudge(http.StatusInternalServerError, "") },
			caps: strict, wantStatus: post.StatusPending},
		{name: "judge answers garbage", judge: func() { model.setJudge(http.StatusOK, `{"score": 9}`) },
			caps: strict, wantStatus: post.StatusPending},
		{name: "below the minimum", judge: func() { model.setJudge(http.StatusOK, `{"score": 2, "reason": "Mocks the mortal."}`) },
			caps: strict, wantStatus: post.StatusSkipped, wantReview: &post.Review{Score: 2, Reason: "Mocks the mortal.", By: "stand-in"},
			wantReason: "second opinion: 2/5: Mocks the mortal."},
		{name: "below, but the minimum is off", judge: func() { model.setJudge(http.StatusOK, `{"score": 1, "reason": "Bad."}`) },
			caps: settings.Caps{SendsPer3Hours: 1000, SendsPerDay: 1000}, wantStatus: post.StatusPending, wantReview: &post.Review{Score: 1, Reason: "Bad.", By: "stand-in"}},
	}
	// Distinct drafts: a near-duplicate is flagged, and a flagged draft is not judged.
	drafts := []string{
		"Hell runs on coffee too, mortal.",
		"Your inbox is a lake of fire and you swim daily.",
		"Mondays were my idea. You are welcome.",
		"Greed looks good on you; keep the receipt.",
		"Sloth? I call it conserving damnation.",
	}
	var first int64
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			putSettings(t, e.store, settings.Settings{Caps: tt.caps})
			tt.judge()
			model.mu.Lock()
			model.draft = `{"response": "` + drafts[i] + `", "category": "gluttony"}`
			model.mu.Unlock()
			p := draft(t, d, found(t, e.store, "r"+string(rune('a'+i)), "c"+string(rune('a'+i)), "mortal_"+string(rune('a'+i)), "Third coffee and it's not even 10am"))
			if p.Status != tt.wantStatus || p.PersonaVersion != 2 || p.ProposedResponse == "" || p.SkipReason != tt.wantReason {
				t.Errorf("post %s v%d %q reason %q; want %s v2 reason %q", p.Status, p.PersonaVersion, p.ProposedResponse, p.SkipReason, tt.wantStatus, tt.wantReason)
			}
			if first == 0 {
				first = p.ID
			}
			if (p.Review == nil) != (tt.wantReview == nil) || (p.Review != nil && *p.Review != *tt.wantReview) {
				t.Errorf("review %+v, want %+v", p.Review, tt.wantReview)
			}
			if tt.wantStatus != post.StatusSkipped {
				return
			}
			// Drafted anyway, the judge's score skips it no more.
			if _, err := decider(e.store, e.queue).DraftAnyway(ctx, p.ID, nil, post.ByWeb); err != nil {
				t.Fatal(err)
			}
			if again := draft(t, d, p.ID); again.Status != post.StatusPending || again.Review == nil || again.Review.Score != 2 {
				t.Errorf("drafted anyway: %s %+v, want pending with its low review", again.Status, again.Review)
			}
		})
	}
	// A regenerated draft is written in the current version.
	if _, err := e.store.PutPersona(ctx, persona.Persona{Name: "Imp", Voice: "Third voice."}); err != nil {
		t.Fatal(err)
	}
	model.setJudge(http.StatusOK, `{"score": 5, "reason": "Better."}`)
	if err := d.Regenerate(ctx, task(tasks.TypeRegeneratePost, tasks.RegeneratePayload{PostID: first})); err != nil {
		t.Fatal(err)
	}
	if p, err := e.store.Post(ctx, first); err != nil || p.PersonaVersion != 3 || p.Review == nil || p.Review.Score != 5 {
		t.Errorf("regenerated: v%d review %+v (%v), want v3 scored 5", p.PersonaVersion, p.Review, err)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if !strings.Contains(model.systems[0], "Squeaky little menace.") || !strings.Contains(model.systems[0], "Hard rules (they win") {
		t.Errorf("the draft prompt lacks the stored persona or the hard rules:\n%s", model.systems[0])
	}
}

// judgeCalls counts the judge requests the stand-in was sent.
func (m *modelStandIn) judgeCalls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.systems {
		if strings.HasPrefix(s, "You review drafts") {
			n++
		}
	}
	return n
}

// A draft the outbound check flags goes to the reviewer unjudged: no
// judge call is spent on it. A clean one is judged.
func TestNoJudgeCallForAFlaggedDraft(t *testing.T) {
	t.Parallel()
	e := setup(t)
	model := &modelStandIn{}
	model.setJudge(http.StatusOK, `{"score": 4, "reason": "In character."}`)
	w := model.serve(t)
	d := &pipeline.Drafter{Store: e.store, Writer: w, Judge: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	tests := []struct {
		name       string
		draft      string
		wantFlags  []string
		wantJudged bool
	}{
		{name: "obfuscated link", draft: `{"response": "Repent at evil。com, mortal.", "category": "greed"}`, wantFlags: []string{"link"}},
		{name: "foreign mention", draft: `{"response": "Ask @\u200bvictim_acct, mortal.", "category": "envy"}`, wantFlags: []string{"foreign_mention"}},
		{name: "clean", draft: "", wantFlags: []string{}, wantJudged: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model.mu.Lock()
			model.draft = tt.draft
			model.mu.Unlock()
			before := model.judgeCalls()
			p := draft(t, d, found(t, e.store, "j"+string(rune('a'+i)), "jc"+string(rune('a'+i)), "mortal_j"+string(rune('a'+i)), "Third coffee and it's not even 10am"))
			if p.Status != post.StatusPending || !slices.Equal(p.Flags, tt.wantFlags) {
				t.Fatalf("post %s flags %q, want pending with %q", p.Status, p.Flags, tt.wantFlags)
			}
			judged := model.judgeCalls() - before
			if tt.wantJudged != (judged == 1) || judged > 1 || tt.wantJudged != (p.Review != nil) {
				t.Errorf("%d judge calls, review %+v; want judged %v", judged, p.Review, tt.wantJudged)
			}
		})
	}
}
