// Package retrieval picks, among stored texts, the few most relevant to a
// query: the domain logic shared by the persona's learning (past cases and
// lessons, pkg/pipeline) and any later knowledge base.
//
// The work is split in two. pkg/store finds candidates with PostgreSQL's
// own tools — text search (a tsvector GIN index, ts_rank_cd) and trigram
// similarity (pg_trgm) — from the query terms Terms makes. This package
// then scores the candidates and selects from them:
//
//   - Similarity combines the two: a weighted mean of the trigram
//     similarity and the text-search rank, both in [0, 1]; with embeddings
//     (Rerank), the cosine similarity of the two texts joins it.
//   - A floor (Options.Floor) drops every candidate less similar than it:
//     irrelevant examples are worse than none, so a query that resembles
//     nothing gets nothing.
//   - Boosts order what passed the floor: engagement (log-scaled),
//     recency (a half-life) and an item's own weight (an autopilot
//     approval nobody looked at ranks below a person's).
//   - Diversity: at most one item per Key (a conversation), and none whose
//     text is a near-duplicate of one already chosen.
//   - A budget: the chosen texts together stay within Options.Chars
//     characters, so a prompt never grows without bound.
//
// Items are generic: anything with an id, a text to show, a key for
// diversity and the scores above can be retrieved.
package retrieval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"infernal/pkg/guard"
)

// Item is one candidate: a stored text and what ranks it.
type Item struct {
	// ID identifies the item to its caller (a case's, a lesson's id).
	ID int64
	// Text is what would be shown (an example's reply, a lesson); the
	// diversity test and the budget count it.
	Text string
	// Size is what the item costs of the budget, in characters; 0 counts
	// Text alone.
	Size int
	// Key groups items of which at most one is chosen (a conversation);
	// "" groups nothing.
	Key string
	// Trigram is the trigram similarity of the item's matched text to the
	// query, 0 to 1 (pg_trgm's similarity).
	Trigram float64
	// Rank is the text-search rank of the item, 0 to 1 (ts_rank
	// normalised by rank/(rank+1)).
	Rank float64
	// Overlap is the share of the query's terms the item's matched text
	// holds, 0 to 1 (see Overlap).
	Overlap float64
	// Cosine is the embeddings' cosine similarity to the query, set by
	// Rerank; nil without embeddings.
	Cosine *float64
	// Engagement is what the item earned (likes, reposts, replies); 0 for none.
	Engagement float64
	// At is when the item was made; the zero time has no recency boost.
	At time.Time
	// Weight scales the item's final score, 1 when zero: below 1 ranks it
	// lower (an unattended autopilot approval).
	Weight float64
}

// Options are the rules of one selection.
type Options struct {
	// K is the most items chosen; 0 chooses none.
	K int
	// Floor is the least Similarity an item needs to be chosen at all.
	Floor float64
	// Chars is the most characters the chosen items' sizes add up to; 0
	// is no budget. An item that does not fit is passed over for a
	// smaller one.
	Chars int
	// NearDuplicate is the content-word similarity (guard's) from which
	// two texts count as the same; 0 takes DefaultNearDuplicate.
	NearDuplicate float64
	// Now is the clock of the recency boost.
	Now time.Time
	// HalfLife is the age at which recency halves an item's boost; 0
	// takes DefaultHalfLife.
	HalfLife time.Duration
}

// Defaults of the selection.
const (
	// DefaultFloor is the similarity below which a case is no example.
	DefaultFloor = 0.16
	// DefaultNearDuplicate is the similarity from which two chosen texts
	// are one too many.
	DefaultNearDuplicate = 0.8
	// DefaultHalfLife halves the recency boost of a 90-day-old item.
	DefaultHalfLife = 90 * 24 * time.Hour
	// DefaultChars is the budget of learned text in one prompt
	// (LEARNING_PROMPT_CHARS).
	DefaultChars = 2000
)

// Scored is a chosen item with its scores.
type Scored struct {
	Item
	// Similarity is how like the query it is, 0 to 1.
	Similarity float64
	// Score is Similarity with its boosts: what ordered it.
	Score float64
}

// Similarity is how like the query item is, 0 to 1: the share of the
// query's terms it holds weighs 0.4, the trigram similarity 0.35 and the
// text-search rank 0.25; with an embedding, the cosine takes half and the
// three others the other half. One shared word of a five-word query stays
// below DefaultFloor; two pass it.
func Similarity(it Item) float64 {
	lexical := 0.4*clamp01(it.Overlap) + 0.35*clamp01(it.Trigram) + 0.25*clamp01(it.Rank)
	if it.Cosine == nil {
		return lexical
	}
	return 0.5*lexical + 0.5*clamp01(*it.Cosine)
}

// Score is it's Similarity boosted: engagement adds up to about a half
// (log-scaled: 10 earns +0.24, 100 +0.46), recency up to a fifth, halved
// every half-life, and the whole is scaled by the item's Weight.
func Score(it Item, sim float64, now time.Time, halfLife time.Duration) float64 {
	if halfLife <= 0 {
		halfLife = DefaultHalfLife
	}
	boost := 1 + 0.1*math.Log1p(max(it.Engagement, 0))
	if !it.At.IsZero() && !now.IsZero() {
		age := max(now.Sub(it.At), 0)
		boost += 0.2 * math.Exp2(-float64(age)/float64(halfLife))
	}
	w := it.Weight
	if w == 0 {
		w = 1
	}
	return sim * boost * w
}

