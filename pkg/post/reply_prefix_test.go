package post

import "testing"

func TestPrefixReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, platform, author, text, want string
	}{
		{"mastodon prefixed", MastodonPlatform, "alice@m.example", "burn", "@alice@m.example burn"},
		{"mastodon already prefixed", MastodonPlatform, "alice", "@alice burn", "@alice burn"},
		{"mastodon prefix then a line", MastodonPlatform, "alice", "@alice\nburn", "@alice\nburn"},
		{"mastodon another mention first", MastodonPlatform, "alice", "@alicia burn", "@alice @alicia burn"},
		{"mastodon no author", MastodonPlatform, "", "burn", "burn"},
		{"x never prefixed", XPlatform, "alice", "burn", "burn"},
		{"bluesky never prefixed", BlueskyPlatform, "alice.bsky.social", "burn", "burn"},
	}
	for _, tt := range tests {
		if got := PrefixReply(tt.platform, tt.author, tt.text); got != tt.want {
			t.Errorf("%s: PrefixReply = %q, want %q", tt.name, got, tt.want)
		}
	}
	profile := Post{Platform: MastodonPlatform, Source: SourceProfile, AuthorUsername: "alice"}
	if got := ReplyText(profile, "burn"); got != "burn" {
		t.Errorf("a profile post: %q", got)
	}
	reply := Post{Platform: MastodonPlatform, Source: SourceMention, AuthorUsername: "alice"}
	if got := ReplyText(reply, "burn"); got != "@alice burn" {
		t.Errorf("a reply: %q", got)
	}
	// The prefix counts: 500 characters of text are over the limit once prefixed.
	long := make([]byte, 500)
	for i := range long {
		long[i] = 'a'
	}
	if err := CheckResponseFor(MastodonPlatform, 0, ReplyText(reply, string(long))); err == nil {
		t.Error("500 characters and the @alice prefix passed the 500 limit")
	}
}
