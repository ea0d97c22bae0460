package offline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"infernal/pkg/persona"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/post"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer"
)

func reply(text string) writer.Request {
	return writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", PostText: text, Author: "mortal_1"}
}

func TestWriteReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    post.Category
		wantAny []string // the text mentions one of these
	}{
		{name: "cue topic woven in", text: "Need coffee. Immediately.", want: "gluttony", wantAny: []string{"coffee"}},
		{name: "monday", text: "It's Monday again, somehow", want: "sloth", wantAny: []string{"Monday"}},
		{name: "quoted word", text: "Synergy, said the man", wantAny: []string{"\u201csynergy\u201d"}},
		{name: "hashtag preferred", text: "Thinking about the void #existentialism", wantAny: []string{"\u201cexistentialism\u201d"}},
		{name: "short cjk post quoted whole", text: "今日は雨です", wantAny: []string{"\u201c今日は雨です\u201d"}},
		{name: "no word uses a stand-in", text: "🔥🔥 https://example.com @someone", wantAny: []string{"this confession", "this little post", "that thought", "this mood", "your take", "this whole situation"}},
	}
	w := New("infernal_ai")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := w.Write(context.Background(), reply(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && d.Category != tt.want {
				t.Errorf("category = %q, want %q", d.Category, tt.want)
			}
			if _, err := post.ParseCategory(string(d.Category)); err != nil {
				t.Errorf("category %q is not a sin", d.Category)
			}
			found := false
			for _, sub := range tt.wantAny {
				found = found || strings.Contains(strings.ToLower(d.Text), strings.ToLower(sub))
			}
			if !found {
				t.Errorf("text %q mentions none of %q", d.Text, tt.wantAny)
			}
			if strings.ContainsAny(d.Text, "{}") {
				t.Errorf("text %q has an unfilled placeholder", d.Text)
			}
			if d.Temperature != 0.3 || d.PresencePenalty != 0.3 || d.FrequencyPenalty != 0.3 {
				t.Errorf("parameters = %v/%v/%v, want 0.3 each", d.Temperature, d.PresencePenalty, d.FrequencyPenalty)
			}
		})
	}
}

func TestWriteDeterministic(t *testing.T) {
	t.Parallel()
	w1, w2 := New("infernal_ai"), New("infernal_ai")
	texts := []string{"coffee", "Mondays, am I right", "見て！新しいiPhone", "", "🔥🔥🔥", "https://example.com/x"}
	for _, text := range texts {
		a, err := w1.Write(context.Background(), reply(text))
		if err != nil {
			t.Fatal(err)
		}
		b, err := w2.Write(context.Background(), reply(text))
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("Write(%q) not deterministic: %+v vs %+v", text, a, b)
		}
	}
	profile := writer.Request{Kind: writer.KindProfile, Persona: "infernal_ai", PostText: "theme: taxes"}
	a, _ := w1.Write(context.Background(), profile)
	b, _ := w2.Write(context.Background(), profile)
	if a != b {
		t.Errorf("profile with a theme not deterministic: %+v vs %+v", a, b)
	}
}

func TestWriteVariety(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	texts := map[string]bool{}
	sins := map[post.Category]bool{}
	for i := 0; i < 200; i++ {
		d, err := w.Write(context.Background(), reply(fmt.Sprintf("Post number %d about my coffee and the weather", i)))
		if err != nil {
			t.Fatal(err)
		}
		texts[d.Text] = true
		d, err = w.Write(context.Background(), reply(fmt.Sprintf("random thought %d about the universe", i)))
		if err != nil {
			t.Fatal(err)
		}
		sins[d.Category] = true
	}
	if len(texts) < 30 {
		t.Errorf("200 coffee posts got only %d distinct answers", len(texts))
	}
	if len(sins) != len(post.Categories) {
		t.Errorf("posts without cues fell under %d sins, want all %d", len(sins), len(post.Categories))
	}
}

func TestWriteProfileSeededByClock(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	req := writer.Request{Kind: writer.KindProfile, Persona: "infernal_ai"}
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		at := base.Add(time.Duration(i) * time.Second)
		w.now = func() time.Time { return at }
		a, err := w.Write(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := w.Write(context.Background(), req)
		if a != b {
			t.Fatalf("same clock, different posts: %q vs %q", a.Text, b.Text)
		}
		seen[a.Text] = true
	}
	if len(seen) < 30 {
		t.Errorf("50 profile posts at different times gave only %d distinct texts", len(seen))
	}
}

