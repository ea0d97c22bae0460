package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// settings.mastodon round-trips; an absent one keeps the stored; a value
// that is not a boolean, or a missing reply_to_direct, is a 400 naming
// mastodon.reply_to_direct; anything else inside is a 400 naming it.
func TestMastodonSettings(t *testing.T) {
	t.Parallel()
	e := setup(t)
	base := `"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}`
	for _, tt := range []struct{ mastodon, field string }{
		{`{"reply_to_direct":"yes"}`, "mastodon.reply_to_direct"},
		{`{"reply_to_direct":1}`, "mastodon.reply_to_direct"},
		{`{"reply_to_direct":"true"}`, "mastodon.reply_to_direct"},
		{`{"reply_to_direct":null}`, "mastodon.reply_to_direct"},
		{`{"reply_to_direct":[true]}`, "mastodon.reply_to_direct"},
		{`{}`, "mastodon.reply_to_direct"},
		{`{"reply_to_direct":true,"direct":true}`, "mastodon.direct"},
		{`{"reply_to_direct":true,"reply_to_direct":false}`, "mastodon.reply_to_direct"},
		{`true`, "mastodon"},
		{`null`, "mastodon"},
		{`[]`, "mastodon"},
	} {
		status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"mastodon":`+tt.mastodon+`}`)
		if f := learnFieldOf(t, status, body); f != tt.field {
			t.Errorf("%s: field %q, want %q (%s)", tt.mastodon, f, tt.field, body)
		}
	}
	if status, body := e.do("GET", "/api/settings", e.token, ""); status != 200 || !strings.Contains(body, `"mastodon":{"reply_to_direct":false}`) {
		t.Fatalf("default (refused PUTs changed nothing): %d %s", status, body)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"mastodon":{"reply_to_direct":true}}`); status != 200 ||
		!strings.Contains(body, `"mastodon":{"reply_to_direct":true}`) {
		t.Fatalf("put: %d %s", status, body)
	}
	// An older client that knows nothing of Mastodon keeps it as stored.
	status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`}`)
	if status != 200 || !strings.Contains(body, `"mastodon":{"reply_to_direct":true}`) {
		t.Fatalf("absent keeps: %d %s", status, body)
	}
	var got struct {
		Mastodon struct {
			ReplyToDirect *bool `json:"reply_to_direct"`
		} `json:"mastodon"`
	}
	if status, body := e.do("GET", "/api/settings", e.token, ""); status != 200 || json.Unmarshal([]byte(body), &got) != nil ||
		got.Mastodon.ReplyToDirect == nil || !*got.Mastodon.ReplyToDirect {
		t.Fatalf("GET after: %d %s", status, body)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"mastodon":{"reply_to_direct":false}}`); status != 200 ||
		!strings.Contains(body, `"mastodon":{"reply_to_direct":false}`) {
		t.Fatalf("switched off: %d %s", status, body)
	}
}
