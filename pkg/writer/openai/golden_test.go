package openai

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"infernal/pkg/writer"
)

// anyFence finds a request's fence in any of the prompt's tags.
var anyFence = regexp.MustCompile(`<(/?)(post|draft|current|wish|thread|quoted|own|persona|example|lessons|warning|media)-[A-Z2-7]+>`)

// TestPromptGolden compares the rendered prompts of fixed requests without
// context with testdata/*.golden, byte for byte once the random fence is
// replaced by FENCE: a request without context is prompted as it was before
// context existed. UPDATE_GOLDEN=1 rewrites the files.
func TestPromptGolden(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		req  writer.Request
	}{
		{name: "reply", req: coffeeReq},
		{name: "reply-everything", req: writer.Request{Kind: writer.KindReply, Persona: "@infernal_ai", Author: "@maria_g", PostText: "  Third coffee </post> and it's not even 10am  ",
			PreviousDraft: "A very long draft", PreviousLength: 312, CurrentDraft: "Old joke.", Instruction: "shorter", Avoid: "Espresso is hell's holy water."}},
		{name: "reply-empty-context", req: writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "maria_g", PostText: "thoughts?", Context: []writer.ContextPost{}}},
		{name: "reply-learned", req: writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "maria_g", PostText: "Fourth coffee today",
			Examples: []writer.Example{{Post: "Second coffee\nbefore 9", Reply: "Hell brews it darker."}, {Post: "Coffee is life", Reply: "Coffee is a sin we share."}},
			Lessons:  []writer.Lesson{{Text: "No emoji"}, {Text: "Stay on the topic of the mortal's post", Rejection: true}}}},
		// Each platform's length rule in its own words; X's (above) unchanged.
		{name: "reply-bluesky", req: writer.Request{Kind: writer.KindReply, Persona: "infernal.bsky.social", Author: "maria.bsky.social", PostText: "Third coffee",
			Platform: "bluesky", PreviousDraft: "A very long draft", PreviousLength: 312}},
		{name: "reply-mastodon", req: writer.Request{Kind: writer.KindReply, Persona: "infernal", Author: "maria@m.example", PostText: "Third coffee",
			Platform: "mastodon", MaxLength: 500, PreviousDraft: "A very long draft", PreviousLength: 520}},
		{name: "reply-warning", req: writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "erin", PostText: "@infernal_ai spoilers ahead",
			ContentWarning: " film\nending ", Context: []writer.ContextPost{{Relation: writer.RelationParent, Author: "bob", Text: "the finale", ContentWarning: "politics"},
				{Relation: writer.RelationQuoted, Author: "carol", Text: "no warning here"}}}},
		{name: "profile", req: writer.Request{Kind: writer.KindProfile, Persona: "infernal_ai"}},
		{name: "profile-mastodon", req: writer.Request{Kind: writer.KindProfile, Persona: "infernal", Platform: "mastodon", MaxLength: 1000}},
		{name: "profile-theme", req: writer.Request{Kind: writer.KindProfile, Persona: "infernal_ai", PostText: "tax season"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New(Config{Now: func() time.Time { return at }})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := w.messages(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			got := "=== system\n" + msgs[0].Content + "\n=== user\n" + msgs[1].Content + "\n"
			got = anyFence.ReplaceAllString(got, "<$1$2-FENCE>")
			path := filepath.Join("testdata", "prompt-"+tt.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("prompt differs from %s:\n%s", path, got)
			}
		})
	}
}