func TestWriteWithinLimit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Mondays are a crime against humanity and coffee is the only witness. ", 20)
	inputs := []string{
		"", "a", "ok", long, strings.Repeat("🔥", 300), strings.Repeat("👩‍👩‍👧‍👦🇯🇵", 100),
		strings.Repeat("漢字", 200), strings.Repeat("월요일은 싫어 ", 50),
		strings.Repeat("https://example.com/very/long/path?with=query ", 10),
		"Supercalifragilisticexpialidocious-antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
		"#ThisIsAVeryLongHashtagThatGoesOnAndOnForeverAndEver", "@someone @else", "¿Por qué el café es tan caro?",
		"لماذا القهوة غالية جدا", "Почему кофе такой дорогой?", "コーヒー高すぎ", "咖啡太贵了",
	}
	for i := 0; i < 300; i++ {
		inputs = append(inputs, fmt.Sprintf("mortal post %d: %s", i, strings.Repeat("word ", i%60)))
	}
	personas := []string{"infernal_ai", "", "a_very_long_persona_handle_x"}
	w := New("infernal_ai")
	for _, persona := range personas {
		for _, in := range inputs {
			for _, kind := range []writer.Kind{writer.KindReply, writer.KindProfile} {
				req := writer.Request{Kind: kind, Persona: persona, PostText: in, Author: "someone"}
				d, err := w.Write(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if !twittertext.WithinLimit(d.Text) {
					t.Errorf("%s %q: %q weighs %d", kind, in, d.Text, twittertext.WeightedLength(d.Text))
				}
			}
		}
	}
}

