package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
)

// manualPending makes a pending post whose reply must be posted by hand.
func (e *env) manualPending(id, response string) int64 {
	e.t.Helper()
	ctx := context.Background()
	rowID, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceConversation, OriginalPostID: id,
		ConversationID: "c" + id, OriginalPostText: "mortal says " + id, CreatedAt: e.clock.Now().Add(-time.Hour), ReplyRoute: post.RouteManual})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, rowID, store.Draft{Response: response, Category: "wrath", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}); err != nil {
		e.t.Fatal(err)
	}
	return rowID
}

type x2026View struct {
	Status           string  `json:"status"`
	ReplyRoute       *string `json:"reply_route"`
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
	ResponseHasLink  bool    `json:"response_has_link"`
	IntentURL        *string `json:"intent_url"`
	ResponsePostID   string  `json:"response_post_id"`
	Error            string  `json:"error"`
}

func decodeView(t *testing.T, body string) x2026View {
	t.Helper()
	var v x2026View
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func TestHandPostingRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	api := e.pending("1801", post.SourceConversation, 0, "see hell.example.com")
	manual := e.manualPending("1802", "burn, mortal")
	other := e.manualPending("1803", "also burn")

	// The list shows the route and the cost before approval.
	status, body := e.do("GET", "/api/posts/pending", e.token, "")
	if status != 200 || !strings.Contains(body, `"reply_route":"manual"`) || !strings.Contains(body, `"estimated_cost_usd":0.2`) ||
		!strings.Contains(body, `"response_has_link":true`) {
		t.Fatalf("list: %d %s", status, body)
	}

	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		check      func(t *testing.T, body string)
	}{
		{name: "mark posted before approval is a conflict", path: "/api/posts/" + id(manual) + "/mark-posted", wantStatus: 409},
		{name: "give up before approval is a conflict", path: "/api/posts/" + id(manual) + "/give-up", wantStatus: 409},
		{name: "unknown id", path: "/api/posts/999999/mark-posted", wantStatus: 404},
		{name: "unknown id gives up", path: "/api/posts/999999/give-up", wantStatus: 404},
		{name: "approve goes to awaiting_manual with the intent URL", path: "/api/posts/" + id(manual) + "/approve", body: `{}`, wantStatus: 200,
			check: func(t *testing.T, body string) {
				v := decodeView(t, body)
				if v.Status != "awaiting_manual" || v.IntentURL == nil || *v.IntentURL != "https://x.com/intent/post?in_reply_to=1802&text=burn%2C%20mortal" || v.EstimatedCostUSD != 0 {
					t.Errorf("approved: %+v", v)
				}
			}},
		{name: "the awaiting post stays listed", method: "GET", path: "/api/posts/pending", wantStatus: 200,
			check: func(t *testing.T, body string) {
				if !strings.Contains(body, `"status":"awaiting_manual"`) {
					t.Errorf("list lost the awaiting post: %s", body)
				}
			}},
		{name: "mark posted on a stale version is a conflict", path: "/api/posts/" + id(manual) + "/mark-posted", body: `{"draft_version":9}`, wantStatus: 409,
			check: func(t *testing.T, body string) {
				if !strings.Contains(body, `"draft_version":1`) || !strings.Contains(body, "the draft changed since it was shown") {
					t.Errorf("stale: %s", body)
				}
			}},
		{name: "mark posted on version 0 is refused", path: "/api/posts/" + id(manual) + "/mark-posted", body: `{"draft_version":0}`, wantStatus: 400},
		{name: "mark posted on a version in words is refused", path: "/api/posts/" + id(manual) + "/mark-posted", body: `{"draft_version":"1"}`, wantStatus: 400},
		{name: "mark posted with the reply id", path: "/api/posts/" + id(manual) + "/mark-posted", body: `{"response_post_id":"1900000000000000001","draft_version":1}`, wantStatus: 200,
			check: func(t *testing.T, body string) {
				if v := decodeView(t, body); v.Status != "posted" || v.ResponsePostID != "1900000000000000001" || v.IntentURL != nil {
					t.Errorf("marked: %+v", v)
				}
			}},
		{name: "mark posted twice is a conflict", path: "/api/posts/" + id(manual) + "/mark-posted", wantStatus: 409},
		{name: "approve another", path: "/api/posts/" + id(other) + "/approve", body: `{}`, wantStatus: 200},
		{name: "give up on a stale version is a conflict", path: "/api/posts/" + id(other) + "/give-up", body: `{"draft_version":2}`, wantStatus: 409},
		{name: "give up on version -1 is refused", path: "/api/posts/" + id(other) + "/give-up", body: `{"draft_version":-1}`, wantStatus: 400},
		{name: "give up with a reason", path: "/api/posts/" + id(other) + "/give-up", body: `{"reason":"the thread went cold"}`, wantStatus: 200,
			check: func(t *testing.T, body string) {
				if v := decodeView(t, body); v.Status != "rejected" || v.Error != "the thread went cold" {
					t.Errorf("given up: %+v", v)
				}
			}},
		{name: "an API post cannot be marked posted", path: "/api/posts/" + id(api) + "/mark-posted", wantStatus: 409},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "POST"
			}
			status, body := e.do(method, tt.path, e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
	stats, err := e.store.AdminStats(context.Background())
	if err != nil || stats.Posted != 1 {
		t.Errorf("posted %d (%v), want 1", stats.Posted, err)
	}
	// Marking posted and giving up are decisions, in the history after the approval.
	for _, tt := range []struct {
		id   int64
		want string
	}{{manual, "mark_posted"}, {other, "give_up"}} {
		status, body := e.do("GET", "/api/posts/"+id(tt.id)+"/history", e.token, "")
		var h struct {
			Decisions []struct {
				Action, By   string
				DraftVersion int `json:"draft_version"`
			}
		}
		if err := json.Unmarshal([]byte(body), &h); status != 200 || err != nil || len(h.Decisions) != 2 ||
			h.Decisions[0].Action != "approve" || h.Decisions[1].Action != tt.want || h.Decisions[1].By != "web" || h.Decisions[1].DraftVersion != 1 {
			t.Errorf("history of post %d: %d %s, want approve then %s on the web on version 1", tt.id, status, body, tt.want)
		}
	}
}

