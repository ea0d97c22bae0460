package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// settings.platforms (the options of post.Descriptor.Options) round-trips;
// absent, it keeps the stored options, and a platform left out keeps its
// own; a value that is not a boolean, a missing option, an option or a
// platform the table does not have is a 400 naming it.
func TestPlatformOptions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	base := `"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}`
	for _, tt := range []struct{ platforms, field string }{
		{`{"mastodon":{"reply_to_direct":"yes"}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":1}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":"true"}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":null}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":[true]}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":true,"direct":true}}`, "platforms.mastodon.direct"},
		{`{"mastodon":{"reply_to_direct":true,"reply_to_direct":false}}`, "platforms.mastodon.reply_to_direct"},
		{`{"mastodon":{"reply_to_direct":true},"mastodon":{"reply_to_direct":true}}`, "platforms.mastodon"},
		{`{"mastodon":true}`, "platforms.mastodon"},
		{`{"mastodon":null}`, "platforms.mastodon"},
		{`{"x":{"reply_to_direct":true}}`, "platforms.x"},
		{`{"friendica":{"reply_to_direct":true}}`, "platforms.friendica"},
		{`{"":{}}`, "platforms."},
		{`true`, "platforms"},
		{`null`, "platforms"},
		{`[]`, "platforms"},
	} {
		status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"platforms":`+tt.platforms+`}`)
		if f := learnFieldOf(t, status, body); f != tt.field {
			t.Errorf("%s: field %q, want %q (%s)", tt.platforms, f, tt.field, body)
		}
	}
	if status, body := e.do("GET", "/api/settings", e.token, ""); status != 200 || !strings.Contains(body, `"platforms":{"mastodon":{"reply_to_direct":false}}`) {
		t.Fatalf("default (refused PUTs changed nothing): %d %s", status, body)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"platforms":{"mastodon":{"reply_to_direct":true}}}`); status != 200 ||
		!strings.Contains(body, `"platforms":{"mastodon":{"reply_to_direct":true}}`) {
		t.Fatalf("put: %d %s", status, body)
	}
	// An older client that knows nothing of platform options keeps them as
	// stored; so does one that names no platform.
	for _, absent := range []string{`{` + base + `}`, `{` + base + `,"platforms":{}}`} {
		status, body := e.do("PUT", "/api/settings", e.token, absent)
		if status != 200 || !strings.Contains(body, `"platforms":{"mastodon":{"reply_to_direct":true}}`) {
			t.Fatalf("%s keeps: %d %s", absent, status, body)
		}
	}
	var got struct {
		Platforms map[string]map[string]*bool `json:"platforms"`
	}
	if status, body := e.do("GET", "/api/settings", e.token, ""); status != 200 || json.Unmarshal([]byte(body), &got) != nil ||
		len(got.Platforms) != 1 || got.Platforms["mastodon"]["reply_to_direct"] == nil || !*got.Platforms["mastodon"]["reply_to_direct"] {
		t.Fatalf("GET after: %d %s", status, body)
	}
	if status, body := e.do("PUT", "/api/settings", e.token, `{`+base+`,"platforms":{"mastodon":{"reply_to_direct":false}}}`); status != 200 ||
		!strings.Contains(body, `"platforms":{"mastodon":{"reply_to_direct":false}}`) {
		t.Fatalf("switched off: %d %s", status, body)
	}
}
