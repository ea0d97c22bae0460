package post

import (
	"fmt"
	"unicode/utf8"
)

// TextError is text an administrator wrote that CheckText refuses: the
// first character that may not stand in it. It is an ErrInvalid.
type TextError struct {
	// Field names the text, as the request that carried it does; empty
	// when the caller names it itself (a settings.FieldError around it).
	Field string
	// Rune is the refused character (utf8.RuneError for bytes that are not UTF-8).
	Rune rune
	// At is its position in the text, in characters from 1.
	At int
}

// Error says which character is refused and where, for the client,
// after the field's name when it has one.
func (e *TextError) Error() string {
	var msg string
	switch {
	case e.Rune == utf8.RuneError:
		msg = "is not valid UTF-8"
	case isBidiControl(e.Rune):
		msg = fmt.Sprintf("holds the bidirectional control U+%04X at character %d", e.Rune, e.At)
	default:
		msg = fmt.Sprintf("holds the control character U+%04X at character %d", e.Rune, e.At)
	}
	if e.Field != "" {
		return e.Field + ": " + msg
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *TextError) Unwrap() error { return ErrInvalid }

// CheckField is CheckText for the text of field: its *TextError names the
// field, so the API's answer can point at it.
func CheckField(field, s string) error {
	if te := firstRefused(s); te != nil {
		te.Field = field
		return te
	}
	return nil
}

// CheckText refuses, with a *TextError, text an administrator writes (an
// edited or approved response, persona fields, settings entries, a reason)
// that holds what could hide or disguise what it says once posted, logged
// or shown: a byte that is not UTF-8; a control character, C0 (BEL, ESC
// and the rest, NUL included), DEL or C1, but for line feed, tab, and a
// carriage return that begins a CRLF line break; or a bidirectional
// embedding, override or isolate (U+202A to U+202E, U+2066 to U+2069),
// which reorders the text around it. Line breaks stay allowed: a field
// that must be one line says so itself. It is the one check of this
// kind; every path by which an administrator's text enters calls it.
func CheckText(s string) error {
	if te := firstRefused(s); te != nil {
		return te
	}
	return nil
}

// firstRefused is the *TextError of the first character of s that
// CheckText refuses, nil when there is none.
func firstRefused(s string) *TextError {
	at := 0
	for i, r := range s {
		at++
		switch {
		case r == utf8.RuneError && !isReplacementChar(s[i:]):
			return &TextError{Rune: r, At: at}
		case r == '\n' || r == '\t':
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0), isBidiControl(r):
			return &TextError{Rune: r, At: at}
		}
	}
	return nil
}

// isReplacementChar reports whether s starts with U+FFFD itself, which is
// text, rather than a byte that is not UTF-8.
func isReplacementChar(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return r == utf8.RuneError && size == 3
}

// isBidiControl reports whether r is a bidirectional embedding, override
// or isolate.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
