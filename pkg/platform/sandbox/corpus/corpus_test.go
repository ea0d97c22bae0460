package corpus

import (
	"strings"
	"testing"
	"unicode"

	"infernal/pkg/twittertext"
)

// handle15 is a persona handle of the longest length the platform allows.
const handle15 = "abcdefghijklmno"

func TestLoad(t *testing.T) {
	t.Parallel()
	entries, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 150 {
		t.Errorf("%d entries, want at least 150", len(entries))
	}
	kinds := map[string]int{}
	langs := map[string]int{}
	names := map[string]string{}
	texts := map[string]bool{}
	targets := map[string]bool{}
	for _, u := range TargetUsernames() {
		targets[u] = true
	}
	for i, e := range entries {
		kinds[e.Kind]++
		langs[e.Lang]++
		if e.Username == "" || e.Name == "" || e.Lang == "" || strings.TrimSpace(e.Text) == "" {
			t.Errorf("entry %d is not well formed: %+v", i, e)
		}
		if n, ok := names[e.Username]; ok && n != e.Name {
			t.Errorf("%s has two display names: %q and %q", e.Username, n, e.Name)
		}
		names[e.Username] = e.Name
		if texts[e.Text] {
			t.Errorf("duplicate text %q", e.Text)
		}
		texts[e.Text] = true
		if (e.Kind == KindTarget) != targets[e.Username] {
			t.Errorf("entry %d: kind %s by %s", i, e.Kind, e.Username)
		}
		if mentions(e.Kind) && !strings.Contains(e.Text, Placeholder) {
			t.Errorf("%s %d lacks %s: %q", e.Kind, i, Placeholder, e.Text)
		}
		if !mentions(e.Kind) && strings.Contains(e.Text, "{persona}") {
			t.Errorf("entry %d is a %s but holds the placeholder: %q", i, e.Kind, e.Text)
		}
		text := e.TextFor(handle15)
		if strings.Contains(text, "{persona}") || strings.Contains(text, "@@") {
			t.Errorf("entry %d not replaced cleanly: %q", i, text)
		}
		if mentions(e.Kind) && !strings.Contains(text, "@"+handle15) {
			t.Errorf("entry %d does not mention @%s: %q", i, handle15, text)
		}
		if !twittertext.WithinLimit(text) {
			t.Errorf("entry %d weighs %d: %q", i, twittertext.WeightedLength(text), text)
		}
	}
	for _, k := range []string{KindMention, KindTopic, KindTarget, KindThread} {
		if kinds[k] < 20 {
			t.Errorf("%d %s entries, want at least 20", kinds[k], k)
		}
	}
	for _, k := range []string{KindSummon, KindQuote} {
		if kinds[k] < 15 {
			t.Errorf("%d %s entries, want at least 15", kinds[k], k)
		}
	}
	if len(langs) < 10 {
		t.Errorf("languages %v, want at least 10", langs)
	}
	// A thread is answered in its own language: every language of the
	// topic posts has replies, thin mentions and quotes of its own.
	for lang := range langsOf(entries, KindTopic) {
		for _, k := range []string{KindThread, KindSummon, KindQuote} {
			if !langsOf(entries, k)[lang] {
				t.Errorf("no %s entry in %s, a language of the topic posts", k, lang)
			}
		}
	}
	mortals := 0
	for u := range names {
		if !targets[u] {
			mortals++
		}
	}
	if mortals < 40 {
		t.Errorf("%d mortal accounts, want about 40", mortals)
	}
	for u := range targets {
		if _, ok := names[u]; !ok {
			t.Errorf("target %s has no posts", u)
		}
	}
}

// langsOf returns the languages of the entries of kind.
func langsOf(entries []Entry, kind string) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		if e.Kind == kind {
			out[e.Lang] = true
		}
	}
	return out
}

// TestVariety checks the corpus has what the sandbox is meant to show off.
func TestVariety(t *testing.T) {
	t.Parallel()
	entries, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		has  func(Entry) bool
		want int
	}{
		{name: "links", has: func(e Entry) bool { return strings.Contains(e.Text, "https://") }, want: 5},
		{name: "hashtags", has: func(e Entry) bool { return strings.Contains(e.Text, " #") }, want: 15},
		{name: "zwj sequences", has: func(e Entry) bool { return strings.ContainsRune(e.Text, '\u200d') }, want: 8},
		{name: "flags", has: func(e Entry) bool {
			return strings.ContainsFunc(e.Text, func(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF })
		}, want: 5},
		{name: "keycaps", has: func(e Entry) bool { return strings.ContainsRune(e.Text, '\u20e3') }, want: 2},
		{name: "skin tones", has: func(e Entry) bool {
			return strings.ContainsFunc(e.Text, func(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF })
		}, want: 2},
		{name: "cjk", has: func(e Entry) bool {
			return strings.ContainsFunc(e.Text, func(r rune) bool {
				return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
			})
		}, want: 10},
		{name: "arabic", has: func(e Entry) bool {
			return strings.ContainsFunc(e.Text, func(r rune) bool { return unicode.Is(unicode.Arabic, r) })
		}, want: 3},
		{name: "cyrillic", has: func(e Entry) bool {
			return strings.ContainsFunc(e.Text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) })
		}, want: 3},
		{name: "short", has: func(e Entry) bool { return twittertext.WeightedLength(e.TextFor(handle15)) <= 60 }, want: 15},
		{name: "long", has: func(e Entry) bool { return twittertext.WeightedLength(e.TextFor(handle15)) >= 200 }, want: 4},
		{name: "search topics", has: func(e Entry) bool {
			s := strings.ToLower(e.Text)
			return e.Kind == KindTopic && (strings.Contains(s, "monday") || strings.Contains(s, "coffee") || strings.Contains(s, "deadline") || strings.Contains(s, "gym"))
		}, want: 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := 0
			for _, e := range entries {
				if tt.has(e) {
					got++
				}
			}
			if got < tt.want {
				t.Errorf("%d entries, want at least %d", got, tt.want)
			}
		})
	}
}

