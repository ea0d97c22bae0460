package post

import (
	"strings"
	"testing"
)

func TestSafeURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		raw       string
		allowHTTP bool
		want      string
	}{
		{name: "x avatar", raw: "https://pbs.twimg.com/profile_images/1/abc_normal.jpg", want: "https://pbs.twimg.com/profile_images/1/abc_normal.jpg"},
		{name: "x media with query", raw: "https://pbs.twimg.com/media/F1.jpg?format=jpg&name=small", want: "https://pbs.twimg.com/media/F1.jpg?format=jpg&name=small"},
		{name: "upper-case scheme", raw: "HTTPS://pbs.twimg.com/a.jpg", want: "https://pbs.twimg.com/a.jpg"},
		{name: "https with port", raw: "https://media.example:8443/a.png", want: "https://media.example:8443/a.png"},
		{name: "http on x", raw: "http://pbs.twimg.com/a.jpg", want: ""},
		{name: "http on the sandbox", raw: "http://127.0.0.1:8080/a.png", allowHTTP: true, want: "http://127.0.0.1:8080/a.png"},
		{name: "empty", raw: "", want: ""},
		{name: "javascript", raw: "javascript:alert(document.cookie)", want: ""},
		{name: "javascript on the sandbox", raw: "javascript:alert(1)", allowHTTP: true, want: ""},
		{name: "javascript mixed case", raw: "JaVaScRiPt:alert(1)", want: ""},
		{name: "javascript with a tab", raw: "java\tscript:alert(1)", want: ""},
		{name: "javascript looking like a host", raw: "javascript://pbs.twimg.com/%0aalert(1)", want: ""},
		{name: "data image", raw: "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", want: ""},
		{name: "data html", raw: "data:text/html,<script>alert(1)</script>", want: ""},
		{name: "vbscript", raw: "vbscript:msgbox(1)", want: ""},
		{name: "file", raw: "file:///etc/passwd", want: ""},
		{name: "ftp", raw: "ftp://pbs.twimg.com/a.jpg", want: ""},
		{name: "relative path", raw: "/diaries666op/queues", want: ""},
		{name: "relative name", raw: "avatar.png", want: ""},
		{name: "protocol-relative", raw: "//evil.example/a.png", want: ""},
		{name: "no host", raw: "https:///a.png", want: ""},
		{name: "scheme only", raw: "https:", want: ""},
		{name: "opaque https", raw: "https:pbs.twimg.com/a.jpg", want: ""},
		{name: "user info", raw: "https://user:pass@pbs.twimg.com/a.jpg", want: ""},
		{name: "leading space", raw: " https://pbs.twimg.com/a.jpg", want: ""},
		{name: "newline inside", raw: "https://pbs.twimg.com/a\n.jpg", want: ""},
		{name: "NUL inside", raw: "https://pbs.twimg.com/a\x00.jpg", want: ""},
		{name: "garbage", raw: "ht!tp://%%%", want: ""},
		{name: "bad escape", raw: "https://pbs.twimg.com/%zz", want: ""},
		{name: "too long", raw: "https://pbs.twimg.com/" + strings.Repeat("a", 3000), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeURL(tt.raw, tt.allowHTTP); got != tt.want {
				t.Errorf("SafeURL(%q, %v) = %q, want %q", tt.raw, tt.allowHTTP, got, tt.want)
			}
		})
	}
}

func TestSafePageURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		raw       string
		allowHTTP bool
		want      string
	}{
		{name: "https", raw: "https://mastodon.social/@alice/113", want: "https://mastodon.social/@alice/113"},
		{name: "http elsewhere", raw: "http://mastodon.example/@alice/113", want: ""},
		{name: "http on 127.0.0.1", raw: "http://127.0.0.1:3000/@alice/113", want: "http://127.0.0.1:3000/@alice/113"},
		{name: "http on localhost", raw: "http://localhost/@alice/1", want: "http://localhost/@alice/1"},
		{name: "http on ::1", raw: "http://[::1]:8080/@a/1", want: "http://[::1]:8080/@a/1"},
		{name: "http on a name that looks local", raw: "http://127.0.0.1.evil.example/@a/1", want: ""},
		{name: "http on the sandbox", raw: "http://sandbox.example/p/1", allowHTTP: true, want: "http://sandbox.example/p/1"},
		{name: "javascript", raw: "javascript:alert(1)", want: ""},
		{name: "user info on loopback", raw: "http://u:p@127.0.0.1/@a/1", want: ""},
		{name: "garbage", raw: "%%", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafePageURL(tt.raw, tt.allowHTTP); got != tt.want {
				t.Errorf("SafePageURL(%q) = %q, want %q", tt.raw, got, tt.want)
			}
		})
	}
}
