package post

import (
	"net/url"
	"strings"

	"github.com/rivo/uniseg"

	"infernal/pkg/twittertext"
)

// BlueskyPlatform is the Platform of Bluesky's posts.
const BlueskyPlatform = "bluesky"

// MaxLengthBluesky is Bluesky's limit on a post's text, in graphemes.
const MaxLengthBluesky = 300

// MaxLengthFor is the limit of a post's text on platform: 300 graphemes on
// Bluesky, 280 weighted characters on X and the sandbox.
func MaxLengthFor(platform string) int {
	if platform == BlueskyPlatform {
		return MaxLengthBluesky
	}
	return twittertext.MaxLength
}

// LengthFor is text's length as platform counts it against MaxLengthFor:
// extended grapheme clusters on Bluesky, twittertext.WeightedLength
// elsewhere.
func LengthFor(platform, text string) int {
	if platform == BlueskyPlatform {
		return uniseg.GraphemeClusterCount(text)
	}
	return twittertext.WeightedLength(text)
}

// WebURL is the address of a post on its platform's website, for a person
// to open: X's from the author's handle and the post id, Bluesky's from the
// post's at:// URI (at://<did>/app.bsky.feed.post/<rkey>). It is "" where
// there is no such page (the sandbox) or id is not a post's id there.
func WebURL(platform, handle, id string) string {
	switch platform {
	case "x":
		if id == "" || handle == "" || strings.Trim(id, "0123456789") != "" {
			return ""
		}
		return "https://x.com/" + url.PathEscape(handle) + "/status/" + id
	case BlueskyPlatform:
		rest, ok := strings.CutPrefix(id, "at://")
		parts := strings.Split(rest, "/")
		if !ok || len(parts) != 3 || parts[1] != "app.bsky.feed.post" || !strings.HasPrefix(parts[0], "did:") || parts[2] == "" {
			return ""
		}
		return "https://bsky.app/profile/" + url.PathEscape(parts[0]) + "/post/" + url.PathEscape(parts[2])
	}
	return ""
}
