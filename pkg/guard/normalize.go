// Package guard holds the persona's safety decisions as pure functions: the
// text normalisation that matching relies on, blocked phrases and authors,
// opt-out requests, near-duplicate drafts, the outbound check of a draft,
// and the reply and send caps. It reads no store and calls no platform: the
// pipeline and the API feed it what they know and store what it decides.
package guard

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// maxRounds bounds Canonical's repetition of its steps until the text no
// longer changes; the confusables data settles in one or two rounds.
const maxRounds = 4

// Normalize is the first half of Canonical: Unicode NFKC, then the removal
// of invisible characters (format characters such as ZWSP, ZWNJ, ZWJ, the
// word joiner, BOM, soft hyphen and bidi controls; the other default
// ignorables such as variation selectors, the combining grapheme joiner and
// Hangul fillers; control characters), with every whitespace character
// (tab and newline included) made a plain space, then case folding.
func Normalize(s string) string {
	s = norm.NFKC.String(s)
	s = strings.Map(visible, s)
	return cases.Fold().String(s)
}

// visible maps a rune for Normalize: whitespace becomes a space, an
// invisible rune is dropped (-1) and any other rune is kept.
func visible(r rune) rune {
	switch {
	case unicode.IsSpace(r):
		return ' '
	case invisible(r):
		return -1
	}
	return r
}

// invisible reports whether r is a control, format or default-ignorable
// character, which readers do not see but which splits a word for a naive
// matcher.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		// Unassigned code points of the tag and variation-selector blocks are
		// default ignorable too.
		(r >= 0xE0000 && r <= 0xE0FFF) ||
		// U+2800 BRAILLE PATTERN BLANK is a symbol, but renders as a space.
		r == 0x2800
}

// Skeleton is the confusables skeleton of Unicode Technical Standard #39
// (section 4): the text in NFD, each character replaced by the prototype
// confusables.txt maps it to, and NFD again, so that two strings that look
// alike ("раураl" with Cyrillic letters and "paypal") have the same
// skeleton. The mapping is Unicode's confusables.txt of version
// ConfusablesVersion, as the npm package unhomoglyph 1.0.6 ships it,
// written to confusables.txt by scripts/confusables/gen.mjs and embedded;
// the table is parsed once, on first use.
// Skeletons are for comparison, not for reading: "m" becomes "rn".
func Skeleton(s string) string {
	s = norm.NFD.String(s)
	table := confusables()
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if p, ok := table[r]; ok {
			b.WriteString(p)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFD.String(b.String())
}

// Canonical is the form in which texts are compared: Normalize, then
// Skeleton, then the removal of non-spacing and enclosing marks (so that
// "arrête" matches "arrete", and a diacritic stacked on a letter does not
// hide it), then case folding again, since prototypes are partly capitals
// ("0" becomes "O"). The steps repeat until the text no longer changes, as
// a prototype can itself normalise further; Canonical(Canonical(s)) is
// Canonical(s). Folding digits and letters together is deliberate: "l0ser"
// and "loser" are the same word here.
func Canonical(s string) string {
	for range maxRounds {
		next := cases.Fold().String(strings.Map(dropMark, Skeleton(Normalize(s))))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// dropMark drops non-spacing and enclosing marks for Canonical.
func dropMark(r rune) rune {
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return -1
	}
	return r
}

// A token is a word of a canonical text.
type token struct {
	text string
	// mention is set for an @handle, whose text is the handle without the @.
	mention bool
	// clause is set for the first token of a sentence or clause: the text's
	// first, or one after ".", "!", "?", ",", ";", ":", a line break or a
	// symbol such as an emoji.
	clause bool
}

// unspaced reports whether r belongs to a script written without spaces
// between words; each of its characters is a token of its own, so that a
// phrase matches inside a run of them.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai,
		unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// wordRune reports whether r continues a word.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// clauseBreak reports whether r ends a clause.
func clauseBreak(r rune) bool {
	return strings.ContainsRune(".!?,;:\n…。！？，、；：¿¡", r)
}

// tokens splits a canonical text into words: runs of letters, digits and
// marks; single characters of unspaced scripts; single symbols (emoji); and
// @handles (an @ followed by letters, digits and underscores, and the dots
// and hyphens inside a domain handle) as one token.
// Everything else separates tokens.
func tokens(s string) []token {
	var out []token
	clause := true
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '@' && i+1 < len(rs) && (wordRune(rs[i+1]) || rs[i+1] == '_') && !unspaced(rs[i+1]):
			j := i + 1
			for j < len(rs) && !unspaced(rs[j]) {
				if wordRune(rs[j]) || rs[j] == '_' {
					j++
					continue
				}
				// A handle that is a domain (Bluesky's @infernal.bsky.social)
				// goes on past a dot or hyphen followed by more of it; a
				// dot ending the sentence is left to end the clause.
				if (rs[j] == '.' || rs[j] == '-') && j+1 < len(rs) && wordRune(rs[j+1]) && !unspaced(rs[j+1]) {
					j++
					continue
				}
				break
			}
			// A reply's leading @handles do not start its first clause: in
			// "@persona go away", "go" still does.
			out = append(out, token{text: string(rs[i+1 : j]), mention: true, clause: clause})
			i = j
		case unspaced(r) || unicode.IsSymbol(r):
			out = append(out, token{text: string(r), clause: clause})
			// A symbol (an emoji, mostly) ends a clause as a full stop does.
			clause = unicode.IsSymbol(r)
			i++
		case wordRune(r):
			j := i
			for j < len(rs) && wordRune(rs[j]) && !unspaced(rs[j]) {
				j++
			}
			out = append(out, token{text: string(rs[i:j]), clause: clause})
			clause = false
			i = j
		default:
			if clauseBreak(r) {
				clause = true
			}
			i++
		}
	}
	return out
}

// words returns the tokens of Canonical(s).
func words(s string) []token {
	return tokens(Canonical(s))
}

// joined returns the canonical words of a phrase written together, without
// separators: the form in which matchAt compares it.
func joined(phrase string) string {
	var b strings.Builder
	for _, t := range words(phrase) {
		b.WriteString(t.text)
	}
	return b.String()
}

// matchAt reports how many tokens from ts[i] on, written together, spell
// target exactly, or 0 if none do. Matching whole tokens keeps word
// boundaries ("stop" is not found in "stopped") while a word spelt with
// separators ("s t o p", "s.t.o.p") or words run together ("goaway")
// still match.
func matchAt(ts []token, i int, target string) int {
	if target == "" {
		return 0
	}
	rest := target
	for j := i; j < len(ts); j++ {
		if !strings.HasPrefix(rest, ts[j].text) {
			return 0
		}
		rest = rest[len(ts[j].text):]
		if rest == "" {
			return j - i + 1
		}
	}
	return 0
}
