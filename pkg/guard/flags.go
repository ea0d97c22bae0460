package guard

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"infernal/pkg/twittertext"
)

// Flag names a reason to look twice at a draft before it goes out; flags
// are the values of a post's "flags" field in the API.
type Flag string

// The outbound check's flags, in the order Flags reports them.
const (
	// FlagLink is a link in the draft (a post with a link costs more on X,
	// and the writer has no business inventing one).
	FlagLink Flag = "link"
	// FlagForeignMention is an @handle that is neither in the conversation
	// nor the persona's.
	FlagForeignMention Flag = "foreign_mention"
	// FlagPlaceholder is a template leftover: {persona}, {{name}}, [name],
	// [...], <post>.
	FlagPlaceholder Flag = "placeholder"
	// FlagSecret is text that looks like a credential: an API key or token.
	FlagSecret Flag = "secret"
	// FlagNearDuplicate is a draft still a NearDuplicate of a recent persona
	// post after its one redraft; the pipeline sets it, Flags does not.
	FlagNearDuplicate Flag = "near_duplicate"
)

// AllFlags are the flags a post can carry: those Flags reports, in its
// order, then FlagNearDuplicate.
func AllFlags() []Flag {
	return []Flag{FlagLink, FlagForeignMention, FlagPlaceholder, FlagSecret, FlagNearDuplicate}
}

// The patterns are compiled once; regexp values are safe for concurrent
// use and never change.

// mentionPattern is twitter-text's mention: an @ (or full-width ＠) not
// after a letter, digit or one of _!#$%&*@, and up to 15 handle characters
// not followed by another handle character or @.
var mentionPattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_!#$%&*@＠])[@＠]([A-Za-z0-9_]{1,15})(?:$|[^A-Za-z0-9_@＠])`)

// placeholderPatterns are the template leftovers: braces around a name
// ({persona}, {{ name }}), square brackets around a short phrase or an
// ellipsis ([name], [your handle], [...], […]), and angle brackets around
// a word (<post>, <user name>), not "<3".
var placeholderPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\{\{?\s*[^{}\n]{1,40}?\s*\}\}?`),
	regexp.MustCompile(`\[[^\[\]\n]{1,40}\]`),
	regexp.MustCompile(`<\s*[A-Za-z_][A-Za-z0-9_ .-]{0,30}>`),
}

// secretPatterns are credential shapes: OpenAI-style sk- keys, Stripe
// keys, Slack tokens, AWS access key IDs, GitHub tokens, Google API keys,
// JWTs, PEM private keys and "Bearer" tokens. Long hex and base64 runs are
// checked by randomToken.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\bsk-(?:[a-z]+-)?[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}`),
	regexp.MustCompile(`\bxox[abporse]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*`),
}

// Flags is the outbound check of a draft or an edit: the flags that apply
// to text, each once, in the order of AllFlags; nil when none does.
// conversation holds the handles of the conversation's participants and
// persona the persona's handle (with or without the @; compared ignoring
// case, as X does). The checks look at the text as written and at its
// Outbound form, so that zero-width characters, look-alike letters and
// full-width or ideographic dots hide no link, mention or secret.
func Flags(text string, conversation []string, persona string) []Flag {
	folded := Outbound(text)
	var out []Flag
	if len(twittertext.ExtractURLs(text)) > 0 || len(twittertext.ExtractURLs(folded)) > 0 || linkLike(folded) {
		out = append(out, FlagLink)
	}
	if foreignMention(text, conversation, persona) || foreignMention(folded, conversation, persona) {
		out = append(out, FlagForeignMention)
	}
	if matchesAny(text, placeholderPatterns) || matchesAny(folded, placeholderPatterns) {
		out = append(out, FlagPlaceholder)
	}
	if looksSecret(text) || looksSecret(folded) {
		out = append(out, FlagSecret)
	}
	return out
}

// Outbound is text as the outbound check reads it: Unicode NFKC (full-width
// letters, digits, @ and dots become ASCII), invisible characters removed
// (as Normalize removes them), white space made plain spaces, every dot-like character a ".", and every
// other non-ASCII character with a confusables prototype in ASCII replaced
// by it ("еvil" with a Cyrillic е becomes "evil"). ASCII text is left as
// it is, case included, since credentials are told apart by case.
func Outbound(text string) string {
	s := norm.NFKC.String(text)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case r < unicode.MaxASCII && !unicode.IsControl(r):
			b.WriteRune(r)
		case invisible(r):
		case dotLike(r):
			b.WriteByte('.')
		default:
			if p, ok := prototype(r); ok && ascii(p) {
				b.WriteString(p)
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dotLike reports whether r is read as a full stop in a host name: the
// ideographic and half-width ideographic full stops (which browsers accept
// as dots in a domain), the one-dot leader, the small and full-width full
// stops and the Syriac and Vai ones.
func dotLike(r rune) bool {
	switch r {
	case 0x3002, 0xFF61, 0xFF0E, 0x2024, 0xFE52, 0x0701, 0x0702, 0xA60E, 0x10A50:
		return true
	}
	return false
}

// ascii reports whether s is printable ASCII only.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7F {
			return false
		}
	}
	return s != ""
}

