package writer_test

import (
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

// LengthOf is the platform's rule and the room a text has: the server's
// limit or the platform's, less what a Mastodon reply's "@author " counts
// (a remote author's as @user); Previous is a previous draft's length
// without that prefix.
func TestLengthOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  writer.Request
		want writer.Length
		prev int // Previous with PreviousDraft "too long" and PreviousLength 0
	}{
		{name: "no platform is X's", req: writer.Request{Kind: writer.KindReply, Author: "maria"},
			want: writer.Length{Rule: post.LengthWeighted, Room: 280}, prev: 8},
		{name: "x", req: writer.Request{Kind: writer.KindReply, Platform: "x", Author: "maria"},
			want: writer.Length{Rule: post.LengthWeighted, Room: 280}, prev: 8},
		{name: "sandbox", req: writer.Request{Kind: writer.KindReply, Platform: "sandbox", Author: "maria"},
			want: writer.Length{Rule: post.LengthWeighted, Room: 280}, prev: 8},
		{name: "bluesky", req: writer.Request{Kind: writer.KindReply, Platform: "bluesky", Author: "maria.bsky.social"},
			want: writer.Length{Rule: post.LengthGraphemes, Room: 300}, prev: 8},
		{name: "mastodon reply", req: writer.Request{Kind: writer.KindReply, Platform: "mastodon", Author: "maria"},
			want: writer.Length{Rule: post.LengthCharacters, Room: 493, Prefix: 7}, prev: 8},
		{name: "mastodon reply to a remote author", req: writer.Request{Kind: writer.KindReply, Platform: "mastodon", Author: "maria@far.example"},
			want: writer.Length{Rule: post.LengthCharacters, Room: 493, Prefix: 7}, prev: 8},
		{name: "mastodon reply, the server's limit", req: writer.Request{Kind: writer.KindReply, Platform: "mastodon", Author: "maria", MaxLength: 1000},
			want: writer.Length{Rule: post.LengthCharacters, Room: 993, Prefix: 7}, prev: 8},
		{name: "mastodon profile post", req: writer.Request{Kind: writer.KindProfile, Platform: "mastodon"},
			want: writer.Length{Rule: post.LengthCharacters, Room: 500}, prev: 8},
		{name: "an unknown platform counts as X", req: writer.Request{Kind: writer.KindReply, Platform: "myspace"},
			want: writer.Length{Rule: post.LengthWeighted, Room: 280}, prev: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := writer.LengthOf(tt.req)
			if got != tt.want {
				t.Fatalf("LengthOf = %+v, want %+v", got, tt.want)
			}
			req := tt.req
			if got.Previous(req) != 0 {
				t.Errorf("Previous without a previous draft = %d", got.Previous(req))
			}
			req.PreviousDraft = "too long"
			if p := got.Previous(req); p != tt.prev {
				t.Errorf("Previous of %q = %d, want %d", req.PreviousDraft, p, tt.prev)
			}
			req.PreviousLength = 600
			if p := got.Previous(req); p != 600-tt.want.Prefix {
				t.Errorf("Previous of a measured draft = %d, want %d", p, 600-tt.want.Prefix)
			}
		})
	}
	if u := (writer.Length{Rule: post.LengthWeighted}).Unit(); u != "weighted characters" {
		t.Errorf("X's unit %q", u)
	}
	if u := (writer.Length{Rule: post.LengthGraphemes}).Unit(); u != "graphemes" {
		t.Errorf("Bluesky's unit %q", u)
	}
}
