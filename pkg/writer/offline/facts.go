package offline

import (
	"fmt"
	"strings"
	"unicode"

	"infernal/pkg/knowledge"
	"infernal/pkg/writer"
)

// factSentence is the most characters of a fact woven into a draft.
const factSentence = 140

// grounded is text with the first sentence of req's best fact woven in
// after it, or that sentence alone when both do not fit in limit; "" when
// req has no fact or its sentence does not fit either way.
func grounded(req writer.Request, text string, limit fit) string {
	if len(req.Facts) == 0 {
		return ""
	}
	s := knowledge.FirstSentence(req.Facts[0].Text, factSentence)
	if s == "" {
		return ""
	}
	if t := strings.TrimSpace(text) + " " + s; limit.holds(t) {
		return t
	}
	if limit.holds(s) {
		return s
	}
	return ""
}

// contradiction is why draft contradicts req's facts, "" when it does not
// seem to: deterministically, a number the draft states that no fact
// holds, in a draft that shares a word with the facts (it speaks of what
// they cover, and gets it wrong).
func contradiction(req writer.Request, draft string) string {
	if len(req.Facts) == 0 {
		return ""
	}
	var all strings.Builder
	for _, f := range req.Facts {
		all.WriteString(f.Title)
		all.WriteString(" ")
		all.WriteString(f.Text)
		all.WriteString(" ")
	}
	facts := all.String()
	if !sharesWord(draft, facts) {
		return ""
	}
	have := map[string]bool{}
	for _, n := range numbers(facts) {
		have[n] = true
	}
	for _, n := range numbers(draft) {
		if !have[n] {
			return fmt.Sprintf("contradicts the facts: they say nothing of %s", n)
		}
	}
	return ""
}

// numbers are the runs of digits in s.
func numbers(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
}
