package post

import (
	"net"
	"net/url"
	"strings"
)

// maxStoredURL bounds a stored platform URL; X's avatar and media addresses
// are well under it.
const maxStoredURL = 2048

// SafeURL returns a platform's URL (an avatar, a media link) in the form
// fit to store and show in the admin as an image or a link, or "" when it is
// not: it must be absolute https (or http when allowHTTP, for the sandbox,
// a simulated platform on the operator's own machine), name a host, carry
// no user info, and hold no spaces or control characters. Anything else
// (javascript:, data:, relative or protocol-relative URLs, garbage) is
// dropped, so that no page of the site ever renders it.
func SafeURL(raw string, allowHTTP bool) string {
	if raw == "" || len(raw) > maxStoredURL {
		return ""
	}
	// Browsers strip tabs and newlines from URLs (java\tscript:), and a
	// space has no place in a platform's address.
	if strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" || u.User != nil {
		return ""
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	default:
		return ""
	}
	if u.Hostname() == "" {
		return ""
	}
	return u.String()
}

// SafePageURL is SafeURL for the address of a post's web page, a link the
// admin opens: https, or http when allowHTTP (the sandbox) or when its
// host is a loopback address (localhost, 127.0.0.0/8, ::1), which only a
// server on the operator's own machine names (a test server: MASTODON_SERVER
// may be http there alone); "" for anything else.
func SafePageURL(raw string, allowHTTP bool) string {
	if !allowHTTP {
		if u, err := url.Parse(raw); err == nil && u.Scheme == "http" && loopbackHost(u.Hostname()) {
			allowHTTP = true
		}
	}
	return SafeURL(raw, allowHTTP)
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
