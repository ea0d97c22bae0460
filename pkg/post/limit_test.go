package post_test

import (
	"strings"
	"testing"

	"infernal/pkg/post"
)

func TestLengthFor(t *testing.T) {
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
