package post

import (
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
