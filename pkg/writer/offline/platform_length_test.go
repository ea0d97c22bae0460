package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

// The offline writer keeps to each platform's limit as its length rule
// counts it, a Mastodon reply with the "@author " it is sent with: every
// answer, first or shorter, fits the room writer.LengthOf gives, and a
// shorter one is shorter by the platform's count.
func TestWriteKeepsToThePlatformsRule(t *testing.T) {
	t.Parallel()
	inputs := []string{"coffee", "monday", "the void stares back", "今日は雨です", strings.Repeat("🔥", 300),
		strings.Repeat("https://example.com/very/long/path?with=query ", 10), strings.Repeat("漢字", 200)}
	for i := 0; i < 40; i++ {
		inputs = append(inputs, fmt.Sprintf("mortal post %d: %s", i, strings.Repeat("word ", i)))
	}
	tests := []struct {
		name     string
		platform string
		max      int
		author   string
	}{
		{name: "x", platform: "x", author: "someone"},
		{name: "sandbox", platform: "sandbox", author: "someone"},
		{name: "bluesky", platform: "bluesky", author: "someone.bsky.social"},
		{name: "mastodon", platform: "mastodon", author: "someone@far.away.example"},
		{name: "mastodon, a small server limit", platform: "mastodon", max: 150, author: "someone"},
	}
	w := New("infernal_ai")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, in := range inputs {
				for _, kind := range []writer.Kind{writer.KindReply, writer.KindProfile} {
					req := writer.Request{Kind: kind, Persona: "infernal_ai", PostText: in, Author: tt.author, Platform: tt.platform, MaxLength: tt.max}
					l := writer.LengthOf(req)
					limit := tt.max
					if limit == 0 {
						limit = post.MaxLengthFor(tt.platform)
					}
					d, err := w.Write(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					sent := d.Text
					if kind == writer.KindReply {
						sent = post.PrefixReply(tt.platform, tt.author, sent)
					}
					if n := post.LengthFor(tt.platform, sent); n > limit || l.Count(d.Text) > l.Room {
						t.Errorf("%s %q: %q counts %d sent (limit %d), %d alone (room %d)", kind, in, d.Text, n, limit, l.Count(d.Text), l.Room)
					}
					if kind != writer.KindReply {
						continue
					}
					// Asked for a shorter one, by the platform's count (some line is shorter than 80).
					req.PreviousDraft, req.PreviousLength = d.Text, post.LengthFor(tt.platform, sent)
					shorter, err := w.Write(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					if n, prev := l.Count(shorter.Text), l.Previous(req); n >= prev && prev > 80 {
						t.Errorf("%q: asked for shorter than %d, got %d: %q", in, prev, n, shorter.Text)
					}
				}
			}
		})
	}
}

// The judge counts a draft as the platform does, as it is sent, against
// the platform's limit; X's reason keeps its words.
func TestJudgeCountsByThePlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, platform, author, draft string
		max                           int
		wantTooLong                   string // the reason, "" when not too long
	}{
		{name: "x over", platform: "x", draft: "Coffee " + strings.Repeat("b", 274),
			wantTooLong: "too long: 281 weighted characters, more than 280"},
		{name: "x, emoji count two", platform: "x", draft: "Coffee " + strings.Repeat("🔥", 137),
			wantTooLong: "too long: 281 weighted characters, more than 280"},
		{name: "bluesky, emoji count one", platform: "bluesky", draft: "Coffee " + strings.Repeat("🔥", 293)},
		{name: "bluesky over", platform: "bluesky", draft: "Coffee " + strings.Repeat("🔥", 294),
			wantTooLong: "too long: 301 graphemes, more than 300"},
		{name: "mastodon, the prefix counts", platform: "mastodon", author: "maria@m.example", draft: "Coffee " + strings.Repeat("b", 486)},
		{name: "mastodon over with the prefix", platform: "mastodon", author: "maria@m.example", draft: "Coffee " + strings.Repeat("b", 487),
			wantTooLong: "too long: 501 characters, more than 500"},
		{name: "mastodon, the server's limit", platform: "mastodon", author: "maria", max: 1000, draft: "Coffee " + strings.Repeat("b", 900)},
		{name: "mastodon, a small server", platform: "mastodon", author: "maria", max: 100, draft: "Coffee " + strings.Repeat("b", 100),
			wantTooLong: "too long: 114 characters, more than 100"},
	}
	w := New("infernal_ai")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			author := tt.author
			if author == "" {
				author = "maria_g"
			}
			req := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: author, PostText: "Coffee again",
				Platform: tt.platform, MaxLength: tt.max}
			got, err := w.Judge(t.Context(), req, tt.draft)
			if err != nil {
				t.Fatal(err)
			}
			tooLong := strings.HasPrefix(got.Reason, "too long")
			if tooLong != (tt.wantTooLong != "") || (tooLong && got.Reason != tt.wantTooLong) {
				t.Errorf("Judge = %d %q, want too long %q", got.Score, got.Reason, tt.wantTooLong)
			}
		})
	}
}
