package guard

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
	return similarity(contentWords(a), contentWords(b))
}

// similarity is Similarity of two texts' content words.
func similarity(wa, wb []string) float64 {
	size := min(ShingleSize, len(wa), len(wb))
	if size == 0 {
		return 0
	}
	sa, sb := shingles(wa, size), shingles(wb, size)
	shared := 0
	for s := range sa {
		if sb[s] {
			shared++
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

// Words are a text's words as Similarity compares them: Canonical, without
// @handles. Normalising is most of a comparison's cost, so a caller that
// compares many drafts with the same recent posts keeps their Words.
type Words []string

// ContentWords returns the Words of s.
func ContentWords(s string) Words { return contentWords(s) }

// NearDuplicateWords is NearDuplicate on texts already reduced to Words.
func NearDuplicateWords(draft Words, recent []Words, threshold float64) (index int, score float64, ok bool) {
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultNearDuplicateThreshold
	}
	index = -1
	for i, r := range recent {
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

// shingles returns the set of runs of size consecutive words; a NUL, which
// Canonical never leaves in a word, separates the words of a shingle.
func shingles(ws []string, size int) map[string]bool {
	out := make(map[string]bool, len(ws))
	for i := 0; i+size <= len(ws); i++ {
		key := ws[i]
		for _, w := range ws[i+1 : i+size] {
			key += "\x00" + w
		}
		out[key] = true
	}
	return out
}
