package post_test

import (
	"strings"
	"testing"

	"infernal/pkg/post"
)

func TestDescriptorsAreWhole(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range post.Descriptors() {
		if d.Name == "" || d.Label == "" || d.MaxLength <= 0 || d.Length == "" || d.AccountSyntax == "" {
			t.Errorf("descriptor %+v lacks a name, label, length rule, limit or account syntax", d)
		}
		if seen[d.Name] {
			t.Errorf("platform %q is in the table twice", d.Name)
		}
		seen[d.Name] = true
		if _, ok := post.Describe(d.Name); !ok || !post.ValidPlatform(d.Name) {
			t.Errorf("Describe(%q) does not find it", d.Name)
		}
	}
	if _, ok := post.Describe("twitter"); ok {
		t.Error("Describe(twitter) found a platform")
	}
}

func TestDescriptorOfUnknown(t *testing.T) {
	t.Parallel()
	d := post.DescriptorOf("gone")
	if d.Label != "gone" || d.MaxLength != 280 || d.WebURL("a", "1") != "" || d.PlainHTTP {
		t.Errorf("DescriptorOf(gone) = %+v, want X's counting, no pages, no http", d)
	}
	if got := post.Label("bluesky"); got != "Bluesky" {
		t.Errorf("Label(bluesky) = %q", got)
	}
}

func TestDescriptorParseRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		platform, ref, want string
		ok                  bool
	}{
		{platform: "x", ref: "https://x.com/a/status/123", want: "123", ok: true},
		{platform: "sandbox", ref: "123", want: "123", ok: true},
		{platform: "bluesky", ref: "https://bsky.app/profile/did:plc:abc/post/3kq", want: "at://did:plc:abc/app.bsky.feed.post/3kq", ok: true},
		{platform: "bluesky", ref: "123"},
		{platform: "x", ref: "at://did:plc:abc/app.bsky.feed.post/3kq"},
		{platform: "nowhere", ref: "123"},
	}
	for _, tt := range tests {
		got, ok := post.DescriptorOf(tt.platform).ParseRef(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s.ParseRef(%q) = %q, %v; want %q, %v", tt.platform, tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDescriptorOwnsWindow(t *testing.T) {
	t.Parallel()
	tests := []struct{ platform, endpoint string }{
		{"x", "GET /2/users/me"},
		{"x", "POST /2/tweets (24h user)"},
		{"bluesky", "bluesky createRecord"},
	}
	for _, tt := range tests {
		for _, d := range post.Descriptors() {
			if got, want := d.OwnsWindow(tt.endpoint), d.Name == tt.platform; got != want {
				t.Errorf("%s.OwnsWindow(%q) = %v, want %v", d.Name, tt.endpoint, got, want)
			}
		}
	}
	if post.Billed() != "x" {
		t.Errorf("Billed = %q, want x", post.Billed())
	}
}

func TestDescriptorRefAuthor(t *testing.T) {
	t.Parallel()
	d := post.DescriptorOf("bluesky")
	handle, with, ok := d.RefAuthor("at://alice.test/app.bsky.feed.post/3kq")
	if !ok || handle != "alice.test" || with("did:plc:abc") != "at://did:plc:abc/app.bsky.feed.post/3kq" {
		t.Errorf("RefAuthor = %q, %v", handle, ok)
	}
	if _, _, ok := d.RefAuthor("at://did:plc:abc/app.bsky.feed.post/3kq"); ok {
		t.Error("RefAuthor split a URI named by its DID")
	}
	if _, _, ok := post.DescriptorOf("x").RefAuthor("123"); ok {
		t.Error("X's references name no author")
	}
}

func TestCheckResponseForRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		platform, text string
		ok             bool
	}{
		{"bluesky", "é", true},
		{"x", "\uFFFE", false},
		{"bluesky", "   ", false},
	}
	for _, tt := range tests {
		if err := post.CheckResponseFor(tt.platform, 0, tt.text); (err == nil) != tt.ok {
			t.Errorf("CheckResponseFor(%s, %q) = %v, want ok %v", tt.platform, tt.text, err, tt.ok)
		}
	}
}

func TestMastodonLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want int
	}{
		{"hello", 5},
		{"see https://example.com/" + strings.Repeat("a", 100), 4 + 23},
		{"@alice@mastodon.social hi", len("@alice hi")},
		{"日本語👩‍👩‍👧", 3 + 5},
	}
	for _, tt := range tests {
		if got := post.LengthFor("mastodon", tt.text); got != tt.want {
			t.Errorf("LengthFor(mastodon, %q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	if post.MaxLengthFor("mastodon") != 500 {
		t.Errorf("MaxLengthFor(mastodon) = %d", post.MaxLengthFor("mastodon"))
	}
}

func TestParseMastodonRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{"https://mastodon.social/@alice/113000000000000001", "113000000000000001", true},
		{"mastodon.social/@alice@other.example/42", "42", true},
		{"https://mastodon.social/users/alice/statuses/42", "42", true},
		{"42", "", false},
		{"https://mastodon.social/@alice", "", false},
		{"https://mastodon.social/@/42", "", false},
		{"javascript:alert(1)", "", false},
	}
	for _, tt := range tests {
		got, ok := post.ParseMastodonRef(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseMastodonRef(%q) = %q, %v", tt.ref, got, ok)
		}
	}
}
