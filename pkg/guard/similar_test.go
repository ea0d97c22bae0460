package guard

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		{name: "identical", a: "Welcome to hell, the coffee is cold", b: "Welcome to hell, the coffee is cold", want: 1},
		{name: "case, punctuation and look-alikes", a: "Welcome to hell, the coffee is cold", b: "WELCOME TO HЕLL the coffee is cold!!!", want: 1},
		{name: "leading mentions ignored", a: "@tom welcome to hell", b: "@jess welcome to hell", want: 1},
		// 9 bigrams each, 8 shared: 8 / 10.
		{name: "last word changed", a: "welcome to hell tom the coffee is a sin here", b: "welcome to hell tom the coffee is a sin there", want: 0.8},
		{name: "nothing shared", a: "coffee is a sin", b: "mondays are eternal", want: 0},
		{name: "same words reordered", a: "hell is cold coffee", b: "cold coffee is hell", want: 1.0 / 5},
		{name: "one word each, same", a: "hello", b: "Hello!", want: 1},
		{name: "one word against two", a: "hello", b: "hello there", want: 0.5},
		{name: "emoji count as words", a: "🔥🔥", b: "🔥🔥", want: 1},
		{name: "no words", a: "?!", b: "?!", want: 0},
		{name: "empty", a: "", b: "hello", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Similarity(tt.a, tt.b)
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if back := Similarity(tt.b, tt.a); math.Abs(back-got) > 1e-9 {
				t.Errorf("Similarity is not symmetric: %v one way, %v the other", got, back)
			}
		})
	}
}

func TestNearDuplicate(t *testing.T) {
	t.Parallel()
	recent := []string{
		"mondays are a punishment of their own",
		"welcome to hell tom the coffee is a sin here",
		"welcome to hell tom the tea is a sin here",
	}
	tests := []struct {
		name      string
		draft     string
		recent    []string
		threshold float64
		wantIndex int
		wantScore float64
		wantOK    bool
	}{
		{name: "duplicate of the second", draft: "Welcome to hell, Tom. The coffee is a sin here.", recent: recent, threshold: 0.8, wantIndex: 1, wantScore: 1, wantOK: true},
		{name: "near duplicate at the threshold", draft: "welcome to hell tom the coffee is a sin there", recent: recent, threshold: 0.8, wantIndex: 1, wantScore: 0.8, wantOK: true},
		{name: "below a stricter threshold", draft: "welcome to hell tom the coffee is a sin there", recent: recent, threshold: 0.9, wantIndex: 1, wantScore: 0.8, wantOK: false},
		// Only "is a" is shared, with 6 + 9 - 1 bigrams in all; the first of
		// two equally similar posts is reported.
		{name: "fresh draft", draft: "pineapple on pizza is a mortal sin", recent: recent, threshold: 0.8, wantIndex: 1, wantScore: 1.0 / 14, wantOK: false},
		{name: "bad threshold takes the default", draft: "welcome to hell tom the coffee is a sin there", recent: recent, threshold: 0, wantIndex: 1, wantScore: 0.8, wantOK: true},
		{name: "no recent posts", draft: "anything", recent: nil, threshold: 0.8, wantIndex: -1, wantScore: 0, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, score, ok := NearDuplicate(tt.draft, tt.recent, tt.threshold)
			if i != tt.wantIndex || math.Abs(score-tt.wantScore) > 1e-9 || ok != tt.wantOK {
				t.Errorf("NearDuplicate(%q) = %d, %v, %v, want %d, %v, %v", tt.draft, i, score, ok, tt.wantIndex, tt.wantScore, tt.wantOK)
			}
		})
	}
}

// NearDuplicateWords skips texts whose length alone keeps them below the
// best so far; it must answer as comparing every text does.
func TestNearDuplicateWordsMatchesEveryComparison(t *testing.T) {
	t.Parallel()
	vocabulary := strings.Fields("hell coffee monday sin mortal furnace soul cold paperwork brimstone tea cat")
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		ws := make([]string, rng.IntN(12))
		for i := range ws {
			ws[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(ws, " ")
	}
	for i := range 2000 {
		recent := make([]string, rng.IntN(20))
		words := make([]Words, len(recent))
		for j := range recent {
			recent[j] = text()
			words[j] = ContentWords(recent[j])
		}
		draft := text()
		wantIndex, wantScore := -1, 0.0
		for j, r := range recent {
			if s := Similarity(draft, r); wantIndex < 0 || s > wantScore {
				wantIndex, wantScore = j, s
			}
		}
		index, score, _ := NearDuplicateWords(ContentWords(draft), words, 0.8)
		if index != wantIndex || math.Abs(score-wantScore) > 1e-12 {
			t.Fatalf("case %d: %q against %q: index %d score %v, want %d %v", i, draft, recent, index, score, wantIndex, wantScore)
		}
	}
}
