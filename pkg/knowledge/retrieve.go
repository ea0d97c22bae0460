package knowledge

import (
	"context"
	"log/slog"
	"strings"

	"infernal/pkg/retrieval"
)

// Candidate is a chunk that may be retrieved, with its document's title
// and its similarity to the query, as pkg/store finds it.
type Candidate struct {
	Chunk
	Title string
	// Trigram is pg_trgm's similarity of the chunk's text to the query.
	Trigram float64
	// Rank is the text-search rank of the chunk, normalised to [0, 1).
	Rank float64
}

// Store holds the chunks; *store.Store is one.
type Store interface {
	// ChunkCandidates returns the chunks of enabled documents that hold
	// one of terms or resemble normalized.
	ChunkCandidates(ctx context.Context, terms []string, normalized string) ([]Candidate, error)
}

// Retriever finds the facts for a text. Its zero value is not usable: set Store.
type Retriever struct {
	Store Store
	// Floor is the least similarity of a fact; 0 takes retrieval.DefaultFloor.
	Floor float64
	// Embedder re-ranks the candidates by embeddings when set
	// (EMBEDDINGS_MODEL); a failure of it leaves the lexical ranking.
	Embedder retrieval.Embedder
	Log      *slog.Logger
}

// DefaultChunks is how many facts a prompt gets by default.
const DefaultChunks = 3

// MaxChunks is the most facts a prompt gets.
const MaxChunks = 5

// Ranking says how a retrieval ranked its facts.
type Ranking struct {
	// Embeddings is set when the provider's embeddings joined the text's
	// similarity in the ranking.
	Embeddings bool
	// Fallback is why they did not though an Embedder was set (its
	// error: the facts were ranked by text alone); nil otherwise.
	Fallback error
}

// Retrieve returns at most k facts for query, best first: chunks of
// enabled documents at or above the floor (retrieval.Select), none a
// near-duplicate of another. A query that resembles nothing gets none.
func (r *Retriever) Retrieve(ctx context.Context, query string, k int) ([]Fact, error) {
	facts, _, err := r.Search(ctx, query, k)
	return facts, err
}

// Search is Retrieve, saying how the facts were ranked: with the
// Embedder's embeddings re-ranking the candidates when it is set and
// there are any, else (or when it fails, which is logged as a warning)
// by their text alone.
func (r *Retriever) Search(ctx context.Context, query string, k int) ([]Fact, Ranking, error) {
	var rk Ranking
	if k <= 0 || strings.TrimSpace(query) == "" {
		return nil, rk, nil
	}
	terms := retrieval.Terms(query)
	if len(terms) == 0 {
		return nil, rk, nil
	}
	cands, err := r.Store.ChunkCandidates(ctx, terms, strings.Join(terms, " "))
	if err != nil {
		return nil, rk, err
	}
	items := make([]retrieval.Item, len(cands))
	texts := make([]string, len(cands))
	byID := make(map[int64]Candidate, len(cands))
	for i, c := range cands {
		matched := c.Heading + "\n" + c.Text
		items[i] = retrieval.Item{ID: c.ID, Text: c.Text, Trigram: c.Trigram, Rank: c.Rank,
			Overlap: retrieval.Overlap(terms, matched)}
		texts[i] = matched
		byID[c.ID] = c
	}
	if r.Embedder != nil && len(items) > 0 {
		if err := retrieval.Rerank(ctx, r.Embedder, query, items, texts); err != nil {
			rk.Fallback = err
			if r.Log != nil {
				r.Log.WarnContext(ctx, "embeddings failed: facts ranked by text alone", "error", err)
			}
		} else {
			rk.Embeddings = true
		}
	}
	floor := r.Floor
	if floor <= 0 {
		floor = retrieval.DefaultFloor
	}
	var out []Fact
	for _, s := range retrieval.Select(items, retrieval.Options{K: k, Floor: floor}) {
		c := byID[s.ID]
		out = append(out, Fact{DocumentID: c.DocumentID, ChunkID: c.ID, Title: c.Title, Text: c.Text, Score: s.Similarity})
	}
	return out, rk, nil
}
