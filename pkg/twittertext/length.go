// Package twittertext is X's rule for a post's length: twitter-text 3.1.0's
// weighted length, its limit, and the links it finds in a text.
package twittertext

import (
	"fmt"
	"iter"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxLength is X's limit on a post's weighted length (the sandbox's too).
const MaxLength = 280

// The weighting of twitter-text's configuration v3, in hundredths of a
// character: a code point weighs runeWeight, an emoji sequence
// defaultWeight and a link urlWeight.
const (
	weightScale   = 100
	defaultWeight = 200
	urlWeight     = 23 * weightScale
)

// WeightedLength is a text's length as the platform counts it: twitter-text
// 3.1.0's parseTweet with configuration v3, which the frontend's counter
// runs. The text is NFC-normalised; a link, as twitter-text extracts links,
// counts 23; an emoji sequence twemoji-parser recognises counts 2; any other
// code point counts 1 in v3's ranges (see runeWeight) and 2 outside them.
func WeightedLength(text string) int {
	n, _ := parse(text)
	return n
}

// WithinLimit reports whether the platform accepts text as a post, as
// twitter-text's parseTweet(text).valid does: its weighted length is 1 to
// MaxLength and it holds none of U+FFFE, U+FEFF and U+FFFF.
func WithinLimit(text string) bool {
	n, valid := parse(text)
	return valid && n > 0 && n <= MaxLength
}

// HasLink reports whether text holds a link as X detects it (twitter-text's
// URL rule, bare domains included): X bills a post with a link at a higher
// price.
func HasLink(text string) bool {
	return len(extractLinks(norm.NFC.String(text))) > 0
}

// ExtractURLs returns the links in text as twitter-text's
// extractUrlsWithIndices finds them, with and without a scheme ("https://
// example.com/a", "example.com"), in order: the spans of the NFC-normalised
// text that WeightedLength counts as links.
func ExtractURLs(text string) []string {
	s := norm.NFC.String(text)
	var out []string
	for _, l := range extractLinks(s) {
		end, _ := advanceUTF16(s, l.start, l.units)
		out = append(out, s[l.start:end])
	}
	return out
}

// parse weighs text and reports whether it is free of the characters
// twitter-text refuses.
func parse(text string) (length int, valid bool) {
	s := norm.NFC.String(text)
	links := extractLinks(s)
	emoji := extractEmoji(s)
	weight, l, e := 0, 0, 0
	for i := 0; i < len(s); {
		// Links and emoji are sorted by start; those that begin inside a
		// span already counted are skipped, as twitter-text skips them.
		for l < len(links) && links[l].start < i {
			l++
		}
		for e < len(emoji) && emoji[e][0] < i {
			e++
		}
		switch {
		case l < len(links) && links[l].start == i:
			weight += urlWeight
			var split bool
			i, split = advanceUTF16(s, i, links[l].units)
			if split {
				// twitter-text resumes on the second half of a surrogate
				// pair, which weighs the default.
				weight += defaultWeight
			}
		case e < len(emoji) && emoji[e][0] == i:
			weight += defaultWeight
			i = emoji[e][1]
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			weight += runeWeight(r)
			i += size
		}
	}
	// twitter-text checks each character it steps on; none of these can be
	// inside a link or an emoji, so checking the whole text is the same.
	valid = !strings.ContainsAny(s, "\uFFFE\uFEFF\uFFFF")
	return weight / weightScale, valid
}

// runeWeight is v3's weight of a code point: one character in its ranges
// 0–4351 (Latin to Georgian), 8192–8205, 8208–8223 and 8242–8247 (the
// spaces, dashes, quotes and primes of General Punctuation), two elsewhere.
func runeWeight(r rune) int {
	switch {
	case r <= 4351, 8192 <= r && r <= 8205, 8208 <= r && r <= 8223, 8242 <= r && r <= 8247:
		return weightScale
	}
	return defaultWeight
}

// advanceUTF16 moves units UTF-16 code units forward from byte offset i of
// s, and reports whether that ends inside a surrogate pair, in which case
// the returned offset is past the whole code point.
func advanceUTF16(s string, i, units int) (int, bool) {
	for units > 0 && i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		units -= utf16Len(r)
	}
	return i, units < 0
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

func utf16LenString(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// emojiMatcher finds emoji as twemoji-parser 11 does. Its pattern requires,
// for a symbol that is text by default and not followed by U+FE0F, that
// U+FE0E does not follow; RE2 has no lookahead, so the branches doing so
// are marked (textGroups) and checked here, and where U+FE0E follows,
// fallback, without those branches, decides as JavaScript's backtracking
// would. Both are anchored and tried only at a character an emoji can
// start with (first, sorted ranges), much faster than searching the text.
type emojiMatcher struct {
	re         *regexp.Regexp
	fallback   *regexp.Regexp
	textGroups []int
	first      [][2]rune
}

func newEmojiMatcher() emojiMatcher {
	m := emojiMatcher{
		re:       regexp.MustCompile(`^(?:` + emojiPattern + `)`),
		fallback: regexp.MustCompile(`^(?:` + emojiFallbackPattern + `)`),
	}
	for i, name := range m.re.SubexpNames() {
		if strings.HasPrefix(name, "text") {
			m.textGroups = append(m.textGroups, i)
		}
	}
	re, err := syntax.Parse(emojiPattern, syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("twittertext: emoji pattern: %v", err))
	}
	first, err := firstRunes(re.Simplify())
	if err != nil {
		panic(fmt.Sprintf("twittertext: emoji pattern: %v", err))
	}
	sort.Slice(first, func(i, j int) bool { return first[i][0] < first[j][0] })
	m.first = first
	return m
}

// canStart reports whether an emoji can start with r.
func (m emojiMatcher) canStart(r rune) bool {
	i := sort.Search(len(m.first), func(i int) bool { return m.first[i][1] >= r })
	for ; i < len(m.first) && m.first[i][0] <= r; i++ {
		if r <= m.first[i][1] {
			return true
		}
	}
	return false
}

// firstRunes returns the ranges of the characters re's matches can start
// with, for the constructs the emoji pattern uses; re must not match the
// empty string.
func firstRunes(re *syntax.Regexp) ([][2]rune, error) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			break
		}
		return [][2]rune{{re.Rune[0], re.Rune[0]}}, nil
	case syntax.OpCharClass:
		var out [][2]rune
		for i := 0; i < len(re.Rune); i += 2 {
			out = append(out, [2]rune{re.Rune[i], re.Rune[i+1]})
		}
		return out, nil
	case syntax.OpCapture, syntax.OpPlus:
		return firstRunes(re.Sub[0])
	case syntax.OpAlternate:
		var out [][2]rune
		for _, sub := range re.Sub {
			f, err := firstRunes(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
		return out, nil
	case syntax.OpConcat:
		var out [][2]rune
		for _, sub := range re.Sub {
			optional := sub.Op == syntax.OpQuest || sub.Op == syntax.OpStar
			if optional {
				// Its first characters and those of what follows it.
				sub = sub.Sub[0]
			}
			f, err := firstRunes(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
			if !optional {
				return out, nil
			}
		}
	}
	return nil, fmt.Errorf("cannot tell how %v starts", re)
}

// emojiRE is compiled once; regexp values are safe for concurrent use and
// never change.
var emojiRE = newEmojiMatcher()

// extractEmoji returns the byte spans of the emoji in s, in order.
func extractEmoji(s string) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(s); {
		r, size := utf8.DecodeRuneInString(s[pos:])
		if !emojiRE.canStart(r) {
			pos += size
			continue
		}
		end := -1
		if m := emojiRE.re.FindStringSubmatchIndex(s[pos:]); m != nil {
			end = pos + m[1]
			for _, g := range emojiRE.textGroups {
				if m[2*g] >= 0 && strings.HasPrefix(s[pos+m[2*g]:], "\uFE0E") {
					end = -1
					if f := emojiRE.fallback.FindStringIndex(s[pos:]); f != nil {
						end = pos + f[1]
					}
				}
			}
		}
		if end < 0 {
			pos += size
			continue
		}
		out = append(out, [2]int{pos, end})
		pos = end
	}
	return out
}

// A link is where a URL twitter-text extracts begins (a byte offset) and
// how many UTF-16 code units parseTweet then skips: its URL's length, which
// for a URL without a scheme can differ from its span in the text.
type link struct {
	start, units int
}

// linkMatcher holds twitter-text's URL patterns, which are matched against
// matchText's copy of the text.
type linkMatcher struct {
	first, rest, asciiDomain, tco *regexp.Regexp
}

// The pieces of twitter-text's URL rule (src/regexp in its sources), in
// RE2 syntax. twitter-text's TLDs must be followed by the end of the text
// or a character outside [0-9a-zA-Z@+-]; RE2 has no lookahead, so that
// character is matched in a group named "la" and given back by the caller.
const (
	invalidChars      = `\x{FFFE}\x{FEFF}\x{FFFF}`
	directionalMarks  = `\x{202A}-\x{202E}\x{061C}\x{200E}\x{200F}\x{2066}\x{2067}\x{2068}\x{2069}`
	spaceChars        = `\x09-\x0D\x20\x{85}\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
	punctChars        = `!'#%&()*+,\\\-./:;<=>?@\[\]\^_{|}~$`
	latinAccentChars  = `\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{FF}\x{100}-\x{24F}\x{253}\x{254}\x{256}\x{257}\x{259}\x{25B}\x{263}\x{268}\x{26F}\x{272}\x{289}\x{28B}\x{2BB}\x{300}-\x{36F}\x{1E00}-\x{1EFF}`
	cyrillicChars     = `\x{400}-\x{4FF}`
	validDomainChars  = `[^` + punctChars + spaceChars + invalidChars + directionalMarks + `]`
	validSubdomain    = `(?:(?:` + validDomainChars + `(?:[_-]|` + validDomainChars + `)*)?` + validDomainChars + `\.)`
	validDomainName   = `(?:(?:` + validDomainChars + `(?:-|` + validDomainChars + `)*)?` + validDomainChars + `\.)`
	validTLD          = `(?:` + gTLDs + `|` + ccTLDs + `)`
	tldEnd            = `(?:\z|(?P<la>[^0-9a-zA-Z@+\-]))`
	validPunycode     = `(?:xn--[\-0-9a-z]+)`
	urlPathChars      = `[a-z` + cyrillicChars + `0-9!*';:=+,.$/%#\[\]\-\x{2013}_~@|&` + latinAccentChars + `]`
	urlBalancedParens = `\((?:` + urlPathChars + `+|(?:` + urlPathChars + `*\(` + urlPathChars + `+\)` + urlPathChars + `*))\)`
	urlPathEnding     = `(?:[+\-a-z` + cyrillicChars + `0-9=_#/` + latinAccentChars + `]|(?:` + urlBalancedParens + `))`
	urlPath           = `(?:(?:` + urlPathChars + `*(?:` + urlBalancedParens + urlPathChars + `*)*` + urlPathEnding + `)|(?:@` + urlPathChars + `+/))`
	urlQueryChars     = `[a-z0-9!?*'@();:&=+$/%#\[\]\-_.,~|]`
	urlQueryEnding    = `[a-z0-9\-_&=#/]`
	urlPrecedingChars = `[^A-Za-z0-9@＠$#＃` + invalidChars + `]|[` + directionalMarks + `]`
)

// urlPattern is twitter-text's extractUrl: a preceding character (or, for
// the first search, the start of the text), an optional scheme, the domain,
// port, path and query. The tail after a TLD is spelt out so that the
// lookahead only applies when nothing follows the TLD in the URL, which is
// the only case where the following character can fail it.
func urlPattern(preceding string) string {
	port := `(?::[0-9]+)`
	path := func(name string) string { return `(?P<` + name + `>/` + urlPath + `*)` }
	query := `(?:\?` + urlQueryChars + `*` + urlQueryEnding + `)`
	tail := port + `?` + path("path0") + `?` + query + `?`
	tailLA := `(?:` + port + path("path1") + `?` + query + `?|` + path("path2") + query + `?|` + query + `|` + tldEnd + `)`
	return `(?i)(?P<before>` + preceding + `)(?P<url>(?P<protocol>https?://)?(?P<labels>` + validSubdomain + `*` + validDomainName +
		`)(?:(?P<tld>` + validTLD + `)` + tailLA + `|(?P<puny>` + validPunycode + `)` + tail + `))`
}

func newLinkMatcher() linkMatcher {
	return linkMatcher{
		first:       regexp.MustCompile(urlPattern(`(?:` + urlPrecedingChars + `|^)`)),
		rest:        regexp.MustCompile(urlPattern(`(?:` + urlPrecedingChars + `)`)),
		asciiDomain: regexp.MustCompile(`(?i)(?:(?:[\-a-z0-9` + latinAccentChars + `]+)\.)+(?:` + validTLD + tldEnd + `|` + validPunycode + `)`),
		tco:         regexp.MustCompile(`(?i)^https?://t\.co/([a-z0-9]+)(?:\?` + urlQueryChars + `*` + urlQueryEnding + `)?`),
	}
}

// linkRE is compiled once; regexp values are safe for concurrent use and
// never change.
var linkRE = newLinkMatcher()

const (
	maxURLLength     = 4096
	maxTcoSlugLength = 40
)

// group returns the span of the named group of a match found at offset pos,
// or -1, -1.
func group(re *regexp.Regexp, m []int, pos int, name string) (int, int) {
	i := re.SubexpIndex(name)
	if m[2*i] < 0 {
		return -1, -1
	}
	return pos + m[2*i], pos + m[2*i+1]
}

// extractLinks is twitter-text's extractUrlsWithIndices with URLs without
// a scheme included: the links of s, by start.
func extractLinks(s string) []link {
	if !mayHoldLink(s) {
		return nil
	}
	m := matchText(s)
	var out []link
	re := linkRE.first
	for pos := 0; pos < len(m); re = linkRE.rest {
		match := re.FindStringSubmatchIndex(m[pos:])
		if match == nil {
			break
		}
		start, end := group(re, match, pos, "url")
		if la, _ := group(re, match, pos, "la"); la >= 0 {
			end = la
		}
		out = append(out, checkLink(s, m, re, match, pos, start, end)...)
		pos = end
	}
	return out
}

// mayHoldLink reports whether s has a dot followed by a letter, which every
// link has before its top-level domain (a letter of some script, or the x
// of a punycode xn--): a text without one, as most sentences are, skips
// the link pattern, the costliest part of counting.
func mayHoldLink(s string) bool {
	for i := strings.IndexByte(s, '.'); i >= 0; {
		r, _ := utf8.DecodeRuneInString(s[i+1:])
		if unicode.IsLetter(r) {
			return true
		}
		next := strings.IndexByte(s[i+1:], '.')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// checkLink applies extractUrlsWithIndices' checks to a match of the URL
// pattern in m, matchText(s), found searching from pos and spanning
// m[start:end], and returns the links it yields.
func checkLink(s, m string, re *regexp.Regexp, match []int, pos, start, end int) []link {
	domainStart, _ := group(re, match, pos, "labels")
	_, domainEnd := group(re, match, pos, "tld")
	if domainEnd < 0 {
		_, domainEnd = group(re, match, pos, "puny")
	}
	domain := m[domainStart:domainEnd]
	url := m[start:end]
	protocol := "https://"
	protoStart, protoEnd := group(re, match, pos, "protocol")
	if protoStart >= 0 {
		protocol = m[protoStart:protoEnd]
	}
	if !validIDN(domain, codeUnits(s, m, domainStart, domainEnd)) || len(protocol)+utf16LenString(url) > maxURLLength {
		return nil
	}
	if protoStart >= 0 {
		if t := linkRE.tco.FindStringSubmatch(url); t != nil {
			if len(t[1]) > maxTcoSlugLength {
				return nil
			}
			url = t[0]
		}
		return []link{{start: start, units: utf16LenString(url)}}
	}
	// Without a scheme: not after - _ . or /, and only the ASCII domains in
	// the domain count, the last one with the path if there is one.
	beforeStart, beforeEnd := group(re, match, pos, "before")
	if before := m[beforeStart:beforeEnd]; before != "" && strings.ContainsAny(before[len(before)-1:], "-_./") {
		return nil
	}
	var out []link
	asciiEnd := 0
	for dpos := 0; dpos < len(domain); {
		d := linkRE.asciiDomain.FindStringSubmatchIndex(domain[dpos:])
		if d == nil {
			break
		}
		matchEnd := dpos + d[1]
		if la, _ := group(linkRE.asciiDomain, d, dpos, "la"); la >= 0 {
			matchEnd = la
		}
		ascii := domain[dpos+d[0] : matchEnd]
		// twitter-text places it with indexOf from the previous one's end.
		asciiStart := asciiEnd + strings.Index(domain[asciiEnd:], ascii)
		asciiEnd = asciiStart + len(ascii)
		out = append(out, link{start: domainStart + asciiStart, units: utf16LenString(ascii)})
		dpos = matchEnd
	}
	if len(out) == 0 {
		return nil
	}
	if pathMatched(re, match) {
		// The URL with its domain replaced by the ASCII one: what
		// parseTweet skips.
		last := &out[len(out)-1]
		last.units = utf16LenString(strings.Replace(url, domain, domain[last.start-domainStart:asciiEnd], 1))
	}
	return out
}

func pathMatched(re *regexp.Regexp, match []int) bool {
	for _, name := range []string{"path0", "path1", "path2"} {
		if s, _ := group(re, match, 0, name); s >= 0 {
			return true
		}
	}
	return false
}

// validIDN is twitter-text's idna.toAscii check of a domain (as matched,
// and as JavaScript sees it, units): a domain starting xn-- must hold an
// ASCII domain, and every label, punycode-encoded as the punycode
// package's toASCII does, must be 1 to 63 characters.
func validIDN(domain string, units []rune) bool {
	if strings.HasPrefix(domain, "xn--") && !linkRE.asciiDomain.MatchString(domain) {
		return false
	}
	for label := range splitRunes(units, func(r rune) bool { return r == '.' }) {
		if n := punycodeToASCIILen(label); n < 1 || n > 63 {
			return false
		}
	}
	return true
}

// splitRunes yields the parts of rs between the runes sep reports.
func splitRunes(rs []rune, sep func(rune) bool) iter.Seq[[]rune] {
	return func(yield func([]rune) bool) {
		from := 0
		for i, r := range rs {
			if sep(r) {
				if !yield(rs[from:i]) {
					return
				}
				from = i + 1
			}
		}
		yield(rs[from:])
	}
}

// punycodeToASCIILen is the length of punycode.toASCII(label) (punycode.js
// 1.4): the ideographic and full-width full stops separate labels too, and
// a label with a character outside U+0020–U+007E becomes xn-- and its
// RFC 3492 encoding.
func punycodeToASCIILen(label []rune) int {
	n := -1
	for part := range splitRunes(label, func(r rune) bool { return r == '.' || r == 0x3002 || r == 0xFF0E || r == 0xFF61 }) {
		n++ // the separator before it
		ascii := true
		for _, r := range part {
			if r < 0x20 || r > 0x7E {
				ascii = false
				break
			}
		}
		if ascii {
			n += len(part)
		} else {
			n += len("xn--") + punycodeLen(part)
		}
	}
	return n
}

// JavaScript's regular expressions without the u flag see UTF-16 code
// units, so twitter-text's URL pattern can split a character outside the
// BMP: its high surrogate can be the character before a link and its low
// one the start of the link's domain. matchText therefore writes each such
// character as two placeholders, highUnit and lowUnit, two bytes each like
// the four of the character, which the URL patterns treat as they treat
// surrogates: any negated class takes them, no other class does. It also
// writes ſ (U+017F) as ƀ (U+0180): Go's (?i) folds ſ to s, JavaScript's
// does not, and the two belong to the same classes otherwise. Offsets into
// the copy are offsets into the text.
const (
	highUnit = '\u0081'
	lowUnit  = '\u0082'
)

func matchText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case size == 4:
			b.WriteRune(highUnit)
			b.WriteRune(lowUnit)
		case r == 'ſ':
			b.WriteRune('ƀ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// codeUnits returns the text of s that m[from:to] stands for (m being
// matchText(s)) as punycode.js's ucs2decode reads it: code points, with a
// surrogate the range splits from its pair as a code point of its own.
func codeUnits(s, m string, from, to int) []rune {
	var out []rune
	for i := from; i < to; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case size == 4 && i+4 <= to:
			out = append(out, r)
			i += 4
		case size == 4:
			out = append(out, 0xD800+(r-0x10000)>>10)
			i += 2
		case strings.HasPrefix(m[i:], string(lowUnit)) && !utf8.RuneStart(s[i]):
			// The low half of the character that starts two bytes back.
			whole, _ := utf8.DecodeRuneInString(s[i-2:])
			out = append(out, 0xDC00+(whole-0x10000)&0x3FF)
			i += 2
		default:
			out = append(out, r)
			i += size
		}
	}
	return out
}

// punycodeLen is the length of the RFC 3492 encoding of input.
func punycodeLen(input []rune) int {
	const (
		base, tMin, tMax = 36, 1, 26
		skew, damp       = 38, 700
		initialBias      = 72
		initialN         = 128
	)
	out := 0
	for _, r := range input {
		if r < 0x80 {
			out++
		}
	}
	handled := out
	if out > 0 {
		out++ // the delimiter
	}
	n, delta, bias := rune(initialN), 0, initialBias
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		return k + (base-tMin+1)*delta/(delta+skew)
	}
	basic := handled
	for handled < len(input) {
		m := rune(0x7FFFFFFF)
		for _, r := range input {
			if r >= n && r < m {
				m = r
			}
		}
		delta += int(m-n) * (handled + 1)
		n = m
		for _, r := range input {
			if r < n {
				delta++
			}
			if r == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tMin {
						t = tMin
					} else if t > tMax {
						t = tMax
					}
					if q < t {
						break
					}
					out++
					q = (q - t) / (base - t)
				}
				out++
				bias = adapt(delta, handled+1, handled == basic)
				delta = 0
				handled++
			}
		}
		delta++
		n++
	}
	return out
}
