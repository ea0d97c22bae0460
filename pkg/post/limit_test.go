package post_test

import (
	"errors"
	"strings"
	"testing"

	"infernal/pkg/post"
)

func TestLengthFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, platform, text string
		want, max            int
	}{
		{name: "x counts weighted", platform: "x", text: "日本", want: 4, max: 280},
		{name: "sandbox counts as x", platform: post.SandboxPlatform, text: "abc", want: 3, max: 280},
		{name: "bluesky counts graphemes", platform: post.BlueskyPlatform, text: "日本👩‍👩‍👧", want: 3, max: 300},
		{name: "bluesky at its limit", platform: post.BlueskyPlatform, text: strings.Repeat("é", 300), want: 300, max: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := post.LengthFor(tt.platform, tt.text); got != tt.want {
				t.Errorf("LengthFor = %d, want %d", got, tt.want)
			}
			if got := post.MaxLengthFor(tt.platform); got != tt.max {
				t.Errorf("MaxLengthFor = %d, want %d", got, tt.max)
			}
		})
	}
}

func TestWebURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, platform, handle, id, want string
	}{
		{name: "x", platform: "x", handle: "infernal_ai", id: "1900000000000000001", want: "https://x.com/infernal_ai/status/1900000000000000001"},
		{name: "x id not digits", platform: "x", handle: "infernal_ai", id: "19/../x", want: ""},
		{name: "x no id", platform: "x", handle: "infernal_ai", id: "", want: ""},
		{name: "bluesky", platform: "bluesky", id: "at://did:plc:abc123/app.bsky.feed.post/3kq2x", want: "https://bsky.app/profile/did:plc:abc123/post/3kq2x"},
		{name: "bluesky another collection", platform: "bluesky", id: "at://did:plc:abc123/app.bsky.feed.like/3kq2x", want: ""},
		{name: "bluesky not a did", platform: "bluesky", id: "at://alice.test/app.bsky.feed.post/3kq2x", want: ""},
		{name: "bluesky garbage", platform: "bluesky", id: "https://evil.example/", want: ""},
		{name: "sandbox has no page", platform: post.SandboxPlatform, handle: "devil", id: "42", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := post.WebURL(tt.platform, tt.handle, tt.id); got != tt.want {
				t.Errorf("WebURL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHandlesOn(t *testing.T) {
	t.Parallel()
	h := post.Handles{"bluesky": "devil.bsky.social"}
	tests := []struct{ platform, want string }{
		{platform: "bluesky", want: "devil.bsky.social"},
		{platform: "x", want: "devil"},
		{platform: "", want: "devil"},
	}
	for _, tt := range tests {
		if got := h.On(tt.platform, "devil"); got != tt.want {
			t.Errorf("On(%q) = %q, want %q", tt.platform, got, tt.want)
		}
	}
	if got := post.Handles(nil).On("bluesky", "devil"); got != "devil" {
		t.Errorf("nil Handles: On = %q, want devil", got)
	}
}

func TestPostLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    post.Post
		want int
	}{
		{name: "x by its descriptor", p: post.Post{Platform: "x", Source: post.SourceMention}, want: 280},
		{name: "bluesky by its descriptor", p: post.Post{Platform: "bluesky", Source: post.SourceMention}, want: 300},
		{name: "mastodon default", p: post.Post{Platform: "mastodon", Source: post.SourceMention}, want: 500},
		{name: "mastodon server's limit", p: post.Post{Platform: "mastodon", Source: post.SourceMention, MaxLength: 5000}, want: 5000},
		{name: "mastodon warning counts", p: post.Post{Platform: "mastodon", Source: post.SourceMention, MaxLength: 1000, ContentWarning: "film ending"}, want: 989},
		{name: "mastodon warning counted by its rule", p: post.Post{Platform: "mastodon", Source: post.SourceConversation, ContentWarning: "see https://example.com/" + strings.Repeat("a", 60)}, want: 500 - 27},
		{name: "mastodon profile post carries no warning", p: post.Post{Platform: "mastodon", Source: post.SourceProfile, ContentWarning: "cw"}, want: 500},
		{name: "x carries no warning", p: post.Post{Platform: "x", Source: post.SourceMention, ContentWarning: "cw"}, want: 280},
		{name: "never below zero", p: post.Post{Platform: "mastodon", Source: post.SourceMention, MaxLength: 3, ContentWarning: "long warning"}, want: 0},
		{name: "negative stored limit is the default", p: post.Post{Platform: "mastodon", Source: post.SourceMention, MaxLength: -1}, want: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Limit(); got != tt.want {
				t.Errorf("Limit = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCheckReply(t *testing.T) {
	t.Parallel()
	reply := post.Post{Platform: "mastodon", Source: post.SourceMention, AuthorUsername: "alice", MaxLength: 1000}
	warned := reply
	warned.ContentWarning = strings.Repeat("w", 100)
	tests := []struct {
		name   string
		p      post.Post
		text   string
		ok     bool
		wantAt int // the *LengthError's Max, when refused
	}{
		{name: "within the server's limit", p: reply, text: strings.Repeat("a", 900), ok: true},
		{name: "over the server's limit with its prefix", p: reply, text: strings.Repeat("a", 994), wantAt: 1000},
		{name: "the warning takes its share", p: warned, text: strings.Repeat("a", 893), ok: true},
		{name: "over once the warning counts", p: warned, text: strings.Repeat("a", 894), wantAt: 900},
		{name: "x at 280", p: post.Post{Platform: "x", Source: post.SourceMention}, text: strings.Repeat("a", 281), wantAt: 280},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := post.CheckReply(tt.p, tt.text)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckReply: %v", err)
				}
				return
			}
			var le *post.LengthError
			if !errors.As(err, &le) || le.Max != tt.wantAt {
				t.Fatalf("CheckReply = %v, want a *LengthError of at most %d", err, tt.wantAt)
			}
		})
	}
}

func TestPageURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    post.Post
		want string
	}{
		{name: "x by its descriptor", p: post.Post{Platform: "x", AuthorUsername: "maria", OriginalPostID: "1900000000000000001"}, want: "https://x.com/maria/status/1900000000000000001"},
		{name: "bluesky by its descriptor", p: post.Post{Platform: "bluesky", OriginalPostID: "at://did:plc:abc/app.bsky.feed.post/3k"}, want: "https://bsky.app/profile/did:plc:abc/post/3k"},
		{name: "mastodon's kept url", p: post.Post{Platform: "mastodon", OriginalPostID: "113", WebURL: "https://m.example/@alice/113"}, want: "https://m.example/@alice/113"},
		{name: "mastodon without a kept url", p: post.Post{Platform: "mastodon", OriginalPostID: "113"}, want: ""},
		{name: "mastodon http refused", p: post.Post{Platform: "mastodon", OriginalPostID: "113", WebURL: "http://m.example/@alice/113"}, want: ""},
		{name: "mastodon http on loopback", p: post.Post{Platform: "mastodon", OriginalPostID: "113", WebURL: "http://127.0.0.1:3000/@alice/113"}, want: "http://127.0.0.1:3000/@alice/113"},
		{name: "javascript kept url falls back", p: post.Post{Platform: "x", AuthorUsername: "maria", OriginalPostID: "19", WebURL: "javascript:alert(1)"}, want: "https://x.com/maria/status/19"},
		{name: "a profile post has none", p: post.Post{Platform: "x", Source: post.SourceProfile, AuthorUsername: "infernal"}, want: ""},
		{name: "sandbox has none", p: post.Post{Platform: "sandbox", AuthorUsername: "devil", OriginalPostID: "42"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.PageURL(); got != tt.want {
				t.Errorf("PageURL = %q, want %q", got, tt.want)
			}
		})
	}
}