// Select returns at most o.K of items, best first: those at or above the
// similarity floor, ordered by Score, at most one per Key, none a
// near-duplicate of one chosen before, all within the character budget.
func Select(items []Item, o Options) []Scored {
	if o.K <= 0 || len(items) == 0 {
		return nil
	}
	dup := o.NearDuplicate
	if dup <= 0 {
		dup = DefaultNearDuplicate
	}
	cands := make([]Scored, 0, len(items))
	for _, it := range items {
		sim := Similarity(it)
		if sim < o.Floor || strings.TrimSpace(it.Text) == "" {
			continue
		}
		cands = append(cands, Scored{Item: it, Similarity: sim, Score: Score(it, sim, o.Now, o.HalfLife)})
	}
	// Highest score first; ties to the newer, then the lower id, so the
	// choice never depends on the candidates' order.
	slices.SortStableFunc(cands, func(a, b Scored) int {
		switch {
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		case !a.At.Equal(b.At):
			return b.At.Compare(a.At)
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	var out []Scored
	keys := map[string]bool{}
	var words []guard.Words
	used := 0
	for _, c := range cands {
		if len(out) == o.K {
			break
		}
		if c.Key != "" && keys[c.Key] {
			continue
		}
		size := c.Size
		if size <= 0 {
			size = utf8.RuneCountInString(c.Text)
		}
		if o.Chars > 0 && used+size > o.Chars {
			continue
		}
		w := guard.ContentWords(c.Text)
		if _, _, near := guard.NearDuplicateWords(w, words, dup); near {
			continue
		}
		out = append(out, c)
		words = append(words, w)
		keys[c.Key] = c.Key != ""
		used += size
	}
	return out
}

// MaxTerms is the most query terms Terms keeps.
const MaxTerms = 16

// Terms are query's search terms: lower-cased words of letters and
// digits, 3 characters or more, without links, @mentions, hashtag signs and
// the commonest English words, each once, at most MaxTerms, in order. They
// are safe to join into a text-search query (" or " for
// websearch_to_tsquery) whatever the query held.
func Terms(query string) []string {
	return terms(query, MaxTerms)
}

// terms are query's Terms, at most limit of them (0: all).
func terms(query string, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(query) {
		low := strings.ToLower(f)
		if strings.HasPrefix(low, "@") || strings.Contains(low, "://") || strings.HasPrefix(low, "www.") {
			continue
		}
		for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if utf8.RuneCountInString(w) < 3 || stopWords[w] || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
			if len(out) == limit {
				return out
			}
		}
	}
	return out
}

// Overlap is the share of terms (a query's Terms) that text's Terms
// hold, 0 to 1; 0 for no terms.
func Overlap(query []string, text string) float64 {
	if len(query) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range terms(text, 0) {
		have[t] = true
	}
	n := 0
	for _, t := range query {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(query))
}

// Normalize is query as the trigram similarity compares it: its Terms
// joined by spaces, so that links, handles, punctuation and filler words
// do not make two texts alike.
func Normalize(query string) string {
	return strings.Join(Terms(query), " ")
}

// stopWords are English words too common to tell two posts apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use
		that with have this will your from they know want been good much some time very when come here just like long make many more only over such take than them well were
		what about would there their which could other into then these also after first even most because does doing going being really still should those while where why yes
		again just than then ever every never always today tonight someone something anything nothing everyone people thing things im dont cant wont ive youre thats its`) {
		m[w] = true
	}
	return m
}()

func clamp01(f float64) float64 {
	if f != f || f < 0 { // NaN or negative
		return 0
	}
	return min(f, 1)
}

// Embedder turns texts into vectors: the provider's OpenAI-compatible
// /v1/embeddings (pkg/embeddings), when EMBEDDINGS_MODEL is set.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Rerank sets each item's Cosine: the cosine similarity of the embedding
// of texts[i] (what item i matched, such as a case's post) to query's. An
// error leaves the items as they were: the lexical similarity stands.
func Rerank(ctx context.Context, e Embedder, query string, items []Item, texts []string) error {
	if e == nil || len(items) == 0 {
		return nil
	}
	if len(texts) != len(items) {
		return fmt.Errorf("retrieval: rerank: %d texts for %d items", len(texts), len(items))
	}
	vs, err := e.Embed(ctx, append([]string{query}, texts...))
	if err != nil {
		return fmt.Errorf("retrieval: rerank: %w", err)
	}
	if len(vs) != len(items)+1 {
		return fmt.Errorf("retrieval: rerank: %d embeddings for %d texts", len(vs), len(items)+1)
	}
	for i := range items {
		c := Cosine(vs[0], vs[i+1])
		items[i].Cosine = &c
	}
	return nil
}

// Cosine is the cosine similarity of a and b, 0 when either is zero or
// their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