// schemePattern is any URL scheme followed by "//" (https://, hxxp://,
// ftp://) and something after it.
var schemePattern = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,15}://\S`)

// hostPattern is a host-like token with any top-level domain: labels of
// letters, digits and hyphens joined by dots, the last of two or more
// letters, not part of an e-mail address or a longer word.
var hostPattern = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_@.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(?:$|[^a-z0-9_@-])`)

// linkLike reports whether text holds what a reader would take for a link
// even where twitter-text does not: a scheme with "//", or a host-like
// token whatever its top-level domain ("evil.example").
func linkLike(text string) bool {
	return schemePattern.MatchString(text) || hostPattern.MatchString(text)
}

// foreignMention reports whether text @mentions a handle that is neither
// one of conversation nor persona.
func foreignMention(text string, conversation []string, persona string) bool {
	known := map[string]bool{strings.ToLower(Outbound(strings.TrimPrefix(persona, "@"))): true}
	for _, h := range conversation {
		known[strings.ToLower(Outbound(strings.TrimPrefix(h, "@")))] = true
	}
	for _, h := range Mentions(text) {
		if !known[strings.ToLower(h)] {
			return true
		}
	}
	return false
}

// Mentions returns the handles text @mentions, without the @, in order
// (repeats kept), as X finds them.
func Mentions(text string) []string {
	var out []string
	s := norm.NFC.String(text)
	// The pattern takes the character before and after a mention; scanning
	// from the end of each match minus that character finds adjacent ones
	// ("@a @b").
	for pos := 0; pos < len(s); {
		m := mentionPattern.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		out = append(out, s[pos+m[2]:pos+m[3]])
		pos += m[3]
	}
	return out
}

// ReplyFlags is the outbound check of a draft answering a post of author
// whose text is original: the conversation is the author and the handles
// the original mentions (a profile post, with no author, has none).
func ReplyFlags(draft, author, original, persona string) []Flag {
	var conversation []string
	if author != "" {
		conversation = append(conversation, author)
	}
	return Flags(draft, append(conversation, Mentions(original)...), persona)
}

// Strings returns flags as the strings a post stores, never nil.
func Strings(flags []Flag) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		out = append(out, string(f))
	}
	return out
}

// OverrideError refuses to approve a flagged draft without an explicit
// "approve anyway": it names the flags of the text to be approved.
type OverrideError struct {
	// Flags are the outbound check's findings on the text.
	Flags []string
}

// Error names the flags.
func (e *OverrideError) Error() string {
	return "the draft is flagged (" + strings.Join(e.Flags, ", ") + "): approve anyway to send it"
}

func matchesAny(text string, patterns []*regexp.Regexp) bool {
	for _, re := range patterns {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// minRandomToken is the length from which a run of hex or base64
// characters is taken for a key: a 128-bit key is 32 hex digits.
const minRandomToken = 32

// looksSecret reports whether text holds a credential shape, or a long
// run of letters and digits (with + and =, as base64 has them) that looks
// random: see randomToken. Runs are split at "/", "-" and "_", so that a
// link's path or a slug is not one long run.
func looksSecret(text string) bool {
	if matchesAny(text, secretPatterns) {
		return true
	}
	run := func(r rune) bool {
		return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '+' || r == '=')
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !run(r) }) {
		if len(f) >= minRandomToken && randomToken(f) {
			return true
		}
	}
	return false
}

// randomToken reports whether a run is hex digits with at least one digit,
// or mixes capitals, small letters and digits and changes between them
// more often than every other character. Words run together
// ("ThisIsMyLongHashtag2026") change about every other character; a
// random key far more often.
func randomToken(s string) bool {
	var upper, lower, digit, nonHex bool
	changes, prev := 0, rune(0)
	for i, r := range s {
		class := rune(0)
		switch {
		case unicode.IsUpper(r):
			upper, class = true, 'A'
		case unicode.IsLower(r):
			lower, class = true, 'a'
		case unicode.IsDigit(r):
			digit, class = true, '0'
		}
		if i > 0 && class != prev {
			changes++
		}
		prev = class
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			nonHex = true
		}
	}
	return (!nonHex && digit) || (upper && lower && digit && 2*changes > len(s))
}
