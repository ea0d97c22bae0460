package post

import "strings"

// MaxLengthBluesky is Bluesky's limit on a post's text, in graphemes.
const MaxLengthBluesky = 300

// MaxLengthFor is the limit of a post's text on platform, its descriptor's
// MaxLength: 300 graphemes on Bluesky, 280 weighted characters on X and the
// sandbox.
func MaxLengthFor(platform string) int { return DescriptorOf(platform).MaxLength }

// LengthFor is text's length as platform counts it against MaxLengthFor,
// by its descriptor's length rule.
func LengthFor(platform, text string) int { return DescriptorOf(platform).Length.Count(text) }

// WebURL is the address of a post on its platform's website, for a person
// to open (Descriptor.WebURL); "" for a platform the table does not hold.
func WebURL(platform, handle, id string) string {
	d, ok := Describe(platform)
	if !ok {
		return ""
	}
	return d.WebURL(handle, id)
}

// Limit is how long p's response may be, counted by its platform's rule:
// the limit in force when its draft was written (MaxLength), else its
// descriptor's; for a reply on a platform whose replies carry the content
// warning of the post they answer (Descriptor.ReplyWarning), less the
// warning's length by the same rule, since the server counts the warning
// with the text. Never below zero.
func (p Post) Limit() int {
	d := DescriptorOf(p.Platform)
	limit := p.MaxLength
	if limit <= 0 {
		limit = d.MaxLength
	}
	if d.ReplyWarning && !p.IsProfile() && p.ContentWarning != "" {
		limit -= d.Length.Count(p.ContentWarning)
	}
	return max(limit, 0)
}

// PageURL is the web address of p's original post, for a person to open:
// the one its platform named at intake (WebURL) when SafePageURL keeps
// it, else the descriptor's (Descriptor.WebURL from the author's handle
// and the post's id); "" when there is none (a profile post, the sandbox).
func (p Post) PageURL() string {
	if p.OriginalPostID == "" {
		return ""
	}
	if u := SafePageURL(p.WebURL, DescriptorOf(p.Platform).PlainHTTP); u != "" {
		return u
	}
	return WebURL(p.Platform, p.AuthorUsername, p.OriginalPostID)
}

// PrefixReply is text as a reply to author on platform is sent: on a
// platform whose replies start with "@author " (Descriptor.ReplyPrefix),
// text with that prefix unless it already starts with it; else text.
func PrefixReply(platform, author, text string) string {
	if !DescriptorOf(platform).ReplyPrefix || author == "" {
		return text
	}
	at := "@" + author
	if text == at || strings.HasPrefix(text, at+" ") || strings.HasPrefix(text, at+"\n") {
		return text
	}
	return at + " " + text
}

// ReplyText is text as the reply of p is sent (PrefixReply); a profile
// post, which answers no one, is text.
func ReplyText(p Post, text string) string {
	if p.IsProfile() {
		return text
	}
	return PrefixReply(p.Platform, p.AuthorUsername, text)
}
