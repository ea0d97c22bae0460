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

// blueskyPostCollection is the collection of Bluesky's posts in at:// URIs.
const blueskyPostCollection = "app.bsky.feed.post"

// maxRecordKey bounds a record key (the AT Protocol allows 512 characters).
const maxRecordKey = 512

// ParseBlueskyRef reads a reference to a Bluesky post as an operator
// pastes it: its at:// URI (at://<did or handle>/app.bsky.feed.post/<rkey>)
// or its address on bsky.app (https://bsky.app/profile/<did or
// handle>/post/<rkey>, with or without the scheme). It returns the post's
// at:// URI, whose authority is a handle when the address gave one (the
// store knows the author's DID), ok false for anything else.
func ParseBlueskyRef(ref string) (uri string, ok bool) {
	ref = strings.TrimSpace(ref)
	var actor, rkey string
	if rest, isURI := strings.CutPrefix(ref, "at://"); isURI {
		parts := strings.Split(rest, "/")
		if len(parts) != 3 || parts[1] != blueskyPostCollection {
			return "", false
		}
		actor, rkey = parts[0], parts[2]
	} else {
		raw := ref
		if !strings.Contains(raw, "://") {
			raw = "https://" + raw
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || !strings.EqualFold(u.Hostname(), "bsky.app") {
			return "", false
		}
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) != 4 || parts[0] != "profile" || parts[2] != "post" {
			return "", false
		}
		actor, rkey = parts[1], parts[3]
	}
	if !blueskyActor(actor) || !recordKey(rkey) {
		return "", false
	}
	if !strings.HasPrefix(actor, "did:") {
		// Handles are case-insensitive; DIDs are kept as given.
		actor = strings.ToLower(actor)
	}
	return "at://" + actor + "/" + blueskyPostCollection + "/" + rkey, true
}

// blueskyActor reports whether s is a DID or a handle (a domain name).
func blueskyActor(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	if strings.HasPrefix(s, "did:") {
		return strings.IndexFunc(s, func(r rune) bool {
			return !alnum(r) && !strings.ContainsRune(":._-%", r)
		}) < 0 && strings.Count(s, ":") >= 2
	}
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' ||
			strings.IndexFunc(l, func(r rune) bool { return !alnum(r) && r != '-' }) >= 0 {
			return false
		}
	}
	return true
}

// recordKey reports whether s is a record key as the AT Protocol allows.
func recordKey(s string) bool {
	if s == "" || len(s) > maxRecordKey || s == "." || s == ".." {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !alnum(r) && !strings.ContainsRune("._:~-", r)
	}) < 0
}

// alnum reports whether r is an ASCII letter or digit.
func alnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
