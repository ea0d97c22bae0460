// Package atproto holds the AT Protocol's rules for what the operator
// configures for Bluesky: the PDS address, the persona's handle or DID, and
// the app password. It is apart from the Bluesky client so that pkg/config
// can check the settings at start in every process without linking a
// platform (e2e/deps_test.go).
package atproto

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/bluesky-social/indigo/atproto/syntax"
)

// DefaultPDSURL is Bluesky's own PDS host.
const DefaultPDSURL = "https://bsky.social"

// ValidatePDSURL checks a PDS address: an http(s) URL without path, query
// or fragment.
func ValidatePDSURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an http(s) URL without path, query or credentials", raw)
	}
	return nil
}

// ValidateHandle checks the persona's identifier: a handle (a domain) or a DID.
func ValidateHandle(raw string) error {
	h := strings.TrimPrefix(strings.TrimSpace(raw), "@")
	if _, err := syntax.ParseAtIdentifier(h); err != nil {
		return fmt.Errorf("%q is neither a handle nor a DID: %w", raw, err)
	}
	return nil
}

// ValidateAppPassword checks that raw has the shape of a Bluesky app
// password (xxxx-xxxx-xxxx-xxxx, lowercase letters and digits). An account
// password is refused: it would give the client the whole account.
func ValidateAppPassword(raw string) error {
	parts := strings.Split(raw, "-")
	if len(parts) != 4 {
		return errors.New("is not an app password (xxxx-xxxx-xxxx-xxxx): create one in Bluesky's settings, never use the account password")
	}
	for _, p := range parts {
		if len(p) != 4 || strings.IndexFunc(p, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) >= 0 {
			return errors.New("is not an app password (xxxx-xxxx-xxxx-xxxx): create one in Bluesky's settings, never use the account password")
		}
	}
	return nil
}
