package guard

import "slices"

// DefaultNearDuplicateThreshold is the Similarity from which a draft is a
// near-duplicate of an earlier post, unless configured otherwise.
const DefaultNearDuplicateThreshold = 0.8

// ShingleSize is the number of consecutive words in a shingle. Two words
// keep word order (so that the same words rearranged are not a
// duplicate) while one changed word in a post of twenty still leaves a
// Similarity above 0.8; longer shingles make short posts, which are most
// of the persona's, look unrelated after a single change.
const ShingleSize = 2

// Similarity is the Jaccard similarity of the two texts' sets of word
// shingles: the number of shingles both have over the number either has,
// from 0 (nothing shared) to 1 (the same words in the same order). Words
// are those of the Canonical form, @handles left out (a reply's leading
// mentions say nothing of its content), and a shingle is ShingleSize
// consecutive words. A text shorter than ShingleSize words is compared
// with shingles as long as its whole text, so "hello" and "hello" are 1
// and "hello" and "hello there" are 0.5; a text without words (empty, or
// punctuation only) is similar to nothing, not even itself.
func Similarity(a, b string) float64 {
	return similarity(ContentWords(a), ContentWords(b))
}

// compared returns the shingle hashes Similarity compares of two texts'
// Words, nil for a text without words.
func compared(wa, wb Words) (sa, sb []uint64) {
	size := min(ShingleSize, wa.n, wb.n)
	switch {
	case size == 0:
		return nil, nil
	case size < ShingleSize:
		return wa.singles, wb.singles
	}
	return wa.shingles, wb.shingles
}

// similarityBound is the most Similarity two texts' Words can reach with
// their numbers of shingles: the smaller over the larger.
func similarityBound(wa, wb Words) float64 {
	sa, sb := compared(wa, wb)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	return float64(min(len(sa), len(sb))) / float64(max(len(sa), len(sb)))
}

// similarity is Similarity of two texts' Words: a merge of their sorted
// shingle hashes, without allocating.
func similarity(wa, wb Words) float64 {
	sa, sb := compared(wa, wb)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	shared := 0
	for i, j := 0, 0; i < len(sa) && j < len(sb); {
		switch {
		case sa[i] < sb[j]:
			i++
		case sa[i] > sb[j]:
			j++
		default:
			shared++
			i++
			j++
		}
	}
	return float64(shared) / float64(len(sa)+len(sb)-shared)
}

// NearDuplicate returns the index in recent of the text most similar to
// draft and its Similarity, and whether that reaches threshold. A
// threshold outside (0, 1] is taken as DefaultNearDuplicateThreshold. With
// no recent texts, index is -1.
func NearDuplicate(draft string, recent []string, threshold float64) (index int, score float64, ok bool) {
	rw := make([]Words, len(recent))
	for i, r := range recent {
		rw[i] = ContentWords(r)
	}
	return NearDuplicateWords(ContentWords(draft), rw, threshold)
}

// Words are a text's words as Similarity compares them (Canonical, without
// @handles), kept as the sorted, distinct 64-bit hashes of their shingles.
// Normalising is most of a comparison's cost, so a caller that compares
// many drafts with the same recent posts keeps their Words; a comparison
// is then a merge of two short sorted lists. Two distinct shingles share a
// hash with a chance of about 2^-64, far below the threshold's grain.
type Words struct {
	// n counts the words.
	n int
	// singles are the hashes of the words, for a comparison with a text
	// of one word.
	singles []uint64
	// shingles are the hashes of the ShingleSize-word shingles.
	shingles []uint64
}

// ContentWords returns the Words of s.
func ContentWords(s string) Words {
	ws := contentWords(s)
	return Words{n: len(ws), singles: shingleHashes(ws, 1), shingles: shingleHashes(ws, ShingleSize)}
}

// NearDuplicateWords is NearDuplicate on texts already reduced to Words.
func NearDuplicateWords(draft Words, recent []Words, threshold float64) (index int, score float64, ok bool) {
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultNearDuplicateThreshold
	}
	index = -1
	for i, r := range recent {
		if index >= 0 && similarityBound(draft, r) <= score {
			// It cannot beat the best so far; most of a week's texts differ in length.
			continue
		}
		if s := similarity(draft, r); index < 0 || s > score {
			index, score = i, s
		}
	}
	return index, score, index >= 0 && score >= threshold
}

// contentWords returns the canonical words of s without its @handles.
func contentWords(s string) []string {
	var out []string
	for _, t := range words(s) {
		if !t.mention {
			out = append(out, t.text)
		}
	}
	return out
}

// shingleHashes returns the sorted, distinct FNV-1a hashes of the runs of
// size consecutive words; a NUL, which Canonical never leaves in a word,
// separates the words of a shingle.
func shingleHashes(ws []string, size int) []uint64 {
	if len(ws) < size {
		return nil
	}
	out := make([]uint64, 0, len(ws)-size+1)
	for i := 0; i+size <= len(ws); i++ {
		h := uint64(fnvOffset)
		for k, w := range ws[i : i+size] {
			if k > 0 {
				h *= fnvPrime // h ^ 0: the NUL between two words
			}
			for j := 0; j < len(w); j++ {
				h = (h ^ uint64(w[j])) * fnvPrime
			}
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The 64-bit FNV-1a parameters (hash/fnv's, inlined so that hashing a
// shingle allocates nothing).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)
