package settings

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bluesky-social/indigo/atproto/syntax"

	"infernal/pkg/post"
)

// AccountKind is what an entry of target_usernames or blocked_authors
// names: a handle or a stable id, of X or of Bluesky, or a Mastodon account.
type AccountKind int

// The kinds of account entries. An entry of digits only is an X user id,
// never a handle: an all-digit X handle is given by its id. A Mastodon
// account's id is digits too, so a Mastodon account is always named by its
// acct with the server's domain (MastodonAccount), which the worker looks
// up to the id it then keeps.
const (
	// XHandle is an X handle: 1 to 15 letters, digits or underscores (not
	// all digits), lower-cased.
	XHandle AccountKind = iota + 1
	// XUserID is an X user id: digits only.
	XUserID
	// BlueskyHandle is a Bluesky handle, a domain such as
	// alice.bsky.social, lower-cased.
	BlueskyHandle
	// DID is a Bluesky account's DID, such as did:plc:... or did:web:...
	DID
	// MastodonAccount is a Mastodon account by its acct with the server's
	// domain, user@server.tld (a leading @ dropped), lower-cased: the same
	// name from any server, where a local account's own acct leaves the
	// domain out.
	MastodonAccount
)

// IsID reports whether k is a stable platform id rather than a handle.
func (k AccountKind) IsID() bool { return k == XUserID || k == DID }

// Bluesky reports whether k names a Bluesky account.
func (k AccountKind) Bluesky() bool { return k == BlueskyHandle || k == DID }

// Platform is the platform whose account syntax k is
// (post.Descriptor.AccountSyntax): Bluesky's, Mastodon's, or X's (which
// the sandbox plays too).
func (k AccountKind) Platform() string {
	switch {
	case k.Bluesky():
		return post.BlueskyPlatform
	case k == MastodonAccount:
		return post.MastodonPlatform
	}
	return post.XPlatform
}

// MaxAccountLength is the longest account entry, in characters: a DNS
// name's 253 with room for a leading @ and a did:web: prefix.
const MaxAccountLength = 300

// maxXUserID is the most digits of an X user id (a 64-bit number).
const maxXUserID = 19

var (
	// xHandlePattern is what X allows in a handle.
	xHandlePattern = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
	// digitsPattern is an X user id.
	digitsPattern = regexp.MustCompile(`^[0-9]+$`)
	// mastodonUserPattern is the user part of a Mastodon acct, as Mastodon
	// allows it (letters, digits and underscores, with dots or dashes
	// between them), lower-cased.
	mastodonUserPattern = regexp.MustCompile(`^[a-z0-9_]+([.-]+[a-z0-9_]+)*$`)
)

// ParseAccount reads an entry of target_usernames or blocked_authors,
// trimmed: a handle (an X handle, a Bluesky handle, a domain, or a
// Mastodon account, user@server.tld; each may start with @, and is
// lower-cased) or a platform id (an X user id, digits only; a Bluesky DID,
// did:plc:... or did:web:...). It returns the entry as stored and its
// kind, or an error that says what it should be.
func ParseAccount(entry string) (string, AccountKind, error) {
	raw := entry
	entry = strings.TrimSpace(entry)
	if strings.HasPrefix(entry, "did:") {
		did, err := syntax.ParseDID(entry)
		if err != nil {
			return "", 0, fmt.Errorf("%q is not a DID (did:plc:... or did:web:...)", raw)
		}
		if m := did.Method(); m != "plc" && m != "web" {
			return "", 0, fmt.Errorf("%q is a DID of method %q; Bluesky accounts have did:plc or did:web", raw, m)
		}
		return did.String(), DID, nil
	}
	if digitsPattern.MatchString(entry) {
		if len(entry) > maxXUserID {
			return "", 0, fmt.Errorf("%q is not an X user id (at most %d digits)", raw, maxXUserID)
		}
		return entry, XUserID, nil
	}
	h := strings.ToLower(strings.TrimPrefix(entry, "@"))
	if user, domain, ok := strings.Cut(h, "@"); ok {
		if !mastodonUserPattern.MatchString(user) {
			return "", 0, fmt.Errorf("%q is not a Mastodon account: the user part of user@server.tld is letters, digits and underscores, with dots or dashes between them", raw)
		}
		if _, err := syntax.ParseHandle(domain); err != nil {
			return "", 0, fmt.Errorf("%q is not a Mastodon account: the server of user@server.tld is a domain such as mastodon.social", raw)
		}
		return h, MastodonAccount, nil
	}
	if xHandlePattern.MatchString(h) {
		if digitsPattern.MatchString(h) {
			return "", 0, fmt.Errorf("%q is an X handle of digits only: give the account's user id instead", raw)
		}
		return h, XHandle, nil
	}
	if strings.Contains(h, ".") {
		if _, err := syntax.ParseHandle(h); err == nil {
			return h, BlueskyHandle, nil
		}
	}
	return "", 0, fmt.Errorf("%q is not a handle or an id: an X handle of 1 to 15 letters, digits or underscores, a Bluesky handle such as alice.bsky.social, a Mastodon account such as @alice@mastodon.social, an X user id (digits) or a DID (did:plc:...)", raw)
}

// KindOf returns the kind of an entry already cleaned by ParseAccount
// (stored settings); an entry it refuses, from before the check, is
// taken for an X handle, as every entry was then.
func KindOf(entry string) AccountKind {
	if _, k, err := ParseAccount(entry); err == nil {
		return k
	}
	return XHandle
}

// Account is an entry of target_usernames or blocked_authors as GET
// /api/settings shows it: the entry as stored, and the handle and the id
// it stands for, each nil while unknown (an id is known once the worker
// has looked the handle up or met the author; a handle, once a post of the
// account was found).
type Account struct {
	// Entry is the entry as stored.
	Entry string `json:"entry"`
	// Handle is the account's handle: the entry itself when it is one.
	Handle *string `json:"handle"`
	// ID is the account's stable id: the entry itself when it is one.
	ID *string `json:"id"`
}