func TestSpendAndResume(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if _, err := e.store.RecordXCall(ctx, spend.XCall{At: time.Now(), Endpoint: "GET /2/tweets/search/recent", Kind: "post_read",
		ResourceIDs: []string{"1", "2", "1"}, UnitUSD: 0.005}); err != nil {
		t.Fatal(err)
	}
	// X's credits ran out, which pauses X; the operator paused every platform.
	if err := e.store.SetPause(ctx, store.Pause{Platform: "x", Refusal: "out_of_credits", Reason: "credits ran out"}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetPause(ctx, store.Pause{Refusal: "operator", Reason: "paused from Telegram"}); err != nil {
		t.Fatal(err)
	}
	// A search scan that stopped at its bound left a gap, and its gap read was put off twice for the budget.
	if err := e.store.SetCursor(ctx, "x", "search:q", "100"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.MoveCursor(ctx, "x", "search:q", "100", "900", "500"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.CountSkippedReads(ctx, "x", "search:q", 2, "read budget"); err != nil {
		t.Fatal(err)
	}
	// The platform rejected the mentions read as malformed: that timeline waits 6 hours.
	pausedAt := time.Now().UTC().Truncate(time.Second)
	if _, err := e.store.PauseTimeline(ctx, store.TimelinePause{Platform: "x", Timeline: "mentions", Reason: "the platform rejects the request", Since: pausedAt}, 6*time.Hour); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/spend", e.token, "")
	if status != 200 {
		t.Fatalf("spend: %d %s", status, body)
	}
	var s struct {
		TimelinePauses []struct {
			Platform, Timeline, Reason string
			Until                      time.Time
		} `json:"timeline_pauses"`
		Today struct {
			XUSD float64 `json:"x_usd"`
		} `json:"today"`
		Budget     map[string]*float64 `json:"budget"`
		ByEndpoint []struct {
			Endpoint  string `json:"endpoint"`
			Calls     int    `json:"calls"`
			Resources int    `json:"resources"`
		} `json:"by_endpoint"`
		Windows []any `json:"windows"`
		Paused  *struct {
			Platform, Reason string
		} `json:"paused"`
		Pauses []struct {
			Platform, Reason string
		} `json:"pauses"`
		Backlog []struct {
			Timeline     string `json:"timeline"`
			OpenGaps     int    `json:"open_gaps"`
			SkippedReads int    `json:"skipped_reads"`
			LastReason   string `json:"last_reason"`
		} `json:"backlog"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.Today.XUSD != 0.01 || len(s.ByEndpoint) != 1 || s.ByEndpoint[0].Resources != 2 || s.Windows == nil ||
		s.Paused == nil || s.Paused.Reason != "paused from Telegram" || s.Paused.Platform != "" || s.Budget["daily_usd"] != nil {
		t.Fatalf("spend %s", body)
	}
	if len(s.Pauses) != 2 || s.Pauses[0].Platform != "" || s.Pauses[1].Platform != "x" || s.Pauses[1].Reason != "credits ran out" {
		t.Errorf("pauses %+v, want every platform's, then x's", s.Pauses)
	}
	if len(s.Backlog) != 1 || s.Backlog[0].Timeline != "search:q" || s.Backlog[0].OpenGaps != 1 ||
		s.Backlog[0].SkippedReads != 2 || s.Backlog[0].LastReason != "read budget" {
		t.Errorf("backlog %+v, want the search gap and its 2 reads put off for the budget", s.Backlog)
	}
	if len(s.TimelinePauses) != 1 || s.TimelinePauses[0].Platform != "x" || s.TimelinePauses[0].Timeline != "mentions" ||
		s.TimelinePauses[0].Reason != "the platform rejects the request" || !s.TimelinePauses[0].Until.Equal(pausedAt.Add(6*time.Hour)) {
		t.Errorf("timeline pauses %+v, want mentions paused for 6 hours", s.TimelinePauses)
	}
	for _, key := range []string{`"month"`, `"projection_usd"`, `"monthly_usd"`, `"by_model"`} {
		if !strings.Contains(body, key) {
			t.Errorf("spend lacks %s: %s", key, body)
		}
	}
	if status, body := e.do("POST", "/api/ops/resume", e.token, ""); status != 200 || !strings.Contains(body, `"resumed":true`) {
		t.Fatalf("resume: %d %s", status, body)
	}
	if _, body := e.do("GET", "/api/spend", e.token, ""); !strings.Contains(body, `"paused":null`) || !strings.Contains(body, `"pauses":[]`) {
		t.Errorf("after resuming (every pause lifted): %s", body)
	}

	// The operator pauses every platform from the admin, twice (one pause),
	// and resumes.
	for range 2 {
		if status, body := e.do("POST", "/api/ops/pause", e.token, "{}"); status != 200 || body != `{"paused":true}`+"\n" {
			t.Fatalf("pause: %d %q", status, body)
		}
	}
	var paused struct {
		Pauses []struct {
			Platform string `json:"platform"`
			Reason   string `json:"reason"`
		} `json:"pauses"`
	}
	_, body = e.do("GET", "/api/spend", e.token, "")
	if err := json.Unmarshal([]byte(body), &paused); err != nil {
		t.Fatal(err)
	}
	if len(paused.Pauses) != 1 || paused.Pauses[0].Platform != "" || paused.Pauses[0].Reason != "paused from the admin" {
		t.Errorf("after the admin's pause: %s", body)
	}
	if status, body := e.do("POST", "/api/ops/resume", e.token, ""); status != 200 || !strings.Contains(body, `"resumed":true`) {
		t.Fatalf("resume after the admin's pause: %d %s", status, body)
	}
}
