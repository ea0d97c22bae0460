package api_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// GET /api/settings answers the defaults before anything was stored; PUT
// stores the normalised settings and answers them; a bad value is a 400
// naming its field, and changes nothing.
func TestSettingsAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	get := func() settings.Settings {
		t.Helper()
		status, body := e.do("GET", "/api/settings", e.token, "")
		if status != 200 {
			t.Fatalf("GET /api/settings: %d %s", status, body)
		}
		var v settings.Settings
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get(); v.TargetUsernames == nil || len(v.SearchTopics) != 0 || v.Caps != settings.DefaultCaps() {
		t.Errorf("fresh settings = %+v, want empty lists and the default caps", v)
	}

	status, body := e.do("PUT", "/api/settings", e.token, `{"target_usernames":["@Sinner_1"," sinner_1 "],"search_topics":["monday","cold brew"],
		"blocked_authors":["Spammer"],"blocked_phrases":["scam coin"],"caps":{"sends_per_3h":4,"sends_per_day":20,"min_review_score":3}}`)
	if status != 200 {
		t.Fatalf("PUT /api/settings: %d %s", status, body)
	}
	want := settings.DefaultCaps()
	want.SendsPer3Hours, want.SendsPerDay, want.MinReviewScore = 4, 20, 3
	v := get()
	if !slices.Equal(v.TargetUsernames, []string{"sinner_1"}) || !slices.Equal(v.SearchTopics, []string{"monday", "cold brew"}) ||
		!slices.Equal(v.BlockedAuthors, []string{"spammer"}) || !slices.Equal(v.BlockedPhrases, []string{"scam coin"}) || v.Caps != want {
		t.Errorf("stored settings = %+v", v)
	}

	tests := []struct {
		name      string
		body      string
		wantField string
	}{
		{name: "bad handle", body: `{"target_usernames":["sinner_1","two words"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantField: "target_usernames[1]"},
		{name: "bad DID", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":["did:plc:abcdefghijklmnopqrstuvwx","did:key:z6Mk"],"blocked_phrases":[],"caps":{}}`, wantField: "blocked_authors[1]"},
		{name: "all-digit handle", body: `{"target_usernames":["@12345"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantField: "target_usernames[0]"},
		{name: "bad Bluesky handle", body: `{"target_usernames":["alice..bsky.social"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantField: "target_usernames[0]"},
		{name: "window over the day", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_3h":60,"sends_per_day":50}}`, wantField: "caps.sends_per_3h"},
		{name: "threshold", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"near_duplicate":2}}`, wantField: "caps.near_duplicate"},
		{name: "review score", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"min_review_score":6}}`, wantField: "caps.min_review_score"},
		{name: "context depth", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"context_depth":21}}`, wantField: "caps.context_depth"},
		{name: "missing field", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"caps":{}}`, wantField: "blocked_phrases"},
		{name: "unknown field", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{},"mood":"wrath"}`, wantField: "mood"},
		{name: "unknown cap", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_week":5}}`, wantField: "caps.sends_per_week"},
		{name: "wrong type", body: `{"target_usernames":"sinner","search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantField: "target_usernames"},
		{name: "cap of the wrong type", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_day":"50"}}`, wantField: "caps.sends_per_day"},
		{name: "not JSON", body: `target_usernames=sinner`, wantField: ""},
		{name: "not an object", body: `[]`, wantField: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("PUT", "/api/settings", e.token, tt.body)
			var out map[string]any
			if err := json.Unmarshal([]byte(body), &out); err != nil || status != 400 || out["field"] != tt.wantField || out["error"] == "" {
				t.Errorf("got %d %s, want 400 naming %s", status, body, tt.wantField)
			}
			if got := get(); !slices.Equal(got.TargetUsernames, []string{"sinner_1"}) || got.Caps != want {
				t.Errorf("a refused PUT changed the settings: %+v", got)
			}
		})
	}
}

