package post_test

import (
	"testing"

	"infernal/pkg/post"
)

func TestParseRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{ref: "1790000000000000001", want: "1790000000000000001", ok: true},
		{ref: "  42 ", want: "42", ok: true},
		{ref: "https://x.com/mortal/status/1790000000000000001", want: "1790000000000000001", ok: true},
		{ref: "https://twitter.com/mortal/status/17?s=20", want: "17", ok: true},
		{ref: "x.com/mortal/status/17/photo/1", want: "17", ok: true},
		{ref: "https://mobile.twitter.com/i/web/status/99", want: "99", ok: true},
		{ref: "HTTPS://X.COM/mortal/status/5", want: "5", ok: true},
		{ref: "", ok: false},
		{ref: "-1", ok: false},
		{ref: "12a", ok: false},
		{ref: "123456789012345678901", ok: false},
		{ref: "https://evil.example/mortal/status/17", ok: false},
		{ref: "https://x.com/mortal", ok: false},
		{ref: "https://x.com/mortal/status/abc", ok: false},
		{ref: "https://user@x.com/mortal/status/17", ok: false},
		{ref: "javascript:alert(1)", ok: false},
		{ref: "ftp://x.com/m/status/1", ok: false},
		{ref: "https://x.com/status/", ok: false},
		{ref: "\x00\xff", ok: false},
	}
	for _, tt := range tests {
		got, ok := post.ParseRef(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRef(%q) = %q, %v; want %q, %v", tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseBlueskyRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{ref: "at://did:plc:abc234/app.bsky.feed.post/3kq2xyzab7c2d", want: "at://did:plc:abc234/app.bsky.feed.post/3kq2xyzab7c2d", ok: true},
		{ref: " https://bsky.app/profile/did:plc:abc234/post/3kq2x ", want: "at://did:plc:abc234/app.bsky.feed.post/3kq2x", ok: true},
		{ref: "bsky.app/profile/Mortal.Test/post/3kq2x", want: "at://mortal.test/app.bsky.feed.post/3kq2x", ok: true},
		{ref: "https://BSKY.APP/profile/mortal.test/post/3kq2x?ref=share", want: "at://mortal.test/app.bsky.feed.post/3kq2x", ok: true},
		{ref: "at://did:plc:abc234/app.bsky.feed.like/3kq2x", ok: false},
		{ref: "at://did:plc:abc234/app.bsky.feed.post/", ok: false},
		{ref: "at://did:plc:abc234/app.bsky.feed.post/a/b", ok: false},
		{ref: "at://mortal/app.bsky.feed.post/3kq2x", ok: false},
		{ref: "at://did:plc:abc234/app.bsky.feed.post/..", ok: false},
		{ref: "https://bsky.app/profile/mortal.test", ok: false},
		{ref: "https://evil.example/profile/mortal.test/post/3kq2x", ok: false},
		{ref: "https://user@bsky.app/profile/mortal.test/post/3kq2x", ok: false},
		{ref: "https://bsky.app/profile/mortal.test/post/3k<q", ok: false},
		{ref: "javascript:alert(1)", ok: false},
		{ref: "17", ok: false},
		{ref: "", ok: false},
	}
	for _, tt := range tests {
		got, ok := post.ParseBlueskyRef(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseBlueskyRef(%q) = %q, %v; want %q, %v", tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}