// TestCorpus answers every post of the sandbox's corpus.
func TestCorpus(t *testing.T) {
	t.Parallel()
	entries, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	w := New("infernal_ai")
	sins := map[post.Category]int{}
	cued := 0
	for _, e := range entries {
		text := e.TextFor("infernal_ai")
		if _, ok := writer.Classify(text); ok {
			cued++
		}
		d, err := w.Write(context.Background(), writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", PostText: text, Author: e.Username})
		if err != nil {
			t.Fatal(err)
		}
		sins[d.Category]++
		if !twittertext.WithinLimit(d.Text) || strings.ContainsAny(d.Text, "{}") {
			t.Errorf("%q → %q", text, d.Text)
		}
	}
	if len(sins) != len(post.Categories) {
		t.Errorf("corpus answered under %v, want every sin", sins)
	}
	if cued*10 < len(entries)*9 {
		t.Errorf("only %d of %d corpus posts have a keyword cue", cued, len(entries))
	}
}

func TestWriteShorter(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	tests := []struct {
		name string
		text string
	}{
		{name: "coffee", text: "coffee"},
		{name: "monday", text: "monday"},
		{name: "no cue", text: "the void stares back"},
		{name: "cjk", text: "今日は雨です"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := reply(tt.text)
			first, err := w.Write(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			req.PreviousDraft, req.PreviousLength = first.Text, twittertext.WeightedLength(first.Text)
			second, err := w.Write(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := twittertext.WeightedLength(second.Text); got >= req.PreviousLength {
				t.Errorf("asked for shorter than %d, got %d: %q", req.PreviousLength, got, second.Text)
			}
			// A previous draft longer than the limit, as from a model, is answered within the limit.
			req.PreviousDraft, req.PreviousLength = strings.Repeat("x", 400), 400
			third, _ := w.Write(context.Background(), req)
			if !twittertext.WithinLimit(third.Text) {
				t.Errorf("after a 400-long draft got %d", twittertext.WeightedLength(third.Text))
			}
			// PreviousLength left at zero is measured from the draft.
			req.PreviousDraft, req.PreviousLength = first.Text, 0
			fourth, _ := w.Write(context.Background(), req)
			if twittertext.WeightedLength(fourth.Text) >= twittertext.WeightedLength(first.Text) {
				t.Errorf("unmeasured previous: got %q, not shorter than %q", fourth.Text, first.Text)
			}
			// No line is shorter than 10: the shortest is returned rather than nothing.
			req.PreviousDraft, req.PreviousLength = "tiny", 10
			fifth, _ := w.Write(context.Background(), req)
			if !twittertext.WithinLimit(fifth.Text) {
				t.Errorf("impossible request gave %q", fifth.Text)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		req  writer.Request
		want error
	}{
		{name: "unknown kind", ctx: context.Background(), req: writer.Request{Kind: "haiku"}},
		{name: "canceled", ctx: canceled, req: reply("hi"), want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Write(tt.ctx, tt.req)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if errors.Is(err, writer.ErrRefused) {
				t.Errorf("err = %v should not be a refusal", err)
			}
		})
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	lines, err := parseLines(linesFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for key, ls := range lines {
		for _, l := range ls {
			if seen[l] {
				t.Errorf("duplicate line %q", l)
			}
			seen[l] = true
			filled := render(l, "the longest topic in the table", "gluttony", "infernal_ai")
			if strings.ContainsAny(filled, "{}") {
				t.Errorf("%v: unknown placeholder in %q", key, l)
			}
			if n := twittertext.WeightedLength(render(l, "\u201c"+strings.Repeat("w", maxTopicRunes)+"\u201d", "gluttony", strings.Repeat("p", 15))); n > twittertext.MaxLength {
				t.Errorf("%v: %q can weigh %d", key, l, n)
			}
		}
	}
	for _, kind := range []writer.Kind{writer.KindReply, writer.KindProfile} {
		for _, sin := range post.Categories {
			n := len(lines[lineKey{kind, string(sin)}]) + len(lines[lineKey{kind, anySin}])
			if n < 36 {
				t.Errorf("%s %s has %d lines, want several dozen", kind, sin, n)
			}
		}
	}
	// Every cue topic fits the lines: no topic is longer than a quoted word.
	for _, sin := range post.Categories {
		for _, topic := range writer.CueTopics(sin) {
			if utf8Len := len([]rune(topic)); utf8Len > maxTopicRunes+2 {
				t.Errorf("topic %q is too long", topic)
			}
		}
	}
}

func TestParseLinesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want string
	}{
		{name: "line before header", src: "hello\n", want: "before any header"},
		{name: "bad header", src: "[reply]\n", want: "bad header"},
		{name: "unknown kind", src: "[haiku pride]\nx\n", want: "unknown kind"},
		{name: "unknown sin", src: "[reply charity]\nx\n", want: "unknown category"},
		{name: "missing section", src: "[reply pride]\nx\n", want: "no lines for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseLines(tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestImplementsWriter(t *testing.T) {
	t.Parallel()
	var w writer.Writer = New("x")
	if w.Name() != "offline" {
		t.Errorf("Name() = %q", w.Name())
	}
	d, err := writer.Compose(context.Background(), w, reply("coffee"))
	if err != nil || !twittertext.WithinLimit(d.Text) {
		t.Errorf("Compose = %+v, %v", d, err)
	}
}

func TestSamples(t *testing.T) {
	t.Parallel()
	if !testing.Verbose() {
		t.Skip("prints samples with -v")
	}
	w := New("infernal_ai")
	for _, text := range []string{"Need coffee. Immediately.", "I hate Mondays", "my ex just posted a vacation pic", "Synergy synergy synergy, said the consultant", "今日は雨です", "Bought the dip #crypto"} {
		d, _ := w.Write(context.Background(), reply(text))
		t.Logf("%-45q → [%s] %s", text, d.Category, d.Text)
	}
	for _, text := range []string{"@infernal_ai thoughts?", "@infernal_ai settle this", "@infernal_ai 👀"} {
		req := reply(text)
		alone, _ := w.Write(context.Background(), req)
		req.Context = []writer.ContextPost{coffeeParent}
		under, _ := w.Write(context.Background(), req)
		t.Logf("%-45q → [%s] %s", text, alone.Category, alone.Text)
		t.Logf("%-45q → [%s] %s", text+" (under coffee)", under.Category, under.Text)
	}
}

// A regenerated draft differs from the draft under review, and from each
// earlier one as the variant grows; the reviewer's simple wishes are heard.
func TestWriteRegenerated(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	ctx := context.Background()
	base := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "maria_g", PostText: "My coffee machine died this morning."}
	first, err := w.Write(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		instruction string
		check       func(t *testing.T, got string)
	}{
		{name: "no instruction", check: func(*testing.T, string) {}},
		{name: "shorter", instruction: "shorter", check: func(t *testing.T, got string) {
			if twittertext.WeightedLength(got) >= twittertext.WeightedLength(first.Text) {
				t.Errorf("%q is not shorter than %q", got, first.Text)
			}
		}},
		{name: "mention", instruction: "mention the tax office", check: func(t *testing.T, got string) {
			if !strings.Contains(strings.ToLower(got), "tax office") {
				t.Errorf("%q does not mention the tax office", got)
			}
		}},
		{name: "free wish", instruction: "less cruel", check: func(*testing.T, string) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]bool{first.Text: true}
			current := first.Text
			for variant := 1; variant <= 3; variant++ {
				req := base
				req.CurrentDraft, req.Instruction, req.Variant = current, tt.instruction, variant
				d, err := w.Write(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Text == current {
					t.Fatalf("variant %d repeats the current draft %q", variant, current)
				}
				if n := twittertext.WeightedLength(d.Text); n < 1 || n > twittertext.MaxLength {
					t.Errorf("variant %d is %d characters", variant, n)
				}
				if variant == 1 {
					tt.check(t, d.Text)
				}
				seen[d.Text] = true
				current = d.Text
			}
			if len(seen) < 3 {
				t.Errorf("three regenerations gave only %d distinct texts", len(seen))
			}
		})
	}
}

func TestLeadingSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string
		limit int
		want  string
	}{
		{name: "first of two", text: "Tomorrow is the busiest day of the week. Ask Monday.", limit: 51, want: "Tomorrow is the busiest day of the week."},
		{name: "two of three", text: "One. Two! Three?", limit: 15, want: "One. Two!"},
		{name: "only the first fits", text: "One. Two! Three?", limit: 8, want: "One."},
		{name: "nothing fits", text: "A long first sentence. B.", limit: 5, want: ""},
		{name: "one sentence", text: "Only this one.", limit: 100, want: ""},
		{name: "decimal is no end", text: "It costs 3.5 souls. Cheap.", limit: 25, want: "It costs 3.5 souls."},
		{name: "ellipsis", text: "Well… Fine.", limit: 10, want: "Well…"},
		{name: "no punctuation", text: "no end at all", limit: 100, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leadingSentences(tt.text, fit{rule: post.LengthWeighted, max: tt.limit}); got != tt.want {
				t.Errorf("leadingSentences(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
		})
	}
}

func TestShortened(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string
		limit int
		want  string
	}{
		{name: "whole sentences first", text: "One. Two! Three?", limit: 15, want: "One. Two!"},
		{name: "one sentence loses words", text: "Tomorrow is the busiest day, ask Monday.", limit: 30, want: "Tomorrow is the busiest day…"},
		{name: "one word", text: "Monday.", limit: 6, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortened(tt.text, fit{rule: post.LengthWeighted, max: tt.limit}); got != tt.want {
				t.Errorf("shortened(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
		})
	}
}

// An operator's persona shows on the embedded default: its own examples
// are the offline drafts, and its avoided topics are never drafted.
func TestWriteSpeaksTheOperatorsPersona(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	ctx := context.Background()
	base := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", PostText: "@infernal_ai is coffee a sin?", Author: "m"}
	builtIn, err := w.Write(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	edited := persona.Default()
	edited.Examples = append(edited.Examples, "The ledger says {topic}. The ledger is never wrong.")
	tests := []struct {
		name string
		char persona.Persona
		want string
	}{
		{name: "built-in persona: the usual line", char: persona.Default(), want: builtIn.Text},
		{name: "the operator's example", char: edited, want: "The ledger says coffee. The ledger is never wrong."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			req.Character = tt.char
			got, err := w.Write(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.want {
				t.Errorf("draft %q, want %q", got.Text, tt.want)
			}
		})
	}
	avoiding := persona.Default()
	avoiding.AvoidTopics = []string{"coffee"}
	req := base
	req.Character = avoiding
	for v := range 6 {
		req.Variant = v
		got, err := w.Write(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(got.Text), "coffee") {
			t.Errorf("variant %d drafted an avoided topic: %q", v, got.Text)
		}
	}
}
