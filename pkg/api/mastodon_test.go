package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// A post's answer names its web page (the one its platform named, else
// its descriptor's, "" where there is none), its content warning, and the
// limit of its response: on Mastodon the server's limit its draft was
// written under, less the warning its reply carries; the approval and the
// edit keep to it, and the import to the platform's latest.
func TestPostPageWarningAndLimit(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) { c.Platforms = []string{"sandbox", "x", "mastodon"} })
	ctx := context.Background()
	add := func(p post.Post, maxLength int) int64 {
		t.Helper()
		p.Source, p.CreatedAt, p.OriginalPostText = post.SourceMention, time.Now(), "@devil hello"
		rowID, _, err := e.store.UpsertFound(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		text := post.ReplyText(p, "burn")
		if err := e.store.SaveDraft(ctx, rowID, store.Draft{Response: text, Category: "wrath", MaxLength: maxLength}); err != nil {
			t.Fatal(err)
		}
		return rowID
	}
	warned := add(post.Post{Platform: "mastodon", OriginalPostID: "113", AuthorUsername: "alice@m.example",
		ContentWarning: "film ending", WebURL: "https://m.example/@alice/113"}, 1000)
	plain := add(post.Post{Platform: "mastodon", OriginalPostID: "114", AuthorUsername: "bob", WebURL: "javascript:alert(1)"}, 0)
	onX := add(post.Post{Platform: "x", OriginalPostID: "1900000000000000001", AuthorUsername: "maria"}, 0)
	sandbox := add(post.Post{Platform: "sandbox", OriginalPostID: "42", AuthorUsername: "devilish"}, 0)

	status, body := e.do("GET", "/api/posts/mentions?limit=50", e.token, "")
	var list struct {
		Posts []struct {
			ID             int64  `json:"id"`
			URL            string `json:"url"`
			ContentWarning string `json:"content_warning"`
			MaxLength      int    `json:"max_length"`
		} `json:"posts"`
	}
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil {
		t.Fatalf("mentions: %d %s", status, body)
	}
	type view struct {
		url, warning string
		max          int
	}
	got := map[int64]view{}
	for _, p := range list.Posts {
		got[p.ID] = view{p.URL, p.ContentWarning, p.MaxLength}
	}
	tests := []struct {
		name string
		id   int64
		want view
	}{
		{name: "mastodon behind a warning, the server's limit", id: warned, want: view{"https://m.example/@alice/113", "film ending", 989}},
		{name: "mastodon, an unsafe page, the default limit", id: plain, want: view{"", "", 500}},
		{name: "x by its descriptor", id: onX, want: view{"https://x.com/maria/status/1900000000000000001", "", 280}},
		{name: "the sandbox has no page", id: sandbox, want: view{"", "", 280}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got[tt.id] != tt.want {
				t.Errorf("answer %+v, want %+v", got[tt.id], tt.want)
			}
		})
	}

	// 989 less "@alice@m.example " (7): 982 characters fit, 983 do not.
	for _, tt := range []struct {
		name, path string
		n, want    int
	}{
		{name: "edit over", path: "/edit", n: 983, want: 422},
		{name: "approve over", path: "/approve", n: 983, want: 422},
		{name: "approve within", path: "/approve", n: 982, want: 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", "/api/posts/"+id(warned)+tt.path, e.token, `{"response":"`+strings.Repeat("a", tt.n)+`"}`)
			if status != tt.want || (tt.want == 422 && !strings.Contains(body, "it must be 1 to 989")) {
				t.Errorf("%d %s, want %d", status, body, tt.want)
			}
		})
	}

	// An imported Mastodon reply keeps to the latest limit, the server's 1000.
	lines := `{"mention":"a","reply":"` + strings.Repeat("b", 900) + `","platform":"mastodon"}` + "\n" +
		`{"mention":"a","reply":"` + strings.Repeat("b", 1001) + `","platform":"mastodon"}`
	status, body = e.importNDJSON("application/x-ndjson", lines)
	if status != 200 || !strings.Contains(body, `"imported":1`) || !strings.Contains(body, "it must be 1 to 1000") {
		t.Errorf("import: %d %s", status, body)
	}
}

// A context post's warning comes back with it.
func TestConversationWarning(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) { c.Platforms = []string{"sandbox", "mastodon"} })
	ctx := context.Background()
	if err := e.store.SaveContextPosts(ctx, []store.ContextPost{{Platform: "mastodon", PlatformPostID: "1", AuthorUsername: "elder",
		Text: "the parent", ContentWarning: "politics"}}); err != nil {
		t.Fatal(err)
	}
	pid, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "mastodon", Source: post.SourceMention, OriginalPostID: "2",
		ConversationID: "1", InReplyToID: "1", OriginalPostText: "@devil agreed", AuthorUsername: "m", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/posts/"+id(pid)+"/context", e.token, "")
	var c struct {
		Items []struct {
			ContentWarning string `json:"content_warning"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil || len(c.Items) != 1 || c.Items[0].ContentWarning != "politics" {
		t.Fatalf("context: %d %s %v", status, body, err)
	}
}

// A lookup's q that no running platform reads is a 400 naming what a
// reference may be on each running platform (post.Descriptor.RefForm), and
// nothing of the others; a Mastodon address is read where Mastodon runs.
func TestLookupNamesTheRunningPlatformsForms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		platforms []string
		want      string
	}{
		{[]string{"sandbox"}, `"q must be a post's id"`},
		{[]string{"x"}, `"q must be a post's id or its address on X (https://x.com/\u003cuser\u003e/status/\u003cid\u003e)"`},
		{[]string{"x", "bluesky", "mastodon"}, `"q must be a post's id or its address on X (https://x.com/\u003cuser\u003e/status/\u003cid\u003e) or on Bluesky (https://bsky.app/profile/\u003chandle\u003e/post/\u003ckey\u003e or at://…) or on Mastodon (https://\u003cserver\u003e/@\u003cuser\u003e/\u003cid\u003e)"`},
		{[]string{"sandbox", "mastodon"}, `"q must be a post's id or its address on Mastodon (https://\u003cserver\u003e/@\u003cuser\u003e/\u003cid\u003e)"`},
	} {
		e := setupWith(t, func(c *api.Config) { c.Platforms = tt.platforms })
		if status, body := e.do("GET", "/api/mentions/lookup?q=not+a+post", e.token, ""); status != 400 || !strings.Contains(body, tt.want) {
			t.Errorf("%v: %d %s, want 400 with %s", tt.platforms, status, body, tt.want)
		}
	}
	e := setupWith(t, func(c *api.Config) { c.Platforms = []string{"x", "mastodon"} })
	if status, body := e.do("GET", "/api/mentions/lookup?q=https://social.example/@alice/1234", e.token, ""); status != 200 || !strings.Contains(body, `"seen":false`) {
		t.Errorf("a Mastodon address: %d %s, want 200 unseen", status, body)
	}
}