func TestLoadReturnsFreshSlices(t *testing.T) {
	t.Parallel()
	a, _ := Load()
	a[0].Text = "changed"
	b, _ := Load()
	if b[0].Text == "changed" {
		t.Error("Load shares its slice between calls")
	}
	TargetUsernames()[0] = "changed"
	if TargetUsernames()[0] == "changed" {
		t.Error("TargetUsernames shares its slice between calls")
	}
}

func TestKnownKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind string
		want bool
	}{
		{name: "mention", kind: KindMention, want: true},
		{name: "topic", kind: KindTopic, want: true},
		{name: "target", kind: KindTarget, want: true},
		{name: "thread", kind: KindThread, want: true},
		{name: "summon", kind: KindSummon, want: true},
		{name: "quote", kind: KindQuote, want: true},
		{name: "persona", kind: "persona", want: false},
		{name: "empty", kind: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KnownKind(tt.kind); got != tt.want {
				t.Errorf("KnownKind(%q) = %v, want %v", tt.kind, got, tt.want)
			}
		})
	}
}

func TestTextFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		handle string
		want   string
	}{
		{name: "start", text: "@{persona} hi", handle: "infernal_ai", want: "@infernal_ai hi"},
		{name: "middle", text: "Hey @{persona}, hi", handle: "infernal_ai", want: "Hey @infernal_ai, hi"},
		{name: "handle with at", text: "@{persona} hi", handle: "@infernal_ai", want: "@infernal_ai hi"},
		{name: "no placeholder", text: "Mondays.", handle: "infernal_ai", want: "Mondays."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Entry{Text: tt.text}).TextFor(tt.handle); got != tt.want {
				t.Errorf("TextFor = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const accounts = `"accounts": [
		{"username": "hustle_harold", "name": "H", "lang": "en", "target": true},
		{"username": "crypto_cassie", "name": "C", "lang": "en", "target": true},
		{"username": "guru_gwen", "name": "G", "lang": "en", "target": true},
		{"username": "techbro_tyler", "name": "T", "lang": "en", "target": true},
		{"username": "bob", "name": "Bob", "lang": "en"}]`
	tests := []struct {
		name string
		data string
		want string
	}{
		{name: "ok", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "topic", "text": "Mondays."}]}`, want: ""},
		{name: "not json", data: `nope`, want: "corpus: "},
		{name: "unknown field", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "topic", "text": "x", "likes": 3}]}`, want: "unknown field"},
		{name: "unknown author", data: `{` + accounts + `, "posts": [{"author": "eve", "kind": "topic", "text": "x"}]}`, want: "unknown author"},
		{name: "unknown kind", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "reply", "text": "x"}]}`, want: "unknown kind"},
		{name: "empty text", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "topic", "text": " "}]}`, want: "empty text"},
		{name: "mention without placeholder", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "mention", "text": "hi"}]}`, want: "exactly when"},
		{name: "topic with placeholder", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "topic", "text": "hi @{persona}"}]}`, want: "exactly when"},
		{name: "conversation kinds", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "thread", "text": "same"}, {"author": "bob", "kind": "summon", "text": "@{persona} thoughts?"}, {"author": "bob", "kind": "quote", "text": "this"}]}`, want: ""},
		{name: "summon without placeholder", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "summon", "text": "thoughts?"}]}`, want: "exactly when"},
		{name: "thread reply with placeholder", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "thread", "text": "@{persona} same"}]}`, want: "exactly when"},
		{name: "quote with placeholder", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "quote", "text": "@{persona} this"}]}`, want: "exactly when"},
		{name: "thread reply by a target", data: `{` + accounts + `, "posts": [{"author": "guru_gwen", "kind": "thread", "text": "same"}]}`, want: "target flag"},
		{name: "target by a mortal", data: `{` + accounts + `, "posts": [{"author": "bob", "kind": "target", "text": "hi"}]}`, want: "target flag"},
		{name: "mortal post by a target", data: `{` + accounts + `, "posts": [{"author": "guru_gwen", "kind": "topic", "text": "hi"}]}`, want: "target flag"},
		{name: "missing target account", data: `{"accounts": [{"username": "bob", "name": "Bob", "lang": "en"}], "posts": []}`, want: "has no account"},
		{name: "stray target flag", data: `{"accounts": [{"username": "bob", "name": "Bob", "lang": "en", "target": true}], "posts": []}`, want: "TargetUsernames says"},
		{name: "bad username", data: `{"accounts": [{"username": "@bob", "name": "Bob", "lang": "en"}], "posts": []}`, want: "bad username"},
		{name: "username longer than X allows", data: `{"accounts": [{"username": "sixteen_letters_", "name": "S", "lang": "en"}], "posts": []}`, want: "bad username"},
		{name: "no lang", data: `{"accounts": [{"username": "bob", "name": "Bob"}], "posts": []}`, want: "required"},
		{name: "duplicate account", data: `{"accounts": [{"username": "bob", "name": "Bob", "lang": "en"}, {"username": "bob", "name": "B", "lang": "en"}], "posts": []}`, want: "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse([]byte(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "corpus: ") {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
