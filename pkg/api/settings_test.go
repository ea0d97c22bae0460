package api_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// GET /api/settings answers the defaults before anything was stored; PUT
// stores the normalised settings and answers them; a bad value is a 400
// naming its field, and changes nothing.
func TestSettingsAPI(t *testing.T) {
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
		"blocked_authors":["Spammer"],"blocked_phrases":["scam coin"],"caps":{"sends_per_3h":4,"sends_per_day":20}}`)
	if status != 200 {
		t.Fatalf("PUT /api/settings: %d %s", status, body)
	}
	want := settings.DefaultCaps()
	want.SendsPer3Hours, want.SendsPerDay = 4, 20
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
		{name: "window over the day", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_3h":60,"sends_per_day":50}}`, wantField: "caps.sends_per_3h"},
		{name: "threshold", body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"near_duplicate":2}}`, wantField: "caps.near_duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("PUT", "/api/settings", e.token, tt.body)
			var out struct{ Error, Field string }
			if err := json.Unmarshal([]byte(body), &out); err != nil || status != 400 || out.Field != tt.wantField {
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
