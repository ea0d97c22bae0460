package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
)

// The autopilot is off in fresh settings; PUT stores it normalised, a PUT
// without it keeps it, and a bad value is a 400 naming its field.
func TestAutopilotSettingsAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	get := func() settings.Autopilot {
		t.Helper()
		status, body := e.do("GET", "/api/settings", e.token, "")
		var v settings.Settings
		if err := json.Unmarshal([]byte(body), &v); status != 200 || err != nil {
			t.Fatalf("GET /api/settings: %d %s", status, body)
		}
		return v.Autopilot
	}
	if a := get(); a.Enabled || a.MinReviewScore != 5 || a.MaxPerHour != 5 || a.GraceSeconds != 120 || a.Authors == nil || a.Categories == nil {
		t.Errorf("fresh autopilot = %+v, want off with the defaults", a)
	}
	const rest = `"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}`
	status, body := e.do("PUT", "/api/settings", e.token, `{`+rest+`,"autopilot":{"enabled":true,"min_review_score":4,
		"authors":["@Friend","friend"],"any_author":false,"categories":["Sloth"],"max_per_hour":3,"grace_seconds":0}}`)
	if status != 200 {
		t.Fatalf("PUT: %d %s", status, body)
	}
	want := settings.Autopilot{Enabled: true, MinReviewScore: 4, Authors: []string{"friend"}, Categories: []string{"sloth"}, MaxPerHour: 3}
	check := func(what string) {
		t.Helper()
		if a := get(); a.Enabled != want.Enabled || a.MinReviewScore != want.MinReviewScore || !slices.Equal(a.Authors, want.Authors) ||
			!slices.Equal(a.Categories, want.Categories) || a.MaxPerHour != want.MaxPerHour || a.GraceSeconds != want.GraceSeconds {
			t.Errorf("%s: autopilot = %+v, want %+v", what, a, want)
		}
	}
	check("after PUT")
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+rest+`}`); status != 200 {
		t.Fatalf("PUT without autopilot: %d %s", status, body)
	}
	check("a PUT without autopilot")

	for _, tt := range []struct{ autopilot, field string }{
		{`{"enabled":true,"min_review_score":0,"authors":[],"categories":[],"max_per_hour":5,"grace_seconds":120}`, "autopilot.min_review_score"},
		{`{"enabled":true,"min_review_score":6,"authors":[],"categories":[],"max_per_hour":5,"grace_seconds":120}`, "autopilot.min_review_score"},
		{`{"enabled":true,"min_review_score":5,"authors":[],"categories":[],"max_per_hour":5,"grace_seconds":3601}`, "autopilot.grace_seconds"},
		{`{"enabled":true,"min_review_score":5,"authors":[],"categories":[],"max_per_hour":5,"grace_seconds":-1}`, "autopilot.grace_seconds"},
		{`{"enabled":true,"min_review_score":5,"authors":[],"categories":[],"max_per_hour":101,"grace_seconds":120}`, "autopilot.max_per_hour"},
		{`{"enabled":true,"min_review_score":5,"authors":["no spaces allowed"],"categories":[],"max_per_hour":5,"grace_seconds":120}`, "autopilot.authors[0]"},
		{`{"enabled":true,"min_review_score":5,"authors":[],"categories":["virtue"],"max_per_hour":5,"grace_seconds":120}`, "autopilot.categories[0]"},
	} {
		status, body := e.do("PUT", "/api/settings", e.token, `{`+rest+`,"autopilot":`+tt.autopilot+`}`)
		var out struct{ Field string }
		if err := json.Unmarshal([]byte(body), &out); err != nil || status != 400 || out.Field != tt.field {
			t.Errorf("%s: got %d %s, want 400 naming %s", tt.autopilot, status, body, tt.field)
		}
	}
	for _, bad := range []string{`"yes"`, `{"enabled":"on"}`, `{"max_per_hour":1.5}`, `{"unknown":1}`} {
		if status, body := e.do("PUT", "/api/settings", e.token, `{`+rest+`,"autopilot":`+bad+`}`); status != 400 {
			t.Errorf("autopilot %s: got %d %s, want 400", bad, status, body)
		}
	}
	check("after the refused PUTs")
}

