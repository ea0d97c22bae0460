package post

// ValidPlatform reports whether p names a platform of the table
// (Descriptors).
func ValidPlatform(p string) bool {
	_, ok := Describe(p)
	return ok
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