// An approval beyond the send caps answers "queued: cap" at once, and
// /api/spend tells how the caps stand.
func TestApproveTellsTheSendCap(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	caps := settings.DefaultCaps()
	caps.SendsPer3Hours, caps.SendsPerDay = 1, 1
	if err := e.store.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	first, second := e.pending("1", post.SourceMention, 0, "first"), e.pending("2", post.SourceMention, 0, "second")
	queued := func(id int64) any {
		t.Helper()
		status, body := e.do("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", e.token, `{}`)
		var out map[string]any
		if err := json.Unmarshal([]byte(body), &out); err != nil || status != 200 {
			t.Fatalf("approve %d: %d %s", id, status, body)
		}
		return out["queued"]
	}
	if q := queued(first); q != nil {
		t.Errorf("first approval queued %v, want null: the window has room", q)
	}
	if q := queued(second); q != guard.ReasonSendCap {
		t.Errorf("second approval queued %v, want %q: the first takes the only slot", q, guard.ReasonSendCap)
	}
	if _, _, err := e.store.BeginSend(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := e.store.NoteError(ctx, second, guard.ReasonSendCap); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/spend", e.token, "")
	var spend struct {
		Sends map[string]int `json:"sends"`
	}
	if err := json.Unmarshal([]byte(body), &spend); err != nil || status != 200 {
		t.Fatalf("GET /api/spend: %d %s", status, body)
	}
	if want := map[string]int{"last_3h": 1, "last_24h": 1, "cap_3h": 1, "cap_24h": 1, "queued": 1}; !maps.Equal(spend.Sends, want) {
		t.Errorf("sends = %v, want %v", spend.Sends, want)
	}
}

// The approvals waiting for their first send are listed in approval order,
// each the send caps hold noted "queued: cap"; a send started leaves the
// list.
func TestListQueued(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	caps := settings.DefaultCaps()
	caps.SendsPer3Hours, caps.SendsPerDay = 1, 1
	if err := e.store.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	a, b, c := e.pending("1", post.SourceMention, 0, "a"), e.pending("2", post.SourceMention, 0, "b"), e.pending("3", post.SourceMention, 0, "c")
	e.pending("4", post.SourceMention, 0, "still pending")
	// Approved out of id order: the list follows the approvals.
	for _, id := range []int64{a, c, b} {
		if status, body := e.do("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", e.token, `{}`); status != 200 {
			t.Fatalf("approve %d: %d %s", id, status, body)
		}
	}
	type entry struct {
		ID     int64   `json:"id"`
		Status string  `json:"status"`
		Queued *string `json:"queued"`
		Error  string  `json:"error"`
	}
	list := func() ([]entry, int) {
		t.Helper()
		status, body := e.do("GET", "/api/posts/queued", e.token, "")
		var out struct {
			Posts      []entry
			Pagination struct{ Total int }
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil || status != 200 {
			t.Fatalf("GET /api/posts/queued: %d %s", status, body)
		}
		return out.Posts, out.Pagination.Total
	}
	held := guard.ReasonSendCap
	tests := []struct {
		name string
		// send starts the first listed post's send before listing.
		send bool
		want []entry
	}{
		{name: "the first takes the only slot", want: []entry{{ID: a, Status: "approved"}, {ID: c, Status: "approved", Queued: &held}, {ID: b, Status: "approved", Queued: &held}}},
		{name: "the cap holds the two left", send: true, want: []entry{{ID: c, Status: "approved", Queued: &held}, {ID: b, Status: "approved", Queued: &held}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.send {
				if _, _, err := e.store.BeginSend(ctx, a); err != nil {
					t.Fatal(err)
				}
				// The worker notes the wait on the post it held.
				if err := e.store.NoteError(ctx, c, guard.ReasonSendCap); err != nil {
					t.Fatal(err)
				}
			}
			got, total := list()
			if total != len(tt.want) || !slices.EqualFunc(got, tt.want, func(g, w entry) bool {
				return g.ID == w.ID && g.Status == w.Status && g.Error == "" && (g.Queued == nil) == (w.Queued == nil) && (g.Queued == nil || *g.Queued == *w.Queued)
			}) {
				t.Errorf("listed %+v (total %d), want %+v", got, total, tt.want)
			}
		})
	}
	garbage := []struct{ name, path string }{
		{name: "page not a number", path: "/api/posts/queued?page=abc"},
		{name: "page zero", path: "/api/posts/queued?page=0"},
		{name: "huge page", path: "/api/posts/queued?page=99999999999"},
	}
	for _, tt := range garbage {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := e.do("GET", tt.path, e.token, ""); status != 400 || !strings.Contains(errorOf(t, body), "page") {
				t.Errorf("got %d %s, want 400 naming page", status, body)
			}
		})
	}
	if status, _ := e.do("GET", "/api/posts/queued", "", ""); status != 401 {
		t.Errorf("without a token: %d, want 401", status)
	}
}

