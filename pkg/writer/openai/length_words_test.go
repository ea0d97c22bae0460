package openai

import (
	"strings"
	"testing"
	"time"

	"infernal/pkg/writer"
)

// The prompt speaks the platform's length rule: X and the sandbox count
// weighted characters in the words the prompt always had, Bluesky
// graphemes, Mastodon characters with every link 23 and a mention
// @user@domain as @user; the limit is the server's when it named one,
// less what the "@author " a Mastodon reply starts with takes; a platform
// the table does not hold counts as X.
func TestPromptSpeaksTheLengthRule(t *testing.T) {
	t.Parallel()
	x := "The text must fit in 280 weighted characters: emoji and Chinese, Japanese or Korean characters count two, a link counts 23."
	tests := []struct {
		name                   string
		req                    writer.Request
		rule, previous, harder string
	}{
		{name: "x", req: writer.Request{Platform: "x"}, rule: x,
			previous: "Your previous draft weighed 300 characters, over the limit of 280:",
			harder:   "Write a shorter one, well under 280 weighted characters:"},
		{name: "no platform is X's", req: writer.Request{}, rule: x},
		{name: "the sandbox plays X", req: writer.Request{Platform: "sandbox"}, rule: x},
		{name: "an unknown platform counts as X", req: writer.Request{Platform: "myspace"}, rule: x},
		{name: "bluesky", req: writer.Request{Platform: "bluesky"},
			rule:     "The text must fit in 300 graphemes: user-perceived characters, so an emoji or a letter with its accents counts one, and a link counts every character it has.",
			previous: "Your previous draft weighed 300 graphemes, over the limit of 300:",
			harder:   "Write a shorter one, well under 300 graphemes:"},
		{name: "mastodon, the default limit less @maria ", req: writer.Request{Platform: "mastodon", Author: "maria"},
			rule:     "The text must fit in 493 characters: every link counts 23, and a mention @user@domain counts as @user.",
			previous: "Your previous draft weighed 293 characters, over the limit of 493:",
			harder:   "Write a shorter one, well under 493 characters:"},
		{name: "mastodon, a remote author counts as @user", req: writer.Request{Platform: "mastodon", Author: "maria@very.long.server.example"},
			rule: "The text must fit in 493 characters:"},
		{name: "mastodon, the server's limit", req: writer.Request{Platform: "mastodon", Author: "maria", MaxLength: 5000},
			rule: "The text must fit in 4993 characters:"},
	}
	w, err := New(Config{Now: func() time.Time { return time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Kind, req.Persona, req.PostText = writer.KindReply, "infernal", "Third coffee"
			if req.Author == "" {
				req.Author = "maria_g"
			}
			req.PreviousDraft, req.PreviousLength = "A very long draft", 300
			msgs, err := w.messages(req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msgs[0].Content, "- "+tt.rule) {
				t.Errorf("system prompt lacks %q:\n%s", tt.rule, msgs[0].Content)
			}
			for _, line := range []string{tt.previous, tt.harder} {
				if line != "" && !strings.Contains(msgs[1].Content, line) {
					t.Errorf("user prompt lacks %q:\n%s", line, msgs[1].Content)
				}
			}
			if req.Platform != "bluesky" && req.Platform != "mastodon" && strings.Contains(msgs[0].Content+msgs[1].Content, "graphemes") {
				t.Errorf("X's prompt speaks of graphemes")
			}
		})
	}
	// Every rule of the descriptor table has its words.
	for _, r := range []string{"weighted", "graphemes", "characters"} {
		found := false
		for k := range lengthWords {
			found = found || string(k) == r
		}
		if !found {
			t.Errorf("no words for the rule %s", r)
		}
	}
}
