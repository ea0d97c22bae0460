package knowledge_test

import (
	"fmt"
	"strings"
)

// Document is a Markdown document of about size bytes, different for each
// seed: sections of paragraphs of made-up words, for the benchmarks.
func Document(size int, seed int) string {
	var b strings.Builder
	words := []string{"brimstone", "sinner", "lounge", "furnace", "pitchfork", "gluttony", "queue", "ticket", "opening", "hours", "midnight", "dawn", "admission", "contact", "complaint", "lava", "sulphur", "cocktail", "imp", "demon"}
	for s := 0; b.Len() < size; s++ {
		fmt.Fprintf(&b, "# Section %d of document %d\n\n", s, seed)
		for p := 0; p < 4 && b.Len() < size; p++ {
			for w := 0; w < 60; w++ {
				b.WriteString(words[(seed*7+s*13+p*17+w*w)%len(words)])
				fmt.Fprintf(&b, "%d", (seed+s+w)%97)
				if w%12 == 11 {
					b.WriteString(". ")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()[:size]
}
