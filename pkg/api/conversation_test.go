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

type contextBody struct {
	Items []struct {
		Relation       string     `json:"relation"`
		AuthorUsername string     `json:"author_username"`
		Text           string     `json:"text"`
		CreatedAt      *time.Time `json:"created_at"`
		PlatformPostID string     `json:"platform_post_id"`
	} `json:"items"`
	Note string `json:"note"`
}

// The card's conversation is read from the database: the thread oldest
// first with the persona's own post marked, then the quoted post.
func TestConversationContext(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	at := func(m int) *time.Time { t := time.Date(2026, 11, 25, 10, m, 0, 0, time.UTC); return &t }
	err := e.store.SaveContextPosts(ctx, []store.ContextPost{
		{Platform: "sandbox", PlatformPostID: "1", AuthorUsername: "root", Text: "is coffee a sin?", CreatedAt: at(1)},
		{Platform: "sandbox", PlatformPostID: "2", InReplyToID: "1", AuthorUsername: "devil", Text: "only the decaf", CreatedAt: at(2)},
		{Platform: "sandbox", PlatformPostID: "3", InReplyToID: "2", AuthorUsername: "near", Text: "</fence> <script>alert(1)</script>", CreatedAt: at(3)},
		{Platform: "sandbox", PlatformPostID: "9", AuthorUsername: "quoted_one", Text: "the quoted words", CreatedAt: at(0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	pid, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "4",
		ConversationID: "1", InReplyToID: "3", QuotedID: "9", OriginalPostText: "@devil thoughts?", AuthorUsername: "m", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/posts/"+id(pid)+"/context", e.token, "")
	if status != 200 {
		t.Fatalf("context: %d %s", status, body)
	}
	var c contextBody
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range c.Items {
		got = append(got, it.Relation+":"+it.AuthorUsername+":"+it.PlatformPostID)
	}
	if want := "ancestor:root:1 persona:devil:2 parent:near:3 quoted:quoted_one:9"; strings.Join(got, " ") != want {
		t.Errorf("items %q, want %q", strings.Join(got, " "), want)
	}
	if c.Items[2].Text != "</fence> <script>alert(1)</script>" || c.Items[0].CreatedAt == nil || !c.Items[0].CreatedAt.Equal(*at(1)) {
		t.Errorf("item texts and times must come as stored: %+v", c.Items)
	}
	if c.Note != "" {
		t.Errorf("note %q, want none", c.Note)
	}

	// A standalone post has an empty list, not null.
	alone, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "5",
		OriginalPostText: "@devil hi", AuthorUsername: "m", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if status, body := e.do("GET", "/api/posts/"+id(alone)+"/context", e.token, ""); status != 200 || body != `{"items":[],"note":""}`+"\n" {
		t.Errorf("standalone: %d %q", status, body)
	}
	if status, _ := e.do("GET", "/api/posts/424242/context", e.token, ""); status != 404 {
		t.Errorf("unknown post: %d, want 404", status)
	}
	if status, _ := e.do("GET", "/api/posts/"+id(pid)+"/context", "", ""); status != 401 {
		t.Errorf("without a token: %d, want 401", status)
	}
}

// On Bluesky the persona is known by its domain handle: its post in a
// thread there is the persona's, while the same name on another platform
// is a mortal's.
func TestConversationPersonaByPlatformHandle(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) {
		c.Platforms = []string{"x", "bluesky"}
		c.Handles = map[string]string{"bluesky": "devil.bsky.social"}
	})
	ctx := context.Background()
	for _, platform := range []string{"bluesky", "x"} {
		err := e.store.SaveContextPosts(ctx, []store.ContextPost{
			{Platform: platform, PlatformPostID: "1", AuthorUsername: "root", Text: "is coffee a sin?"},
			{Platform: platform, PlatformPostID: "2", InReplyToID: "1", AuthorUsername: "devil.bsky.social", Text: "only the decaf"},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ platform, want string }{
		{platform: "bluesky", want: "ancestor:root persona:devil.bsky.social"},
		{platform: "x", want: "ancestor:root parent:devil.bsky.social"},
	}
	for _, tt := range tests {
		t.Run(tt.platform, func(t *testing.T) {
			pid, _, err := e.store.UpsertFound(ctx, post.Post{Platform: tt.platform, Source: post.SourceMention, OriginalPostID: "3",
				ConversationID: "1", InReplyToID: "2", OriginalPostText: "thoughts?", AuthorUsername: "m", CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			status, body := e.do("GET", "/api/posts/"+id(pid)+"/context", e.token, "")
			if status != 200 {
				t.Fatalf("context: %d %s", status, body)
			}
			var c contextBody
			if err := json.Unmarshal([]byte(body), &c); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range c.Items {
				got = append(got, it.Relation+":"+it.AuthorUsername)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("items %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}
