package twittertext

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The wants below are twitter-text 3.1.0's parseTweet(text).weightedLength.
func TestWeightedLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want int
	}{
		{name: "empty", text: "", want: 0},
		{name: "ascii", text: "hello world", want: 11},
		{name: "ascii at limit", text: strings.Repeat("a", 280), want: 280},
		{name: "ascii over limit", text: strings.Repeat("a", 281), want: 281},
		{name: "url with path", text: "Visit https://example.com/path?q=1 now", want: 33},
		{name: "bare domain, trailing dot", text: "see example.com.", want: 28},
		{name: "www host", text: "go to www.example.org/x", want: 29},
		{name: "two urls", text: "https://t.co/abc https://t.co/def", want: 47},
		{name: "url trailing punctuation", text: "trailing https://example.com/a).", want: 34},
		{name: "bare two-letter tld", text: "x.co", want: 23},
		{name: "email is not a url", text: "mail me a@b.com", want: 15},
		{name: "mention and hashtag", text: "@user hi #tag", want: 13},
		{name: "one emoji", text: "🔥", want: 2},
		{name: "three emoji", text: "🔥🔥🔥", want: 6},
		{name: "zwj family", text: "👨‍👩‍👧‍👦", want: 2},
		{name: "skin tone", text: "👍🏽", want: 2},
		{name: "flag", text: "🇫🇷", want: 2},
		{name: "subdivision flag", text: "🏴󠁧󠁢󠁳󠁣󠁴󠁿", want: 2},
		{name: "keycap", text: "1️⃣", want: 2},
		{name: "copyright text", text: "©", want: 1},
		{name: "copyright emoji", text: "©️", want: 2},
		{name: "heart with selector", text: "❤️", want: 2},
		{name: "emoji then word", text: "😈 sin", want: 6},
		{name: "japanese", text: "日本語", want: 6},
		{name: "chinese", text: "你好世界", want: 8},
		{name: "korean", text: "한국어", want: 6},
		{name: "combining mark composes", text: "e\u0301", want: 1},
		{name: "precomposed", text: "é", want: 1},
		{name: "greek", text: "ελληνικά", want: 8},
		{name: "cyrillic", text: "привет", want: 6},
		{name: "arabic", text: "مرحبا", want: 5},
		{name: "devanagari", text: "हिन्दी", want: 6},
		{name: "dashes and quotes", text: "\u2014 dash \u2019", want: 8},
		{name: "astral letter", text: "\U00010400", want: 2},
		{name: "zwj alone", text: "\u200d", want: 1},
		{name: "prime", text: "\u2032", want: 1},
		{name: "caret outside ranges", text: "\u2038", want: 2},
		{name: "dagger outside ranges", text: "\u2020", want: 2},
		{name: "trademark", text: "™", want: 2},
		{name: "not a tld", text: "http://a.b", want: 10},
		{name: "bare generic tld", text: "foo.bar", want: 23},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WeightedLength(tt.text); got != tt.want {
				t.Errorf("WeightedLength(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

func TestWithinLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{name: "empty", text: "", want: false},
		{name: "short", text: "burn", want: true},
		{name: "exactly 280", text: strings.Repeat("x", 280), want: true},
		{name: "281", text: strings.Repeat("x", 281), want: false},
		{name: "140 cjk is 280", text: strings.Repeat("地", 140), want: true},
		{name: "141 cjk is 282", text: strings.Repeat("地", 141), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithinLimit(tt.text); got != tt.want {
				t.Errorf("WithinLimit = %v, want %v", got, tt.want)
			}
		})
	}
}

// testdata/lengths.json holds every sandbox corpus post and offline writer
// line, and the edge cases frontend/scripts/lengths.mjs lists, with its
// weighted length as twitter-text 3.1.0 counts it (the frontend's counter),
// so that the server and the card agree on real texts. The server follows
// the same rule and data, so it never counts more than the card, nor less.
func TestWeightedLengthMatchesTwitterText(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/lengths.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text  string `json:"text"`
		Want  int    `json:"want"`
		Valid bool   `json:"valid"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		if got := WeightedLength(c.Text); got != c.Want {
			t.Errorf("WeightedLength(%q) = %d, twitter-text says %d", c.Text, got, c.Want)
		}
		if got := WithinLimit(c.Text); got != c.Valid {
			t.Errorf("WithinLimit(%q) = %v, twitter-text says %v", c.Text, got, c.Valid)
		}
	}
}

// conformancePath is where the v3 cases of twitter-text's conformance suite
// are kept: shared/twitter-text beside the repository's root, the directory
// holding go.mod.
func conformancePath(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "twitter-text", "weighted-length-v3.json")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

func TestWeightedLengthConformance(t *testing.T) {
	t.Parallel()
	path := conformancePath(t)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("twitter-text's conformance cases are not at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Description    string `json:"description"`
		Text           string `json:"text"`
		WeightedLength int    `json:"weightedLength"`
		Valid          bool   `json:"valid"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", path)
	}
	for _, c := range cases {
		t.Run(c.Description, func(t *testing.T) {
			if got := WeightedLength(c.Text); got != c.WeightedLength {
				t.Errorf("WeightedLength = %d, want %d", got, c.WeightedLength)
			}
			if got := WithinLimit(c.Text); got != c.Valid {
				t.Errorf("WithinLimit = %v, want %v", got, c.Valid)
			}
		})
	}
}

// TestExtractEmojiMatchesSearch checks the shortcut of extractEmoji, which
// tries the pattern only where an emoji can start, against a plain search
// of the text with the same pattern, on every fixture text.
func TestExtractEmojiMatchesSearch(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/lengths.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	search := regexp.MustCompile(emojiPattern)
	found := 0
	for _, c := range cases {
		s := norm.NFC.String(c.Text)
		got := extractEmoji(s)
		// Without U+FE0E the marked branches need no check, so a plain
		// search is the reference.
		if strings.ContainsRune(s, 0xFE0E) {
			continue
		}
		var want [][2]int
		for _, m := range search.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("extractEmoji(%q) = %v, a search finds %v", c.Text, got, want)
		}
		found += len(want)
	}
	if found < 50 {
		t.Errorf("only %d emoji in the fixture", found)
	}
}

func TestHasLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{name: "no link", text: "burn, mortal", want: false},
		{name: "https", text: "see https://example.com/x", want: true},
		{name: "bare domain", text: "go to example.com now", want: true},
		{name: "handle is no link", text: "@example hi", want: false},
		{name: "empty", text: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HasLink(tt.text); got != tt.want {
				t.Errorf("HasLink(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}