// autoApprove approves pid as the autopilot does, with grace.
func (e *env) autoApprove(pid int64, grace time.Duration) post.Post {
	e.t.Helper()
	p, err := e.decide().Approve(context.Background(), pid, decision.Approval{By: post.ByAutopilot,
		Detail: map[string]any{"summary": "Auto-approved: trusted author @x, review 5/5"},
		Auto:   &store.Auto{Grace: grace, MaxPerHour: 100}})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// An auto-approval carries send_after; a cancel puts it back to pending
// (a second is a 409), is in the history after the autopilot's approval,
// and makes the draft a human's: the autopilot approves it no more. Once
// the send has started the cancel is a 409 saying so. An edit in the
// window withdraws the approval.
func TestCancelAutoApproval(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a := e.pending("1", post.SourceMention, 0, "a sure reply")
	p := e.autoApprove(a, 2*time.Minute)
	if p.Status != post.StatusApproved || p.SendAfter == nil || time.Until(*p.SendAfter) < time.Minute {
		t.Fatalf("auto-approved post = %s, send_after %v; want approved with send_after 2 min ahead", p.Status, p.SendAfter)
	}
	status, body := e.do("POST", "/api/posts/"+id(a)+"/cancel", e.token, "")
	var v struct {
		Status    string     `json:"status"`
		SendAfter *time.Time `json:"send_after"`
	}
	if err := json.Unmarshal([]byte(body), &v); status != 200 || err != nil || v.Status != "pending" || v.SendAfter != nil {
		t.Fatalf("cancel: %d %s, want 200 pending without send_after", status, body)
	}
	if status, body := e.do("POST", "/api/posts/"+id(a)+"/cancel", e.token, "{}"); status != 409 {
		t.Errorf("a second cancel: %d %s, want 409", status, body)
	}
	status, body = e.do("GET", "/api/posts/"+id(a)+"/history", e.token, "")
	var h struct {
		Decisions []struct {
			Action, By string
			Detail     map[string]any
		}
	}
	if err := json.Unmarshal([]byte(body), &h); status != 200 || err != nil || len(h.Decisions) != 2 ||
		h.Decisions[0].Action != "approve" || h.Decisions[0].By != "autopilot" || h.Decisions[0].Detail["summary"] != "Auto-approved: trusted author @x, review 5/5" ||
		h.Decisions[1].Action != "cancel" || h.Decisions[1].By != "web" {
		t.Errorf("history: %d %s", status, body)
	}
	_, err := e.decide().Approve(ctx, a, decision.Approval{By: post.ByAutopilot, Auto: &store.Auto{MaxPerHour: 100}})
	if !errors.Is(err, store.ErrAutopilotDeclined) {
		t.Errorf("autopilot after a cancel: %v, want ErrAutopilotDeclined", err)
	}

	// The send has started: the cancel says so and changes nothing.
	b := e.pending("2", post.SourceMention, 0, "going out")
	e.autoApprove(b, 0)
	if _, _, err := e.store.BeginSendWithin(ctx, b, settings.DefaultCaps().Send(), func(store.SendQueue) error { return nil }); err != nil {
		t.Fatal(err)
	}
	status, body = e.do("POST", "/api/posts/"+id(b)+"/cancel", e.token, "")
	var out struct{ Error string }
	if err := json.Unmarshal([]byte(body), &out); status != 409 || err != nil || out.Error != "the send has started" {
		t.Errorf("cancel after the send started: %d %s, want 409 the send has started", status, body)
	}
	if got := e.status(b); got != post.StatusApproved {
		t.Errorf("after the refused cancel the post is %s, want approved", got)
	}

	// A human approval is not cancelled; an unknown post is a 404, a bad body a 400.
	c := e.pending("3", post.SourceMention, 0, "approved by hand")
	if _, err := e.decide().Approve(ctx, c, decision.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, body string
		want       int
	}{
		{"/api/posts/" + id(c) + "/cancel", "", 409},
		{"/api/posts/999999/cancel", "", 404},
		{"/api/posts/abc/cancel", "", 400},
		{"/api/posts/" + id(c) + "/cancel", `{"x":1}`, 400},
		{"/api/posts/" + id(c) + "/cancel", `[`, 400},
	} {
		if status, body := e.do("POST", tt.path, e.token, tt.body); status != tt.want {
			t.Errorf("POST %s %q: %d %s, want %d", tt.path, tt.body, status, body, tt.want)
		}
	}

	// An edit in the window withdraws the auto-approval.
	d := e.pending("4", post.SourceMention, 0, "to be edited")
	e.autoApprove(d, time.Minute)
	status, body = e.do("POST", "/api/posts/"+id(d)+"/edit", e.token, `{"response":"the administrator's words"}`)
	if status != 200 || e.status(d) != post.StatusPending {
		t.Errorf("edit in the window: %d %s, status %s; want 200 and pending", status, body, e.status(d))
	}

	// So does a regenerate, through the one decision package.
	g := e.pending("5", post.SourceMention, 0, "to be redrafted")
	e.autoApprove(g, time.Minute)
	if _, err := decision.New(e.store, e.queue, "devil", nil).Regenerate(ctx, g, "", nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	ds, err := e.store.Decisions(ctx, g)
	if err != nil || e.status(g) != post.StatusPending || len(ds) != 3 || ds[1].Action != post.ActionCancel || ds[2].Action != post.ActionRegenerate {
		t.Errorf("regenerate in the window: status %s, decisions %+v, %v; want pending after approve, cancel, regenerate", e.status(g), ds, err)
	}
}
