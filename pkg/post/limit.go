package post

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