// The settings show the targeted usernames the platform does not know,
// until the settings change.
func TestSettingsShowTargetsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	body := `{"target_usernames":["ghost_acct","real_acct"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`
	if status, out := e.do("PUT", "/api/settings", e.token, body); status != 200 {
		t.Fatalf("PUT: %d %s", status, out)
	}
	if err := e.store.TargetNotFound(ctx, "sandbox", "ghost_acct", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutTarget(ctx, "sandbox", "real_acct", "77"); err != nil {
		t.Fatal(err)
	}
	missing := func(status int, out string) []string {
		t.Helper()
		var v struct {
			TargetsNotFound []string `json:"targets_not_found"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || status != 200 || v.TargetsNotFound == nil {
			t.Fatalf("%d %s: no targets_not_found list", status, out)
		}
		return v.TargetsNotFound
	}
	if got := missing(e.do("GET", "/api/settings", e.token, "")); !slices.Equal(got, []string{"ghost_acct"}) {
		t.Errorf("targets_not_found = %q, want ghost_acct", got)
	}
	if got := missing(e.do("PUT", "/api/settings", e.token, body)); len(got) != 0 {
		t.Errorf("after a settings change targets_not_found = %q, want none until looked up again", got)
	}
}

// Targets and blocked authors may be given by handle or by id; the answer
// shows each entry with its handle and id where known.
func TestSettingsEntriesByHandleOrID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	body := `{"target_usernames":["@Alice","did:plc:z72i7hdynmk6r22z27h6tvur","4242"],"search_topics":[],
		"blocked_authors":["777","Bob.Example.com"],"blocked_phrases":[],"caps":{}}`
	if status, out := e.do("PUT", "/api/settings", e.token, body); status != 200 {
		t.Fatalf("PUT: %d %s", status, out)
	}
	// The worker looked alice up, and found a post of 777.
	if err := e.store.PutTarget(ctx, "sandbox", "alice", "1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "p777",
		ConversationID: "c777", AuthorUsername: "seven", AuthorID: "777", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	status, out := e.do("GET", "/api/settings", e.token, "")
	type account struct {
		Entry  string  `json:"entry"`
		Handle *string `json:"handle"`
		ID     *string `json:"id"`
	}
	var v struct {
		TargetUsernames  []string  `json:"target_usernames"`
		BlockedAuthors   []string  `json:"blocked_authors"`
		TargetIDs        []account `json:"target_ids"`
		BlockedAuthorIDs []account `json:"blocked_author_ids"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || status != 200 {
		t.Fatalf("GET: %d %s", status, out)
	}
	if want := []string{"alice", "did:plc:z72i7hdynmk6r22z27h6tvur", "4242"}; !slices.Equal(v.TargetUsernames, want) {
		t.Errorf("target_usernames %q, want %q", v.TargetUsernames, want)
	}
	if want := []string{"777", "bob.example.com"}; !slices.Equal(v.BlockedAuthors, want) {
		t.Errorf("blocked_authors %q, want %q", v.BlockedAuthors, want)
	}
	show := func(list []account) string {
		var parts []string
		for _, a := range list {
			h, id := "null", "null"
			if a.Handle != nil {
				h = *a.Handle
			}
			if a.ID != nil {
				id = *a.ID
			}
			parts = append(parts, a.Entry+"="+h+"/"+id)
		}
		return strings.Join(parts, " ")
	}
	if got, want := show(v.TargetIDs), "alice=alice/1 did:plc:z72i7hdynmk6r22z27h6tvur=null/did:plc:z72i7hdynmk6r22z27h6tvur 4242=null/4242"; got != want {
		t.Errorf("target_ids %s, want %s", got, want)
	}
	if got, want := show(v.BlockedAuthorIDs), "777=seven/777 bob.example.com=bob.example.com/null"; got != want {
		t.Errorf("blocked_author_ids %s, want %s", got, want)
	}
}

// The spend report tells how many posts wait for their draft, and why.
func TestSpendTellsDraftsWaiting(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	drafts := func() (v struct {
		LastHour int    `json:"last_hour"`
		PerHour  int    `json:"per_hour"`
		Waiting  int    `json:"waiting"`
		Reason   string `json:"reason"`
	}) {
		t.Helper()
		status, body := e.do("GET", "/api/spend", e.token, "")
		var out struct {
			Drafts *struct {
				LastHour int    `json:"last_hour"`
				PerHour  int    `json:"per_hour"`
				Waiting  int    `json:"waiting"`
				Reason   string `json:"reason"`
			} `json:"drafts"`
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil || status != 200 || out.Drafts == nil {
			t.Fatalf("GET /api/spend: %d %s", status, body)
		}
		return *out.Drafts
	}
	if v := drafts(); v.Waiting != 0 || v.PerHour != settings.DefaultDraftsPerHour || v.Reason != "" {
		t.Errorf("fresh: %+v", v)
	}
	e.pending("d1", post.SourceMention, 0, "Hell is warm.")
	for _, id := range []string{"d2", "d3"} {
		if _, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: id,
			OriginalPostText: "hi", AuthorUsername: "m" + id, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if v := drafts(); v.Waiting != 2 || v.LastHour != 1 || v.Reason != "" {
		t.Errorf("two waiting under the cap: %+v, want no reason (they are being drafted)", v)
	}
	caps := settings.DefaultCaps()
	caps.DraftsPerHour = 1
	if err := e.store.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	if v := drafts(); v.Waiting != 2 || v.PerHour != 1 || v.Reason != "the hour's draft cap (caps.drafts_per_hour) is reached" {
		t.Errorf("at the cap: %+v", v)
	}
}
