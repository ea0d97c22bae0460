package post

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/bluesky-social/indigo/atproto/syntax"
)

// AccountKind is what an entry of target_usernames or blocked_authors
// names: the platform whose account syntax it is written in
// (Descriptor.AccountSyntax), and whether it is a stable id rather than a
// handle.
type AccountKind struct {
	// Syntax is the name of the platform whose syntax the entry is.
	Syntax string
	// ID marks a stable platform id (an X user id, a Bluesky DID); a
	// handle otherwise, which an account may change.
	ID bool
}

// MaxAccountLength is the longest account entry, in characters: a DNS
// name's 253 with room for a leading @ and a did:web: prefix.
const MaxAccountLength = 300

// accountSyntax is how a platform writes its accounts in settings: parse
// reads an entry (trimmed) and says whether its shape is the platform's
// (claimed), and if so the entry as stored, whether it is an id, or what
// is wrong with it; examples name the shapes, for the error of an entry no
// platform claims.
type accountSyntax struct {
	parse    func(entry string) (norm string, id, claimed bool, err error)
	examples []string
}

// ParseAccount reads an entry of target_usernames or blocked_authors: a
// handle or a stable id of one of the table's account syntaxes, tried in
// the table's order (the first whose shape it has answers, so a DID is
// Bluesky's before an @ makes it a Mastodon account). Handles are
// lower-cased and lose a leading @. It returns the entry as stored and its
// kind, or an error that says what it should be.
func ParseAccount(entry string) (string, AccountKind, error) {
	trimmed := strings.TrimSpace(entry)
	var examples []string
	for _, d := range Descriptors() {
		if d.accounts.parse == nil {
			continue
		}
		norm, id, claimed, err := d.accounts.parse(trimmed)
		if !claimed {
			examples = append(examples, d.accounts.examples...)
			continue
		}
		if err != nil {
			return "", AccountKind{}, fmt.Errorf("%q %w", entry, err)
		}
		return norm, AccountKind{Syntax: d.Name, ID: id}, nil
	}
	last := len(examples) - 1
	return "", AccountKind{}, fmt.Errorf("%q is not a handle or an id: %s or %s", entry, strings.Join(examples[:last], ", "), examples[last])
}

// AccountKindOf returns the kind of an entry already cleaned by
// ParseAccount (stored settings); an entry it refuses, from before the
// check, is taken for an X handle, as every entry was then.
func AccountKindOf(entry string) AccountKind {
	if _, k, err := ParseAccount(entry); err == nil {
		return k
	}
	return AccountKind{Syntax: XPlatform}
}

// handleOf is an entry as a handle: lower-cased, without its leading @.
func handleOf(entry string) string { return strings.ToLower(strings.TrimPrefix(entry, "@")) }

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

// maxXUserID is the most digits of an X user id (a 64-bit number).
const maxXUserID = 19

// xAccount reads an X user id (digits only; an all-digit handle is given
// by its id) or an X handle of 1 to 15 letters, digits or underscores.
func xAccount(entry string) (string, bool, bool, error) {
	if digitsPattern.MatchString(entry) {
		if len(entry) > maxXUserID {
			return "", false, true, fmt.Errorf("is not an X user id (at most %d digits)", maxXUserID)
		}
		return entry, true, true, nil
	}
	h := handleOf(entry)
	if !xHandlePattern.MatchString(h) {
		return "", false, false, nil
	}
	if digitsPattern.MatchString(h) {
		return "", false, true, errors.New("is an X handle of digits only: give the account's user id instead")
	}
	return h, false, true, nil
}

// blueskyAccount reads a DID (did:plc:... or did:web:..., Bluesky's
// methods) or a handle, a domain such as alice.bsky.social.
func blueskyAccount(entry string) (string, bool, bool, error) {
	if strings.HasPrefix(entry, "did:") {
		did, err := syntax.ParseDID(entry)
		if err != nil {
			return "", false, true, errors.New("is not a DID (did:plc:... or did:web:...)")
		}
		if m := did.Method(); m != "plc" && m != "web" {
			return "", false, true, fmt.Errorf("is a DID of method %q; Bluesky accounts have did:plc or did:web", m)
		}
		return did.String(), true, true, nil
	}
	h := handleOf(entry)
	if strings.Contains(h, "@") || !strings.Contains(h, ".") {
		return "", false, false, nil
	}
	if _, err := syntax.ParseHandle(h); err != nil {
		return "", false, false, nil
	}
	return h, false, true, nil
}

// mastodonAccount reads an acct with its server's domain, user@server.tld:
// the same name from any server, where a local account's own acct leaves
// the domain out. A Mastodon account's id is digits, like X's, so the
// settings name it by acct, which the worker looks up to the id it keeps.
func mastodonAccount(entry string) (string, bool, bool, error) {
	h := handleOf(entry)
	user, domain, ok := strings.Cut(h, "@")
	if !ok {
		return "", false, false, nil
	}
	if !mastodonUserPattern.MatchString(user) {
		return "", false, true, errors.New("is not a Mastodon account: the user part of user@server.tld is letters, digits and underscores, with dots or dashes between them")
	}
	if _, err := syntax.ParseHandle(domain); err != nil {
		return "", false, true, errors.New("is not a Mastodon account: the server of user@server.tld is a domain such as mastodon.social")
	}
	return h, false, true, nil
}
