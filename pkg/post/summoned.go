package post

import (
	"strings"
	"unicode/utf8"
)

// Summoned reports whether the post p answers summoned the persona
// (handle, with or without the @): it came from the persona's mentions, or
// its text @mentions the persona (ignoring case, as X does). X bills the
// reply to such a post at the summoned price under every reply policy.
func (p Post) Summoned(handle string) bool {
	return p.Source == SourceMention || MentionsHandle(p.OriginalPostText, handle)
}

// MentionsHandle reports whether text @mentions handle (an @ or full-width
// ＠ not after a handle character, then the handle, then no further handle
// character), ignoring case.
func MentionsHandle(text, handle string) bool {
	handle = strings.ToLower(strings.TrimPrefix(handle, "@"))
	if handle == "" {
		return false
	}
	lower := strings.ToLower(text)
	for i := 0; i < len(lower); {
		r, size := utf8.DecodeRuneInString(lower[i:])
		if (r == '@' || r == '＠') && (i == 0 || !handleByte(lower[i-1])) {
			rest := lower[i+size:]
			if strings.HasPrefix(rest, handle) && (len(rest) == len(handle) || !handleByte(rest[len(handle)])) {
				return true
			}
		}
		i += size
	}
	return false
}

// handleByte reports whether b is a character of a handle.
func handleByte(b byte) bool {
	return b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')
}
