package retrieval_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"infernal/pkg/retrieval"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string
	}{
		{"plain", "My sourdough starter died", []string{"sourdough", "starter", "died"}},
		{"links, handles and filler out", "@devil see https://x.com/a the Oven, oven!", []string{"oven"}},
		{"hashtag sign dropped", "#coffee beans", []string{"coffee", "beans"}},
		{"punctuation splits", "tax-season's receipts", []string{"tax", "season", "receipts"}},
		{"empty", "  ", nil},
		{"garbage", "\x00\xff <script>", []string{"script"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retrieval.Terms(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	long := ""
	for i := 0; i < 40; i++ {
		long += " word" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(retrieval.Terms(long)); n != retrieval.MaxTerms {
		t.Fatalf("%d terms, want at most %d", n, retrieval.MaxTerms)
	}
	if got := retrieval.Overlap([]string{"oven", "sourdough"}, "The OVEN is hot"); got != 0.5 {
		t.Fatalf("Overlap = %v, want 0.5", got)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	strong := retrieval.Item{Trigram: 0.8, Rank: 0.5, Overlap: 0.8}
	item := func(id int64, key, text string, base retrieval.Item) retrieval.Item {
		base.ID, base.Key, base.Text, base.At = id, key, text, now.Add(-time.Duration(id)*time.Hour)
		return base
	}
	weak := retrieval.Item{Trigram: 0.05, Rank: 0.05, Overlap: 0.1}
	tests := []struct {
		name  string
		items []retrieval.Item
		opts  retrieval.Options
		want  []int64
	}{
		{"best first, at most k", []retrieval.Item{item(1, "a", "one reply", weak), item(2, "b", "two reply here", strong), item(3, "c", "three more", strong)},
			retrieval.Options{K: 2, Floor: 0.16, Now: now}, []int64{2, 3}},
		{"below the floor: none", []retrieval.Item{item(1, "a", "one", weak)}, retrieval.Options{K: 3, Floor: 0.16, Now: now}, nil},
		{"one per conversation", []retrieval.Item{item(1, "a", "first text", strong), item(2, "a", "second text", strong)},
			retrieval.Options{K: 3, Floor: 0.16, Now: now}, []int64{1}},
		{"no near-identical texts", []retrieval.Item{item(1, "a", "hell keeps the sourdough warm tonight", strong), item(2, "b", "Hell keeps the sourdough warm tonight!", strong)},
			retrieval.Options{K: 3, Floor: 0.16, Now: now}, []int64{1}},
		{"budget passes over a big one", []retrieval.Item{item(1, "a", "a reply far too long for the budget", strong), item(2, "b", "short", strong)},
			retrieval.Options{K: 3, Floor: 0.16, Chars: 10, Now: now}, []int64{2}},
		{"weight ranks lower", []retrieval.Item{func() retrieval.Item { i := item(1, "a", "autopilot text", strong); i.Weight = 0.5; return i }(), item(2, "b", "person text", strong)},
			retrieval.Options{K: 2, Floor: 0.16, Now: now}, []int64{2, 1}},
		{"engagement ranks higher", []retrieval.Item{item(1, "a", "quiet reply", strong), func() retrieval.Item { i := item(2, "b", "loud reply", strong); i.Engagement = 50; return i }()},
			retrieval.Options{K: 2, Floor: 0.16, Now: now}, []int64{2, 1}},
		{"k zero", []retrieval.Item{item(1, "a", "x", strong)}, retrieval.Options{K: 0}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for _, s := range retrieval.Select(tt.items, tt.opts) {
				got = append(got, s.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Select = %v, want %v", got, tt.want)
			}
		})
	}
}

type fakeEmbedder struct {
	vs  [][]float32
	err error
}

func (f fakeEmbedder) Embed(context.Context, []string) ([][]float32, error) { return f.vs, f.err }

func TestRerank(t *testing.T) {
	t.Parallel()
	items := []retrieval.Item{{ID: 1}, {ID: 2}}
	e := fakeEmbedder{vs: [][]float32{{1, 0}, {1, 0}, {0, 1}}}
	if err := retrieval.Rerank(context.Background(), e, "q", items, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if *items[0].Cosine != 1 || *items[1].Cosine != 0 {
		t.Fatalf("cosines %v %v", *items[0].Cosine, *items[1].Cosine)
	}
	if retrieval.Similarity(items[0]) <= retrieval.Similarity(items[1]) {
		t.Fatal("the embedding did not rank the like text higher")
	}
	fresh := []retrieval.Item{{ID: 1}}
	if err := retrieval.Rerank(context.Background(), fakeEmbedder{err: errors.New("down")}, "q", fresh, []string{"a"}); err == nil || fresh[0].Cosine != nil {
		t.Fatal("a failing embedder changed the items or said nothing")
	}
	if err := retrieval.Rerank(context.Background(), fakeEmbedder{vs: [][]float32{{1}}}, "q", fresh, []string{"a"}); err == nil {
		t.Fatal("too few embeddings accepted")
	}
	if c := retrieval.Cosine([]float32{1, 2}, []float32{1}); c != 0 {
		t.Fatalf("Cosine of unequal lengths = %v", c)
	}
	if c := retrieval.Cosine([]float32{0, 0}, []float32{1, 1}); c != 0 || math.IsNaN(c) {
		t.Fatalf("Cosine of a zero vector = %v", c)
	}
}
