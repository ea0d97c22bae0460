package offline

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"infernal/pkg/writer"
)

// A mention is thin when, once its @handles and links are removed, it has
// at most thinWords words and thinLetters letters.
const (
	thinWords   = 5
	thinLetters = 32
)

// thin reports whether a mention says too little to be answered on its own
// ("@persona thoughts?", "@persona settle this", "@persona 👀"): at most
// thinWords words and thinLetters letters or digits once its @handles and
// links are removed.
func thin(text string) bool {
	text = linkPattern.ReplaceAllString(text, " ")
	text = mentionPattern.ReplaceAllString(text, " ")
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
	letters := 0
	for _, w := range words {
		letters += utf8.RuneCountInString(w)
	}
	return len(words) <= thinWords && letters <= thinLetters
}

// subjectText returns the text a reply to postText takes its sin and topic
// from: postText itself, unless it is thin and has no cue of its own, and
// posts, its context, hold one to answer instead. That post is the first with a
// cue of the quoted post, the parent and the ancestors, newest first; else
// the quoted post or the parent, when it has a word worth quoting. The
// persona's own posts are never the subject.
func subjectText(postText string, posts []writer.ContextPost) string {
	if len(posts) == 0 || !thin(postText) {
		return postText
	}
	if _, ok := writer.FindCue(postText); ok {
		return postText
	}
	candidates := subjectCandidates(posts)
	for _, c := range candidates {
		if _, ok := writer.FindCue(c.Text); ok {
			return c.Text
		}
	}
	for _, c := range candidates {
		if c.Relation != writer.RelationAncestor && salientWord(c.Text, 0) != "" {
			return c.Text
		}
	}
	return postText
}

// subjectCandidates returns the context posts a thin mention may answer,
// best first: the quoted post, the parent, then the ancestors, newest first.
func subjectCandidates(posts []writer.ContextPost) []writer.ContextPost {
	var out []writer.ContextPost
	for _, rel := range []writer.Relation{writer.RelationQuoted, writer.RelationParent, writer.RelationAncestor} {
		for i := len(posts) - 1; i >= 0; i-- {
			if posts[i].Relation == rel && strings.TrimSpace(posts[i].Text) != "" {
				out = append(out, posts[i])
			}
		}
	}
	return out
}

// ownTexts returns the persona's own posts among posts as comparable forms,
// the set a reply must not repeat.
func ownTexts(posts []writer.ContextPost) map[string]bool {
	out := map[string]bool{}
	for _, p := range posts {
		if p.Relation == writer.RelationPersona {
			out[comparable(p.Text)] = true
		}
	}
	return out
}

// leadingMentions matches the @handles a reply's text starts with, as a
// platform shows a published reply.
var leadingMentions = regexp.MustCompile(`^(?:\s*@\w+)+\s*`)

// comparable returns text as compared with the persona's earlier posts:
// without its leading @handles, its spaces collapsed, in lower case.
func comparable(text string) string {
	text = leadingMentions.ReplaceAllString(text, "")
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// topicLines returns the lines of pool that name the topic, or pool when
// none does.
func topicLines(pool []string) []string {
	var out []string
	for _, l := range pool {
		if strings.Contains(strings.ToLower(l), "{topic}") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return pool
	}
	return out
}

// withShown is req's context with, when the mortal's post has a content
// warning or shows images or a link card, what they say (the warning, the
// alt texts, the card's title and description) as the first post a thin
// mention may answer: "@persona thoughts?" under a photo of a pizza, or
// behind the warning "pizza", is about the pizza.
func withShown(req writer.Request) []writer.ContextPost {
	shown := []string{strings.TrimSpace(req.ContentWarning)}
	for _, m := range req.Media {
		if alt := strings.TrimSpace(m.Alt); alt != "" {
			shown = append(shown, alt)
		}
	}
	if req.Link != nil {
		shown = append(shown, strings.TrimSpace(req.Link.Title), strings.TrimSpace(req.Link.Description))
	}
	text := strings.TrimSpace(strings.Join(shown, " "))
	if text == "" {
		return req.Context
	}
	// subjectCandidates reads the quoted posts last first: this one leads.
	return append(slices.Clone(req.Context), writer.ContextPost{Relation: writer.RelationQuoted, Text: text})
}
