// Package upstream is how what the services the persona calls answer (X,
// Bluesky, Telegram, the model's API) enters its own errors, log lines and
// the status it shows (Telegram's last_error): as a short excerpt on one
// line, never the whole body. A gateway's HTML page or a long JSON answer
// would otherwise fill a log line, break it over many, or carry control
// characters into a terminal.
package upstream

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxExcerpt is the longest excerpt, in characters, the ellipsis included.
const MaxExcerpt = 200

// ellipsis ends an excerpt that was cut.
const ellipsis = "…"

// tagPattern finds an HTML tag or comment: "<" then a letter, "/", "!" or
// "?", up to the next ">" (so "a < b" and "<=" are left alone).
var tagPattern = regexp.MustCompile(`<[A-Za-z/!?][^<>]*>`)

// maxScan bounds how much of s Excerpt reads: far more than an excerpt
// keeps, even of a page that is mostly markup.
const maxScan = 16 << 10

// Excerpt returns s, an upstream answer or an error text quoting one, as a
// short single line: HTML tags dropped (a gateway's error page keeps its
// words), bytes that are not UTF-8 replaced, every run of white space,
// control characters and bidirectional controls made one space, trimmed,
// and cut to MaxExcerpt characters ending with "…".
func Excerpt(s string) string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = tagPattern.ReplaceAllString(s, " ")
	words := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	})
	line := strings.Join(words, " ")
	if utf8.RuneCountInString(line) <= MaxExcerpt {
		return line
	}
	kept := []rune(line)[:MaxExcerpt-utf8.RuneCountInString(ellipsis)]
	return strings.TrimRightFunc(string(kept), unicode.IsSpace) + ellipsis
}

// Error returns err with its text an Excerpt, still unwrapping to err so
// that errors.Is and errors.As see what the client returned; nil for nil.
// It is for errors whose text quotes an upstream body (an SDK's "body: …").
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &excerptError{text: Excerpt(err.Error()), err: err}
}

// excerptError is an error told by an excerpt of its text.
type excerptError struct {
	text string
	err  error
}

// Error returns the excerpt.
func (e *excerptError) Error() string { return e.text }

// Unwrap returns the error as it came.
func (e *excerptError) Unwrap() error { return e.err }
