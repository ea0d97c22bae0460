package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Piece is a chunk before it is stored: its heading and text.
type Piece struct {
	Heading string
	Text    string
}

// Split cuts text into pieces along its headings (Markdown "#" lines, or
// a line underlined with "===" or "---") and paragraphs (blank lines):
// paragraphs of one section are joined while they fit in ChunkChars
// characters; a longer paragraph is cut between sentences, a longer
// sentence between words, and a longer word every ChunkChars characters.
// Every piece is at most ChunkChars characters and none is blank.
func Split(text string) []Piece {
	var out []Piece
	heading := ""
	var paras []string
	var para []string
	flushPara := func() {
		if p := strings.TrimSpace(strings.Join(para, "\n")); p != "" {
			paras = append(paras, p)
		}
		para = para[:0]
	}
	flushSection := func() {
		flushPara()
		out = append(out, pack(heading, paras)...)
		paras = paras[:0]
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if h, ok := atxHeading(trimmed); ok {
			flushSection()
			heading = h
			continue
		}
		// A Setext heading: a text line underlined by === or ---.
		if trimmed != "" && len(para) == 0 && i+1 < len(lines) && underline(strings.TrimSpace(lines[i+1])) {
			flushSection()
			heading = cutRunes(trimmed, ChunkChars/4)
			lines[i+1] = ""
			continue
		}
		if trimmed == "" {
			flushPara()
			continue
		}
		para = append(para, strings.TrimRightFunc(line, unicode.IsSpace))
	}
	flushSection()
	return out
}

// atxHeading returns the text of a "# Heading" line.
func atxHeading(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(line) && line[n] != ' ' && line[n] != '\t') {
		return "", false
	}
	h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[n:]), "#"))
	return cutRunes(h, ChunkChars/4), true
}

// underline reports whether line underlines a Setext heading.
func underline(line string) bool {
	if len(line) < 3 {
		return false
	}
	return strings.Trim(line, "=") == "" || strings.Trim(line, "-") == ""
}

// pack joins paras into pieces of at most ChunkChars characters.
func pack(heading string, paras []string) []Piece {
	var out []Piece
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if curLen > 0 {
			out = append(out, Piece{Heading: heading, Text: cur.String()})
		}
		cur.Reset()
		curLen = 0
	}
	for _, p := range paras {
		for _, part := range cut(p, ChunkChars) {
			n := utf8.RuneCountInString(part)
			if curLen > 0 && curLen+2+n > ChunkChars {
				flush()
			}
			if curLen > 0 {
				cur.WriteString("\n\n")
				curLen += 2
			}
			cur.WriteString(part)
			curLen += n
		}
	}
	flush()
	return out
}

// cut splits s into parts of at most limit characters: between
// sentences, else between words, else anywhere.
func cut(s string, limit int) []string {
	if utf8.RuneCountInString(s) <= limit {
		return []string{s}
	}
	var out []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
		curLen = 0
	}
	add := func(part string, sep string) {
		n := utf8.RuneCountInString(part)
		if curLen > 0 && curLen+len(sep)+n > limit {
			flush()
		}
		if curLen > 0 {
			cur.WriteString(sep)
			curLen += len(sep)
		}
		cur.WriteString(part)
		curLen += n
	}
	for _, sentence := range sentences(s) {
		if utf8.RuneCountInString(sentence) <= limit {
			add(sentence, " ")
			continue
		}
		for _, w := range strings.Fields(sentence) {
			for utf8.RuneCountInString(w) > limit {
				flush()
				head := cutRunes(w, limit)
				out = append(out, head)
				w = w[len(head):]
			}
			add(w, " ")
		}
	}
	flush()
	return out
}

// sentences splits s after each ".", "!" or "?" that a space follows.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s)-1; i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (s[i+1] == ' ' || s[i+1] == '\n') {
			if t := strings.TrimSpace(s[start : i+1]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// FirstSentence is text's first sentence, at most limit characters.
func FirstSentence(text string, limit int) string {
	s := sentences(strings.Join(strings.Fields(text), " "))
	if len(s) == 0 {
		return ""
	}
	first := s[0]
	if utf8.RuneCountInString(first) > limit {
		first = strings.TrimSpace(cutRunes(first, limit-1)) + "…"
	}
	return first
}

// cutRunes is s's first n characters.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
