package api_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

// flagsOf decodes the "flags" of a JSON body.
func flagsOf(t *testing.T, body string) []string {
	t.Helper()
	var out struct {
		Flags []string `json:"flags"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.Flags == nil {
		t.Fatalf("body has no flags array: %q (%v)", body, err)
	}
	return out.Flags
}

// A flagged text (the draft, or the admin's edit) is approved only with
// {"override": true}; without it the answer is 422 naming the flags, and
// the post is left as it was. The flags approved are stored.
func TestApproveFlaggedNeedsOverride(t *testing.T) {
	t.Parallel()
	e := setup(t)
	link := e.pending("link", post.SourceMention, 0, "Read https://example.com/hell first")
	clean := e.pending("clean", post.SourceMention, 0, "Burn, @mortalclean.")
	edited := e.pending("edited", post.SourceMention, 0, "Burn, mortal.")
	tests := []struct {
		name       string
		id         int64
		body       string
		wantStatus int
		wantFlags  []string
		after      post.Status
	}{
		{name: "flagged draft", id: link, body: `{}`, wantStatus: 422, wantFlags: []string{"link"}, after: post.StatusPending},
		{name: "override false", id: link, body: `{"override":false}`, wantStatus: 422, wantFlags: []string{"link"}, after: post.StatusPending},
		{name: "override not a boolean", id: link, body: `{"override":"yes"}`, wantStatus: 400, after: post.StatusPending},
		{name: "override null", id: link, body: `{"override":null}`, wantStatus: 400, after: post.StatusPending},
		{name: "bad JSON", id: link, body: `{"override":tru}`, wantStatus: 400, after: post.StatusPending},
		{name: "flagged edit", id: edited, body: `{"response":"Ask @stranger, [name]"}`, wantStatus: 422,
			wantFlags: []string{"foreign_mention", "placeholder"}, after: post.StatusPending},
		{name: "secret in an edit", id: edited, body: `{"response":"key sk-proj-AbCdEf0123456789GhIjKlMn"}`, wantStatus: 422,
			wantFlags: []string{"secret"}, after: post.StatusPending},
		{name: "clean draft naming its author", id: clean, body: `{}`, wantStatus: 200, wantFlags: []string{}, after: post.StatusApproved},
		{name: "approve anyway", id: link, body: `{"override":true}`, wantStatus: 200, wantFlags: []string{"link"}, after: post.StatusApproved},
		{name: "edit cleaned of its flag", id: edited, body: `{"response":"Burn, @mortaledited, burn."}`, wantStatus: 200,
			wantFlags: []string{}, after: post.StatusApproved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := e.store.Post(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			status, body := e.do("POST", "/api/posts/"+id(tt.id)+"/approve", e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantFlags != nil && !slices.Equal(flagsOf(t, body), tt.wantFlags) {
				t.Errorf("flags %v, want %v", flagsOf(t, body), tt.wantFlags)
			}
			if status == 422 && !strings.Contains(errorOf(t, body), "approve anyway") {
				t.Errorf("error %q does not say how to approve anyway", errorOf(t, body))
			}
			wantStatus(t, e, tt.id, tt.after)
			if status != 200 {
				wantResponse(t, e, tt.id, before.ProposedResponse)
				return
			}
			p, err := e.store.Post(context.Background(), tt.id)
			if err != nil || !slices.Equal(p.Flags, tt.wantFlags) {
				t.Errorf("stored flags %v, want %v (%v)", p.Flags, tt.wantFlags, err)
			}
		})
	}
}

// skip makes a post skipped by a guard with reason.
func (e *env) skip(originalID, reason string, likes int) int64 {
	e.t.Helper()
	ctx := context.Background()
	rowID, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: originalID,
		ConversationID: "c" + originalID, OriginalPostText: "@devil stop", AuthorUsername: "m" + originalID,
		CreatedAt: e.clock.Now(), Likes: likes})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Skip(ctx, rowID, reason); err != nil {
		e.t.Fatal(err)
	}
	return rowID
}

// The Skipped and failed view lists skipped posts with their reasons and
// failed ones with their errors, pages and orders like the other lists; "draft anyway" sends one back to drafting
// and queues its draft.
func TestSkippedViewAndDraftAnyway(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var skipped []int64
	for i := range 12 {
		skipped = append(skipped, e.skip("s"+id(int64(i)), "cap: conversation (1 of 1)", i))
	}
	e.pending("notskipped", post.SourceMention, 0, "burn")
	// A post whose draft failed is listed too, its error as its reason.
	failed, _, err := e.store.UpsertFound(context.Background(), post.Post{Platform: "sandbox", Source: post.SourceTargeted,
		OriginalPostID: "failed", ConversationID: "cfailed", OriginalPostText: "sin", AuthorUsername: "sinner", CreatedAt: e.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.FailDraft(context.Background(), failed, "writer: no draft"); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/posts/skipped?sortBy=likes", e.token, "")
	if status != 200 {
		t.Fatalf("skipped list: %d %s", status, body)
	}
	var list struct {
		Posts []struct {
			ID     int64    `json:"id"`
			Status string   `json:"status"`
			Reason string   `json:"reason"`
			Flags  []string `json:"flags"`
		}
		Pagination struct{ Page, PageSize, Total, TotalPages int }
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if list.Pagination.Total != 13 || list.Pagination.TotalPages != 2 || len(list.Posts) != 10 || list.Posts[0].ID != skipped[11] {
		t.Fatalf("skipped list: %+v", list)
	}
	for _, p := range list.Posts {
		if p.Status != "skipped" || p.Reason != "cap: conversation (1 of 1)" || p.Flags == nil {
			t.Errorf("listed %+v, want skipped with its reason and a flags array", p)
		}
	}
	status, body = e.do("GET", "/api/posts/skipped?page=2&sortBy=likes", e.token, "")
	list.Posts = nil
	if err := json.Unmarshal([]byte(body), &list); err != nil || status != 200 || len(list.Posts) != 3 {
		t.Fatalf("second page: %d %s", status, body)
	}
	// After the post with one like, of the two without, the newer row comes first.
	if f := list.Posts[1]; list.Posts[0].ID != skipped[1] || f.ID != failed || f.Status != "failed" || f.Reason != "writer: no draft" {
		t.Errorf("second page %+v, want the failed post second with its error as reason", list.Posts)
	}
	pending := e.pending("pending", post.SourceMention, 0, "burn")
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantError                string
	}{
		{name: "bad page", method: "GET", path: "/api/posts/skipped?page=0", wantStatus: 400, wantError: "page"},
		{name: "page not a number", method: "GET", path: "/api/posts/skipped?page=abc", wantStatus: 400, wantError: "page"},
		{name: "huge page", method: "GET", path: "/api/posts/skipped?page=99999999999", wantStatus: 400, wantError: "page"},
		{name: "bad sortBy", method: "GET", path: "/api/posts/skipped?sortBy=evil", wantStatus: 400, wantError: "sort"},
		{name: "page past the end", method: "GET", path: "/api/posts/skipped?page=9", wantStatus: 200},
		{name: "no token", method: "GET", path: "/api/posts/skipped", wantStatus: 401},
		{name: "bad id", method: "POST", path: "/api/posts/abc/draft-anyway", wantStatus: 400, wantError: "post id"},
		{name: "negative id", method: "POST", path: "/api/posts/-4/draft-anyway", wantStatus: 400, wantError: "post id"},
		{name: "unknown id", method: "POST", path: "/api/posts/999999/draft-anyway", wantStatus: 404, wantError: "not found"},
		{name: "bad JSON", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "unknown field", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{"force":true}`, wantStatus: 400, wantError: "unknown field"},
		{name: "not skipped", method: "POST", path: "/api/posts/" + id(pending) + "/draft-anyway", wantStatus: 409, wantError: "it is pending, not skipped"},
		{name: "failed", method: "POST", path: "/api/posts/" + id(failed) + "/draft-anyway", wantStatus: 409, wantError: "it is failed, not skipped"},
		{name: "by GET", method: "GET", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", wantStatus: 405},
		{name: "stale version", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{"draft_version":1}`, wantStatus: 409, wantError: "the draft changed since it was shown"},
		{name: "version 0", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{"draft_version":0}`, wantStatus: 400, wantError: "draft_version"},
		{name: "version not a number", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{"draft_version":"v1"}`, wantStatus: 400, wantError: "draft_version"},
		{name: "draft anyway", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", wantStatus: 200},
		{name: "twice", method: "POST", path: "/api/posts/" + id(skipped[0]) + "/draft-anyway", body: `{}`, wantStatus: 409, wantError: "it is drafting, not skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := e.token
			if tt.name == "no token" {
				token = ""
			}
			status, body := e.do(tt.method, tt.path, token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantError != "" && !strings.Contains(errorOf(t, body), tt.wantError) {
				t.Errorf("error %q, want %q", errorOf(t, body), tt.wantError)
			}
			if status >= 400 && strings.Contains(tt.path, id(skipped[0])+"/") && tt.name != "twice" {
				wantStatus(t, e, skipped[0], post.StatusSkipped)
			}
		})
	}
	p, err := e.store.Post(context.Background(), skipped[0])
	if err != nil || p.Status != post.StatusDrafting || p.GuardedAt == nil || p.SkipReason != "" {
		t.Errorf("drafted anyway: %s guarded %v reason %q (%v)", p.Status, p.GuardedAt, p.SkipReason, err)
	}
	info, err := e.queue.Inspector().GetTaskInfo(tasks.QueueDefault, tasks.DraftTaskID(skipped[0]))
	if err != nil || info.Type != tasks.TypeDraftPost {
		t.Errorf("draft task: %+v %v", info, err)
	}
	// The draft task names the post's platform, which the worker routes it by.
	if payload, err := tasks.DecodePost(asynq.NewTask(info.Type, info.Payload)); err != nil || payload != (tasks.PostPayload{PostID: skipped[0], Platform: "sandbox"}) {
		t.Errorf("draft task payload %s: %+v %v", info.Payload, payload, err)
	}
	// The draft anyway is a decision, in the history.
	status, body = e.do("GET", "/api/posts/"+id(skipped[0])+"/history", e.token, "")
	var h struct {
		Decisions []struct {
			Action, By   string
			DraftVersion int `json:"draft_version"`
		}
	}
	if err := json.Unmarshal([]byte(body), &h); status != 200 || err != nil || len(h.Decisions) != 1 ||
		h.Decisions[0].Action != "draft_anyway" || h.Decisions[0].By != "web" || h.Decisions[0].DraftVersion != 0 {
		t.Errorf("history: %d %s, want the draft anyway on the web", status, body)
	}
}
