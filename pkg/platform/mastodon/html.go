package mastodon

import (
	"html"
	"regexp"
	"strings"
)

var (
	// breakTag is a line break; paragraphEnd closes a paragraph.
	breakTag     = regexp.MustCompile(`(?i)<br\s*/?>`)
	paragraphEnd = regexp.MustCompile(`(?i)</p>\s*<p[^>]*>`)
	// invisible is a span Mastodon hides (the elided middle of a long link).
	invisible = regexp.MustCompile(`(?is)<span class="invisible">.*?</span>`)
	// anchor is a link, with its address and its text.
	anchor = regexp.MustCompile(`(?is)<a\s[^>]*href="([^"]*)"[^>]*>(.*?)</a>`)
	// tag is any other tag, dropped.
	tag = regexp.MustCompile(`(?s)<[^>]*>`)
)

// Text is the text people see of a status's HTML content: paragraphs
// apart by a blank line, line breaks kept, a mention as @user (as the link's
// text reads), any other link as its URL, and entities decoded.
func Text(content string) string {
	s := breakTag.ReplaceAllString(content, "\n")
	s = paragraphEnd.ReplaceAllString(s, "\n\n")
	s = anchor.ReplaceAllStringFunc(s, func(a string) string {
		m := anchor.FindStringSubmatch(a)
		inner := tag.ReplaceAllString(m[2], "")
		if strings.HasPrefix(inner, "@") || strings.HasPrefix(inner, "#") {
			// A mention (or a hashtag) shows as its text: @user, #tag.
			return inner
		}
		return html.UnescapeString(m[1])
	})
	s = invisible.ReplaceAllString(s, "")
	s = tag.ReplaceAllString(s, "")
	return strings.TrimSpace(html.UnescapeString(s))
}
