package post

// XPlatform is the Platform of X's posts.
const XPlatform = "x"

// Platforms are the platforms a post may come from, in the order the admin
// lists them: X, Bluesky, then the simulated sandbox.
var Platforms = []string{XPlatform, BlueskyPlatform, SandboxPlatform}

// ValidPlatform reports whether p names one of Platforms.
func ValidPlatform(p string) bool {
	for _, q := range Platforms {
		if p == q {
			return true
		}
	}
	return false
}

// Handles are the persona's handles on the platforms that know it by
// another than its own handle (its domain on Bluesky), by platform.
type Handles map[string]string

// On is the persona's handle on platform: the one Handles names, else def.
func (h Handles) On(platform, def string) string {
	if v := h[platform]; v != "" {
		return v
	}
	return def
}
