package offline

import (
	"context"
	"strings"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer"
)

func TestThin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{name: "thoughts", text: "@infernal_ai thoughts?", want: true},
		{name: "settle this", text: "@infernal_ai settle this", want: true},
		{name: "emoji only", text: "@infernal_ai 👀", want: true},
		{name: "handles and a link only", text: "@infernal_ai @bob https://t.co/abc", want: true},
		{name: "short question", text: "@infernal_ai what's your take on this?", want: true},
		{name: "cjk question", text: "@infernal_ai どう思う？", want: true},
		{name: "a sentence", text: "@infernal_ai my boss booked a meeting at 7am on purpose", want: false},
		{name: "few long words", text: "@infernal_ai incomprehensible antidisestablishmentarianism", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := thin(tt.text); got != tt.want {
				t.Errorf("thin(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// coffeeParent is a parent post about coffee.
var coffeeParent = writer.ContextPost{Relation: writer.RelationParent, Author: "bob", Text: "Third espresso before 9am, send help"}

func TestWriteThinMention(t *testing.T) {
	t.Parallel()
	mondayQuote := writer.ContextPost{Relation: writer.RelationQuoted, Author: "carol", Text: "Mondays should be illegal"}
	tests := []struct {
		name    string
		text    string
		context []writer.ContextPost
		wantSin post.Category // "" for any
		// wantAny: the text mentions one of these; wantNone: none of these.
		wantAny  []string
		wantNone []string
	}{
		{name: "thoughts under coffee", text: "@infernal_ai thoughts?", context: []writer.ContextPost{coffeeParent}, wantSin: "gluttony", wantAny: []string{"coffee"}},
		{name: "thoughts alone", text: "@infernal_ai thoughts?", wantNone: []string{"coffee"}, wantAny: []string{"\u201cthoughts\u201d"}},
		{name: "settle this under coffee", text: "@infernal_ai settle this", context: []writer.ContextPost{coffeeParent}, wantSin: "gluttony", wantAny: []string{"coffee"}},
		{name: "settle this alone", text: "@infernal_ai settle this", wantNone: []string{"coffee"}},
		{name: "eyes quoting monday", text: "@infernal_ai 👀", context: []writer.ContextPost{mondayQuote}, wantSin: "sloth", wantAny: []string{"monday"}},
		{name: "eyes alone", text: "@infernal_ai 👀", wantNone: []string{"monday", "coffee"}},
		{name: "quoted post before the parent", text: "@infernal_ai 👀", context: []writer.ContextPost{coffeeParent, mondayQuote}, wantSin: "sloth", wantAny: []string{"monday"}},
		{name: "ancestor cue when the parent has none", text: "@infernal_ai thoughts?", context: []writer.ContextPost{
			{Relation: writer.RelationAncestor, Author: "alice", Text: "My coffee machine died"},
			{Relation: writer.RelationParent, Author: "bob", Text: "lol same"},
		}, wantSin: "gluttony", wantAny: []string{"coffee"}},
		{name: "parent's word without a cue", text: "@infernal_ai thoughts?", context: []writer.ContextPost{{Relation: writer.RelationParent, Author: "bob", Text: "The eclipse tonight was unreal"}}, wantAny: []string{"\u201ceclipse\u201d", "\u201ctonight\u201d"}},
		{name: "the persona's own post is no subject", text: "@infernal_ai thoughts?", context: []writer.ContextPost{{Relation: writer.RelationPersona, Author: "infernal_ai", Text: "Coffee is hell's holy water."}}, wantNone: []string{"coffee"}},
		{name: "thin mention keeps its own cue", text: "@infernal_ai coffee?", context: []writer.ContextPost{mondayQuote}, wantSin: "gluttony", wantAny: []string{"coffee"}},
		{name: "full mention keeps its own cue", text: "@infernal_ai my boss booked a meeting at 7am on purpose", context: []writer.ContextPost{coffeeParent}, wantSin: "wrath", wantAny: []string{"meeting"}, wantNone: []string{"coffee"}},
		{name: "full mention without a cue keeps its own word", text: "@infernal_ai the committee reconvened about the elephant situation again", context: []writer.ContextPost{coffeeParent}, wantNone: []string{"coffee"}},
	}
	w := New("infernal_ai")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := reply(tt.text)
			req.Context = tt.context
			d, err := w.Write(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			lower := strings.ToLower(d.Text)
			if tt.wantSin != "" && d.Category != tt.wantSin {
				t.Errorf("category = %q, want %q (%q)", d.Category, tt.wantSin, d.Text)
			}
			found := len(tt.wantAny) == 0
			for _, sub := range tt.wantAny {
				found = found || strings.Contains(lower, strings.ToLower(sub))
			}
			if !found {
				t.Errorf("text %q mentions none of %q", d.Text, tt.wantAny)
			}
			for _, sub := range tt.wantNone {
				if strings.Contains(lower, sub) {
					t.Errorf("text %q mentions %q", d.Text, sub)
				}
			}
			if !twittertext.WithinLimit(d.Text) || strings.ContainsAny(d.Text, "{}") {
				t.Errorf("text %q is unfit", d.Text)
			}
		})
	}
}

// TestWriteAvoidsOwnReply: the draft a request gets is not given again once
// it is the persona's own earlier post in the conversation, as published
// (after @handles) or as written.
func TestWriteAvoidsOwnReply(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	ctx := context.Background()
	tests := []struct {
		name   string
		text   string
		prefix string
	}{
		{name: "thin mention, as published", text: "@infernal_ai thoughts?", prefix: "@maria_g @bob "},
		{name: "thin mention, as written", text: "@infernal_ai settle this"},
		{name: "full mention", text: "@infernal_ai I need coffee before this meeting or I riot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := reply(tt.text)
			req.Context = []writer.ContextPost{coffeeParent}
			first, err := w.Write(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Context = []writer.ContextPost{
				{Relation: writer.RelationPersona, Author: "infernal_ai", Text: tt.prefix + first.Text},
				coffeeParent,
			}
			second, err := w.Write(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if second.Text == first.Text {
				t.Errorf("the persona's earlier reply %q is repeated", first.Text)
			}
			if second.Category != first.Category {
				t.Errorf("category %q, want the subject's %q", second.Category, first.Category)
			}
		})
	}
}

func TestWriteContextDeterministic(t *testing.T) {
	t.Parallel()
	w1, w2 := New("infernal_ai"), New("infernal_ai")
	ctx := context.Background()
	for _, text := range []string{"@infernal_ai thoughts?", "@infernal_ai 👀", "@infernal_ai the moon is nice"} {
		req := reply(text)
		req.Context = []writer.ContextPost{
			{Relation: writer.RelationAncestor, Author: "alice", Text: "the void stares back"},
			{Relation: writer.RelationPersona, Author: "infernal_ai", Text: "It blinked first."},
			coffeeParent,
		}
		a, err := w1.Write(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := w2.Write(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		c, err := w1.Write(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if a != b || a != c {
			t.Errorf("Write(%q) with context not deterministic: %+v, %+v, %+v", text, a, b, c)
		}
	}
}

// TestWriteWithoutContextUnchanged: a request with an empty context, or a
// full mention whatever its context, is answered as without it.
func TestWriteWithoutContextUnchanged(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	ctx := context.Background()
	tests := []struct {
		name    string
		text    string
		context []writer.ContextPost
	}{
		{name: "empty context", text: "@infernal_ai thoughts?", context: []writer.ContextPost{}},
		{name: "full mention", text: "@infernal_ai my boss booked a meeting at 7am on purpose", context: []writer.ContextPost{coffeeParent}},
		{name: "thin mention with its own cue", text: "@infernal_ai coffee?", context: []writer.ContextPost{coffeeParent}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := w.Write(ctx, reply(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			req := reply(tt.text)
			req.Context = tt.context
			got, err := w.Write(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("with context %+v, without %+v", got, want)
			}
		})
	}
}

// TestWriteThinMentionWithinLimit: whatever the post a thin mention takes
// its subject from, the reply fits.
func TestWriteThinMentionWithinLimit(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	parents := []string{
		strings.Repeat("Mondays are a crime against humanity and coffee is the only witness. ", 20),
		"Supercalifragilisticexpialidocious-antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
		"#ThisIsAVeryLongHashtagThatGoesOnAndOnForeverAndEver", strings.Repeat("🔥", 300), strings.Repeat("漢字", 200),
		"コーヒー高すぎ", "The eclipse tonight was unreal", "https://example.com/x", "",
	}
	for _, parent := range parents {
		for _, rel := range []writer.Relation{writer.RelationParent, writer.RelationQuoted, writer.RelationAncestor} {
			req := writer.Request{Kind: writer.KindReply, Persona: "a_very_long_persona_handle_x", Author: "m", PostText: "@a_very_long_persona_handle_x 👀",
				Context: []writer.ContextPost{{Relation: rel, Author: "bob", Text: parent}}}
			d, err := w.Write(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !twittertext.WithinLimit(d.Text) || strings.ContainsAny(d.Text, "{}") {
				t.Errorf("%s %.30q: %q weighs %d", rel, parent, d.Text, twittertext.WeightedLength(d.Text))
			}
		}
	}
}

// A thin mention under a photo or a link, or behind a content warning,
// answers what they show: its subject comes from the warning, the alt text
// or the link card, before its thread.
func TestWriteThinMentionAnswersWhatItShows(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	thread := []writer.ContextPost{{Relation: writer.RelationParent, Author: "a", Text: "leg day at the gym again"}}
	for _, tt := range []struct {
		name    string
		media   []post.Media
		link    *post.Link
		warning string
	}{
		{name: "photo", media: []post.Media{{Type: post.MediaPhoto, URL: "https://pbs.twimg.com/media/p.jpg", Alt: "a slice of pizza on a keyboard"}}},
		{name: "link card", link: &post.Link{URL: "https://pit.example/menu", Title: "The pizza menu", Description: "Forty toppings."}},
		{name: "content warning", warning: "pizza review"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := w.Write(context.Background(), writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "m",
				PostText: "@infernal_ai thoughts?", Context: thread, Media: tt.media, Link: tt.link, ContentWarning: tt.warning})
			if err != nil {
				t.Fatal(err)
			}
			if d.Category != "gluttony" {
				t.Errorf("category %q of %q, want gluttony: the pizza shown, not the thread's gym", d.Category, d.Text)
			}
		})
	}
	// A photo without a description leaves the thread as the subject.
	d, err := w.Write(context.Background(), writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "m",
		PostText: "@infernal_ai thoughts?", Context: thread, Media: []post.Media{{Type: post.MediaPhoto, URL: "https://pbs.twimg.com/media/p.jpg"}}})
	if err != nil || d.Category != "pride" {
		t.Errorf("undescribed photo: %q, %v; want the gym's pride", d.Category, err)
	}
}
