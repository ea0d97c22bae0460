package openai

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

// MaxContextPosts is how many of a request's context posts a prompt quotes
// at most: past it the oldest go first, though never the parent or the
// quoted post, so that a long thread cannot blow up the prompt.
const MaxContextPosts = 8

// MaxContextRunes is how many characters of one context post's text a
// prompt quotes at most; a longer text is cut and ends in "…".
const MaxContextRunes = 500

// maxHandleRunes caps an author's handle as quoted in a prompt.
const maxHandleRunes = 50

// contextBlock is one context post as prompt.tmpl quotes it.
type contextBlock struct {
	// Tag names the block the text is quoted in: "thread" for a post of the
	// reply chain, "own" for the persona's own earlier post, "quoted" for
	// the post the mortal's post quotes.
	Tag      string
	Relation writer.Relation
	// Author is the author's handle without the @ and with only the
	// letters, digits and underscores a handle holds, so that it cannot
	// forge a line of the prompt; "" when none is left.
	Author string
	Text   string
	// Shows describes the post's images and link card (see shows).
	Shows []string
	// ContentWarning is the warning over the post, on one line, "" for none.
	ContentWarning string
}

// contextBlocks returns the blocks a prompt quotes for posts, in their
// order: posts without text are left out, at most MaxContextPosts are kept
// (dropping the oldest that are neither the parent nor the quoted post
// first), and each text is cut to MaxContextRunes.
func contextBlocks(posts []writer.ContextPost) []contextBlock {
	kept := make([]writer.ContextPost, 0, len(posts))
	for _, p := range posts {
		if strings.TrimSpace(p.Text) != "" || len(p.Media) > 0 || p.Link != nil || strings.TrimSpace(p.ContentWarning) != "" {
			kept = append(kept, p)
		}
	}
	for len(kept) > MaxContextPosts {
		i := 0
		for i < len(kept) && (kept[i].Relation == writer.RelationParent || kept[i].Relation == writer.RelationQuoted) {
			i++
		}
		if i == len(kept) {
			i = 0
		}
		kept = append(kept[:i], kept[i+1:]...)
	}
	blocks := make([]contextBlock, 0, len(kept))
	for _, p := range kept {
		tag := "thread"
		switch p.Relation {
		case writer.RelationPersona:
			tag = "own"
		case writer.RelationQuoted:
			tag = "quoted"
		}
		blocks = append(blocks, contextBlock{Tag: tag, Relation: p.Relation, Author: handle(p.Author), Text: cut(strings.TrimSpace(p.Text), MaxContextRunes),
			Shows: shows(p.Media, p.Link), ContentWarning: oneLine(p.ContentWarning)})
	}
	return blocks
}

// maxShownRunes caps an alt text, a link card's title or its description
// as quoted in a prompt.
const maxShownRunes = 300

// NoDescription is what a prompt says of an image its author did not describe.
const NoDescription = "an image without a description"

// shows describes a post's media and link card for the prompt, one line
// each, in the post's order: each image's alt text, or NoDescription (a
// video's or GIF's likewise), then the link card's title and description.
// Every text is made one line and cut to maxShownRunes; the prompt quotes
// the lines in a fenced block, as data.
func shows(media []post.Media, link *post.Link) []string {
	var out []string
	for i, m := range media {
		if i == post.MaxMedia {
			break
		}
		what, none := "Image", NoDescription
		switch m.Type {
		case post.MediaVideo:
			what, none = "Video", "a video without a description"
		case post.MediaGIF:
			what, none = "GIF", "a GIF without a description"
		}
		alt := oneLine(m.Alt)
		if alt == "" {
			alt = none
		}
		out = append(out, fmt.Sprintf("%s %d: %s", what, i+1, alt))
	}
	if link != nil {
		title, desc := oneLine(link.Title), oneLine(link.Description)
		switch {
		case title == "" && desc == "":
			out = append(out, "Link card: a link without a title")
		case desc == "":
			out = append(out, "Link card: "+title)
		case title == "":
			out = append(out, "Link card: "+desc)
		default:
			out = append(out, "Link card: "+title+" — "+desc)
		}
	}
	return out
}

// oneLine is s on one line (runs of white space made single spaces), cut
// to maxShownRunes.
func oneLine(s string) string {
	return cut(singleLine(s), maxShownRunes)
}

// handle keeps the letters, digits and underscores of an author's handle,
// without its @, at most maxHandleRunes of them.
func handle(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimPrefix(strings.TrimSpace(s), "@") {
		if n == maxHandleRunes {
			break
		}
		if r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}

// cut returns s when it has at most n runes, else its first n-1 runes,
// trimmed, and "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}
