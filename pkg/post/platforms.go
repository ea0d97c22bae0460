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
