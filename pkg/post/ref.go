package post

import (
	"net/url"
	"strings"
)

// maxPostID bounds a platform post id: X's are at most 19 digits.
const maxPostID = 20

// postHost reports whether host's /<user>/status/<id> addresses name a post.
func postHost(host string) bool {
	switch strings.ToLower(host) {
	case "x.com", "www.x.com", "mobile.x.com", "twitter.com", "www.twitter.com", "mobile.twitter.com":
		return true
	}
	return false
}

// ParseRef reads a reference to a platform post as an operator pastes it:
// the post's id (digits), or its address on X or Twitter
// (https://x.com/<user>/status/<id>, with or without the scheme, with any
// tail or query). It returns the id, ok false for anything else.
func ParseRef(ref string) (id string, ok bool) {
	ref = strings.TrimSpace(ref)
	if isPostID(ref) {
		return ref, true
	}
	raw := ref
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || !postHost(u.Hostname()) {
		return "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	// /<user>/status/<id>[/photo/1...], or /i/web/status/<id>.
	for i := 1; i+1 < len(parts); i++ {
		if (parts[i] == "status" || parts[i] == "statuses") && isPostID(parts[i+1]) {
			return parts[i+1], true
		}
	}
	return "", false
}

// isPostID reports whether s is a platform post id: 1 to maxPostID digits.
func isPostID(s string) bool {
	if s == "" || len(s) > maxPostID {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}
