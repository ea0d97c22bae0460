package post

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Origin says who wrote a version of a draft.
type Origin string

// The origins of a version.
const (
	// OriginWriter is the writer's first draft of the post.
	OriginWriter Origin = "writer"
	// OriginRegenerate is a new draft the reviewer asked the writer for.
	OriginRegenerate Origin = "regenerate"
	// OriginAdmin is the administrator's edit.
	OriginAdmin Origin = "admin"
)

// Version is one text a draft has had.
type Version struct {
	// ID orders the versions; zero for a draft written before versions were kept.
	ID     int64
	Text   string
	Origin Origin
	// Instruction is the reviewer's wish for a regenerated draft; may be empty.
	Instruction string
	At          time.Time
	// LearnedFrom is what shaped the text; empty for the administrator's.
	LearnedFrom LearnedFrom
}

// MaxInstruction is the longest instruction, in characters, a regenerate
// request may carry.
const MaxInstruction = 200

// CheckInstruction refuses an instruction for a regenerated draft unless it
// is one line of at most MaxInstruction characters of valid UTF-8 without
// control characters or bidirectional overrides (CheckText); the empty
// instruction is allowed. It returns the instruction trimmed.
func CheckInstruction(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%w: the instruction must be valid UTF-8", ErrInvalid)
	}
	if err := CheckText(s); err != nil {
		return "", fmt.Errorf("%w: the instruction must be one line, without control characters: it %w", ErrInvalid, err)
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > MaxInstruction {
		return "", fmt.Errorf("%w: the instruction is %d characters; it may be at most %d", ErrInvalid, n, MaxInstruction)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || (r >= 0x80 && r < 0xa0) {
			return "", fmt.Errorf("%w: the instruction must be one line, without control characters", ErrInvalid)
		}
	}
	return s, nil
}

// Regenerable reports whether a post in status s may be given a new draft
// by the writer at the reviewer's request: while it awaits review, pending,
// or failed and kept in view to be fixed (it moves back to pending).
func Regenerable(s Status) bool {
	return s == StatusPending || (s == StatusFailed && CanMove(s, StatusPending))
}
