package post

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxLength is the platform's limit on a post's weighted length.
const MaxLength = 280

// urlLength is what any URL counts for, since the platform shortens every link.
const urlLength = 23

// urlPattern finds links the way twitter-text does for the cases a persona
// writes: a host under a known TLD, with or without an http(s) scheme, and
// its path; trailing punctuation is left out of the link.
var urlPattern = regexp.MustCompile(`(?i)(?:https?://)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:` + tlds + `)\b(?::[0-9]+)?(?:[/?#][^\s<>"]*)?`)

// tlds lists the top-level domains a bare host may end in to count as a link:
// the common generic ones and every two-letter country code in use.
const tlds = `com|org|net|edu|gov|mil|int|info|biz|name|pro|aero|coop|museum|mobi|asia|tel|travel|jobs|cat|xxx|` +
	`app|dev|io|ai|bar|blog|shop|site|online|tech|store|xyz|club|live|news|world|art|cloud|page|link|me|tv|cc|ly|gg|fm|` +
	`ac|ad|ae|af|ag|al|am|ao|aq|ar|as|at|au|aw|ax|az|ba|bb|bd|be|bf|bg|bh|bi|bj|bm|bn|bo|br|bs|bt|bw|by|bz|ca|cd|cf|cg|` +
	`ch|ci|ck|cl|cm|cn|co|cr|cu|cv|cw|cx|cy|cz|de|dj|dk|dm|do|dz|ec|ee|eg|er|es|et|eu|fi|fj|fk|fo|fr|ga|gb|gd|ge|gf|gh|` +
	`gi|gl|gm|gn|gp|gq|gr|gs|gt|gu|gw|gy|hk|hm|hn|hr|ht|hu|id|ie|il|im|in|iq|ir|is|it|je|jm|jo|jp|ke|kg|kh|ki|km|kn|kp|` +
	`kr|kw|ky|kz|la|lb|lc|li|lk|lr|ls|lt|lu|lv|ma|mc|md|mg|mh|mk|ml|mm|mn|mo|mp|mq|mr|ms|mt|mu|mv|mw|mx|my|mz|na|nc|` +
	`ne|nf|ng|ni|nl|no|np|nr|nu|nz|om|pa|pe|pf|pg|ph|pk|pl|pm|pn|pr|ps|pt|pw|py|qa|re|ro|rs|ru|rw|sa|sb|sc|sd|se|sg|sh|` +
	`si|sk|sl|sm|sn|so|sr|ss|st|sv|sx|sy|sz|tc|td|tf|tg|th|tj|tk|tl|tm|tn|to|tr|tt|tw|tz|ua|ug|uk|us|uy|uz|va|vc|ve|vg|` +
	`vi|vn|vu|wf|ws|ye|yt|za|zm|zw`

// WeightedLength is a text's length as the platform counts it (twitter-text
// configuration v3): the text is NFC-normalised; a URL counts 23; an emoji,
// ZWJ sequences, skin tones, flags and keycaps included, counts 2; a code point
// in U+0000–U+10FF, U+2000–U+200D, U+2010–U+201F or U+2032–U+2037 counts 1;
// any other counts 2.
func WeightedLength(text string) int {
	s := norm.NFC.String(text)
	n, done := 0, 0
	for _, span := range urlSpans(s) {
		n += weighRunes(s[done:span[0]]) + urlLength
		done = span[1]
	}
	return n + weighRunes(s[done:])
}

// urlSpans returns the byte spans of the links in s, in order.
func urlSpans(s string) [][2]int {
	var out [][2]int
	for _, m := range urlPattern.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		// A bare host glued to a word, a mention or an e-mail is not a link.
		if start > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:start])
			if isWordRune(r) || strings.ContainsRune("@$#.-_/:", r) {
				continue
			}
		}
		end = start + len(strings.TrimRight(s[start:end], ".,;:!?)]}'\""))
		out = append(out, [2]int{start, end})
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

// weighRunes weighs text that holds no link.
func weighRunes(s string) int {
	n := 0
	for len(s) > 0 {
		if k := emojiLen(s); k > 0 {
			n += 2
			s = s[k:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		n += runeWeight(r)
		s = s[size:]
	}
	return n
}

func runeWeight(r rune) int {
	switch {
	case r <= 0x10FF, 0x2000 <= r && r <= 0x200D, 0x2010 <= r && r <= 0x201F, 0x2032 <= r && r <= 0x2037:
		return 1
	}
	return 2
}

const (
	zwj           = 0x200D
	variationSel  = 0xFE0F
	keycapMark    = 0x20E3
	skinToneFirst = 0x1F3FB
	skinToneLast  = 0x1F3FF
)

// emojiLen returns the byte length of the emoji sequence at the start of s, or 0.
func emojiLen(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case isRegionalIndicator(r):
		if r2, size2 := utf8.DecodeRuneInString(s[size:]); isRegionalIndicator(r2) {
			return size + size2
		}
		return size
	case r == '#' || r == '*' || ('0' <= r && r <= '9'):
		i := size
		if r2, n := utf8.DecodeRuneInString(s[i:]); r2 == variationSel {
			i += n
		}
		if r2, n := utf8.DecodeRuneInString(s[i:]); r2 == keycapMark {
			return i + n
		}
		return 0
	case r == 0xA9 || r == 0xAE:
		// © and ® are text unless asked to show as emoji.
		if r2, n := utf8.DecodeRuneInString(s[size:]); r2 == variationSel {
			return size + n + emojiTail(s[size+n:])
		}
		return 0
	case isPictographic(r):
		return size + emojiTail(s[size:])
	}
	return 0
}

// emojiTail returns the byte length of the modifiers, ZWJ links and tags that
// continue an emoji whose base has already been read.
func emojiTail(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == variationSel, skinToneFirst <= r && r <= skinToneLast, 0xE0020 <= r && r <= 0xE007F:
			i += size
		case r == zwj:
			next, n := utf8.DecodeRuneInString(s[i+size:])
			if !isPictographic(next) {
				return i
			}
			i += size + n
		default:
			return i
		}
	}
	return i
}

func isRegionalIndicator(r rune) bool { return 0x1F1E6 <= r && r <= 0x1F1FF }

// isPictographic approximates Unicode's Extended_Pictographic property with
// the blocks that hold emoji; outside U+0000–U+10FF every one of them weighs 2
// anyway, so the approximation only decides how sequences group.
func isPictographic(r rune) bool {
	switch {
	case 0x1F000 <= r && r <= 0x1FAFF,
		0x2600 <= r && r <= 0x27BF,
		0x2300 <= r && r <= 0x23FF,
		0x2B00 <= r && r <= 0x2BFF,
		0x2190 <= r && r <= 0x21FF,
		0x25A0 <= r && r <= 0x25FF,
		0x2100 <= r && r <= 0x214F,
		r == 0x203C, r == 0x2049, r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299,
		r == 0x2934, r == 0x2935, r == 0x24C2:
		return true
	}
	return false
}

// WithinLimit reports whether text may be posted: not empty and at most MaxLength.
func WithinLimit(text string) bool {
	n := WeightedLength(text)
	return n > 0 && n <= MaxLength
}
