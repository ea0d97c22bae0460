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
