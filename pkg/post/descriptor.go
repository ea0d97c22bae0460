package post

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"infernal/pkg/twittertext"
)

// The platforms' names, as stored in posts.platform and named in PLATFORM.
const (
	// XPlatform is the Platform of X's posts.
	XPlatform = "x"
	// BlueskyPlatform is the Platform of Bluesky's posts.
	BlueskyPlatform = "bluesky"
	// MastodonPlatform is the Platform of the posts of a Mastodon server
	// (or any server speaking its API: GoToSocial, Pleroma, Akkoma).
	MastodonPlatform = "mastodon"
	// SandboxPlatform is the Platform of the posts of the simulated
	// platform (package platform/sandbox), the only one whose URLs may be
	// plain http.
	SandboxPlatform = "sandbox"
)

// LengthRule names how a platform counts a post's text against its limit.
type LengthRule string

// The length rules.
const (
	// LengthWeighted is twitter-text v3's weighted length: every URL
	// counts 23, emoji and most non-Latin characters count 2.
	LengthWeighted LengthRule = "weighted"
	// LengthGraphemes counts user-perceived characters (extended
	// grapheme clusters).
	LengthGraphemes LengthRule = "graphemes"
	// LengthCharacters is Mastodon's: characters (code points), every URL
	// as 23, a mention @user@domain as @user.
	LengthCharacters LengthRule = "characters"
)

// characterURL and remoteMention are what LengthCharacters counts apart:
// a URL, and a mention's domain.
var (
	characterURL  = regexp.MustCompile(`https?://[^\s<>"]+`)
	remoteMention = regexp.MustCompile(`(@[A-Za-z0-9_]+)@[A-Za-z0-9.-]+[A-Za-z0-9]`)
)

// urlLength is what LengthCharacters counts for every URL.
const urlLength = 23

// Count is text's length under r; a rule it does not know counts as
// LengthWeighted.
func (r LengthRule) Count(text string) int {
	switch r {
	case LengthGraphemes:
		return uniseg.GraphemeClusterCount(text)
	case LengthCharacters:
		t := characterURL.ReplaceAllString(text, strings.Repeat("x", urlLength))
		return utf8.RuneCountInString(remoteMention.ReplaceAllString(t, "$1"))
	}
	return twittertext.WeightedLength(text)
}

// Unit is what r counts, in words ("characters", "graphemes").
func (r LengthRule) Unit() string {
	if r == LengthGraphemes {
		return "graphemes"
	}
	return "characters"
}

// Descriptor is what the product knows of a platform outside its client:
// everything that used to be decided by a switch on the platform's name.
// The web tier reads it too, so it holds no client.
type Descriptor struct {
	// Name is the platform's name in stored rows and in PLATFORM.
	Name string
	// Label is its name for people ("X", "Bluesky").
	Label string
	// Length is how the platform counts a post's text, and MaxLength its
	// default limit under that rule.
	Length    LengthRule
	MaxLength int
	// PostURLPattern is the web address of a post, for the admin to
	// build links: {handle} is the author's handle, {id} the post's id as
	// stored (Bluesky's {did} and {rkey} are parts of its at:// URI); ""
	// where posts have no page.
	PostURLPattern string
	// RefForm is the address of a post as an operator may paste it, for
	// the error that names what a reference may be ("" where only an id
	// is taken).
	RefForm string
	// AuthorsByName marks the platform whose authors the autopilot may
	// trust by handle (settings.Autopilot.Authors are X handles): X, and
	// the sandbox, which plays it. Elsewhere a name alike is another
	// person (a Mastodon server's local "alice" is not X's @alice).
	AuthorsByName bool
	// AccountHint says, for the settings' lists of accounts, how the
	// platform's accounts are written there; set where AccountSyntax is
	// the platform's own.
	AccountHint string
	// AccountSyntax is the platform whose account syntax (handles, ids)
	// names the platform's accounts in settings: its own, or X's for the
	// sandbox, which plays X.
	AccountSyntax string
	// WindowPrefix starts the names the client gives its rate-limit
	// windows in pkg/ratelimit; "" for X, whose windows are named by a
	// method and a path of its API (see OwnsWindow).
	WindowPrefix string
	// MediaHosts are the hosts the platform serves avatars and media
	// from: the images the admin may load (MEDIA_HOSTS's default).
	MediaHosts []string
	// PlainHTTP allows the platform's URLs (avatars, media) to be http:
	// the sandbox runs on the operator's own machine.
	PlainHTTP bool
	// Simulated marks the sandbox: never combined with a real platform.
	Simulated bool
	// Billed marks the platform whose calls are priced in the spend
	// ledger (X's pay-per-use); the others cost nothing.
	Billed bool
	// ReplyPrefix marks the platform whose replies start with "@author ",
	// as its clients write them (Mastodon): the prefix is part of the
	// draft's text (ReplyText), so the card shows and counts what is sent.
	ReplyPrefix bool
	// ReplyWarning marks the platform whose replies carry the content
	// warning of the post they answer (Mastodon's spoiler_text), which
	// its server counts against the limit with the text (Post.Limit).
	ReplyWarning bool
	// ResolveBlocked marks the platform whose blocked accounts named by
	// handle are looked up to their ids (the client's UserByUsername)
	// before a post of it is judged, rather than waiting to meet the
	// author (Mastodon: an acct is relative to the server, a local
	// account's leaving the domain out, so a name alone is a poor key).
	ResolveBlocked bool
	// Options are the choices the administrator makes for the platform
	// alone (settings.PlatformOptions), each a yes or a no, off on a fresh
	// install; the admin shows them while the platform runs.
	Options []Option

	// webURL builds the address of a post; nil where there is none.
	webURL func(handle, id string) string
	// parseRef reads a reference to a post as an operator pastes it.
	parseRef func(ref string) (id string, ok bool)
	// accounts reads the entries of settings in the platform's account
	// syntax; unset where AccountSyntax names another platform's.
	accounts accountSyntax
	// refAuthor splits a post reference named by its author's handle into
	// that handle and the reference rebuilt with another author (the
	// author's stable id); nil where a reference always names the id.
	refAuthor func(ref string) (handle string, withAuthor func(id string) string, ok bool)
}

// Option is a choice the administrator makes for one platform alone.
type Option struct {
	// Key names it in the settings, under the platform's name
	// (platforms.mastodon.reply_to_direct).
	Key string
	// Label is the admin's name for it, beside its checkbox.
	Label string
	// Hint is what the label alone does not say: what on and off do.
	Hint string
}

// OptionReplyToDirect is Mastodon's choice to answer a direct mention
// (visibility direct), always direct, never wider; off, such mentions are
// skipped with reason direct_message.
const OptionReplyToDirect = "reply_to_direct"

// MaxLengthMastodon is a Mastodon server's default limit, in characters
// (its GET /api/v2/instance configuration.statuses.max_characters).
const MaxLengthMastodon = 500

// ParseMastodonRef reads a reference to a status as an operator pastes its
// address (https://<server>/@<user>/<id>, or .../users/<user>/statuses/<id>);
// a bare id is X's. The id is the server's own: an address on another
// server names another id.
func ParseMastodonRef(ref string) (string, bool) {
	raw := strings.TrimSpace(ref)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Hostname() == "" {
		return "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) == 2 && strings.HasPrefix(parts[0], "@") && len(parts[0]) > 1 && isPostID(parts[1]):
		return parts[1], true
	case len(parts) == 4 && parts[0] == "users" && parts[2] == "statuses" && isPostID(parts[3]):
		return parts[3], true
	}
	return "", false
}

// Descriptors is the table of platforms, in the order the admin lists them
// and a post reference is tried: X, Bluesky, Mastodon, then the simulated
// sandbox.
func Descriptors() []Descriptor {
	return []Descriptor{
		{
			Name: XPlatform, Label: "X", Length: LengthWeighted, MaxLength: twittertext.MaxLength,
			PostURLPattern: "https://x.com/{handle}/status/{id}", AccountSyntax: XPlatform, AuthorsByName: true,
			RefForm:     "https://x.com/<user>/status/<id>",
			AccountHint: "on X a handle or a user id",
			MediaHosts:  []string{"pbs.twimg.com", "abs.twimg.com", "video.twimg.com"}, Billed: true,
			webURL: xWebURL, parseRef: ParseRef,
			accounts: accountSyntax{parse: xAccount, examples: []string{"an X handle of 1 to 15 letters, digits or underscores", "an X user id (digits)"}},
		},
		{
			Name: BlueskyPlatform, Label: "Bluesky", Length: LengthGraphemes, MaxLength: MaxLengthBluesky,
			PostURLPattern: "https://bsky.app/profile/{did}/post/{rkey}", AccountSyntax: BlueskyPlatform,
			RefForm:      "https://bsky.app/profile/<handle>/post/<key> or at://…",
			AccountHint:  "on Bluesky a handle like alice.bsky.social or a DID",
			WindowPrefix: "bluesky ", MediaHosts: []string{"cdn.bsky.app"},
			webURL: blueskyWebURL, parseRef: ParseBlueskyRef, refAuthor: blueskyRefAuthor,
			accounts: accountSyntax{parse: blueskyAccount, examples: []string{"a Bluesky handle such as alice.bsky.social", "a DID (did:plc:...)"}},
		},
		{
			Name: MastodonPlatform, Label: "Mastodon", Length: LengthCharacters, MaxLength: MaxLengthMastodon,
			RefForm:       "https://<server>/@<user>/<id>",
			AccountHint:   "on Mastodon the account with its server, like @alice@mastodon.social",
			AccountSyntax: MastodonPlatform, WindowPrefix: "mastodon ", ReplyPrefix: true, ReplyWarning: true, ResolveBlocked: true,
			parseRef: ParseMastodonRef,
			accounts: accountSyntax{parse: mastodonAccount, examples: []string{"a Mastodon account such as @alice@mastodon.social"}},
			Options: []Option{{Key: OptionReplyToDirect, Label: "Answer direct mentions",
				Hint: "On, a direct mention is answered direct, never wider; off, it is left unanswered (skipped: direct_message). Applies from the next scan or send."}},
		},
		{
			Name: SandboxPlatform, Label: "Sandbox", Length: LengthWeighted, MaxLength: twittertext.MaxLength,
			AccountSyntax: XPlatform, AuthorsByName: true, PlainHTTP: true, Simulated: true,
			parseRef: ParseRef,
		},
	}
}

// Describe returns the descriptor of the platform named, ok false for a
// name the table does not hold.
func Describe(name string) (Descriptor, bool) {
	for _, d := range Descriptors() {
		if d.Name == name {
			return d, true
		}
	}
	return Descriptor{}, false
}

// DescriptorOf is Describe's descriptor, or for an unknown name one that
// counts and limits as X does and has no pages: rows of a platform removed
// from the table still show.
func DescriptorOf(name string) Descriptor {
	if d, ok := Describe(name); ok {
		return d
	}
	return Descriptor{Name: name, Label: name, Length: LengthWeighted, MaxLength: twittertext.MaxLength, AccountSyntax: XPlatform, AuthorsByName: true}
}

// Label is the platform's name for people: its descriptor's Label, the
// name itself for a platform the table does not hold.
func Label(name string) string { return DescriptorOf(name).Label }

// Platforms are the names of the table's platforms, in its order.
func Platforms() []string {
	var out []string
	for _, d := range Descriptors() {
		out = append(out, d.Name)
	}
	return out
}

// WebURL is the address of a post on its platform's website, for a person
// to open, from the author's handle and the post's id as stored; "" where
// there is no such page (the sandbox) or id is not a post's id there.
func (d Descriptor) WebURL(handle, id string) string {
	if d.webURL == nil {
		return ""
	}
	return d.webURL(handle, id)
}

// ParseRef reads a reference to a post of the platform as an operator
// pastes it (an id, a web address), returning the id as stored.
func (d Descriptor) ParseRef(ref string) (string, bool) {
	if d.parseRef == nil {
		return "", false
	}
	return d.parseRef(ref)
}

// RefAuthor splits a post reference (as ParseRef returns it) that names
// its author by handle into that handle and a function that rebuilds it
// with the author's stable id; ok is false when it names the author by id,
// or the platform's ids never name an author.
func (d Descriptor) RefAuthor(ref string) (handle string, withAuthor func(id string) string, ok bool) {
	if d.refAuthor == nil {
		return "", nil, false
	}
	return d.refAuthor(ref)
}

// OwnsWindow reports whether the rate-limit window named endpoint is one
// of the platform's: its names start with WindowPrefix, or (X) are a
// method and a path of X's API.
func (d Descriptor) OwnsWindow(endpoint string) bool {
	if d.WindowPrefix != "" {
		return strings.HasPrefix(endpoint, d.WindowPrefix)
	}
	return d.Billed && strings.Contains(endpoint, " /2/")
}

// Billed is the platform whose calls the spend ledger prices (X).
func Billed() string {
	for _, d := range Descriptors() {
		if d.Billed {
			return d.Name
		}
	}
	return ""
}

// xWebURL is a post's address on X, from its author's handle and its id.
func xWebURL(handle, id string) string {
	if id == "" || handle == "" || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return "https://x.com/" + url.PathEscape(handle) + "/status/" + id
}

// blueskyWebURL is a post's address on bsky.app, from its at:// URI
// (at://<did>/app.bsky.feed.post/<rkey>).
func blueskyWebURL(_, id string) string {
	rest, ok := strings.CutPrefix(id, "at://")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || parts[1] != blueskyPostCollection || !strings.HasPrefix(parts[0], "did:") || parts[2] == "" {
		return ""
	}
	return "https://bsky.app/profile/" + url.PathEscape(parts[0]) + "/post/" + url.PathEscape(parts[2])
}

// blueskyRefAuthor splits an at:// URI whose authority is a handle.
func blueskyRefAuthor(uri string) (string, func(string) string, bool) {
	rest, ok := strings.CutPrefix(uri, "at://")
	actor, path, found := strings.Cut(rest, "/")
	if !ok || !found || strings.HasPrefix(actor, "did:") {
		return "", nil, false
	}
	return actor, func(did string) string { return "at://" + did + "/" + path }, true
}

// PlatformError refuses to act on a post of a platform that is not among
// those named: a decision on a post whose platform PLATFORM does not name
// (rows left over after PLATFORM changed), or a send through a client of
// another platform. It is an ErrConflict.
type PlatformError struct {
	// ID is the post's id.
	ID int64
	// Platform is the post's platform.
	Platform string
}

// Error names the post's platform.
func (e *PlatformError) Error() string {
	return fmt.Sprintf("%v: post %d is on %s, a platform that is not running here", ErrConflict, e.ID, e.Platform)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *PlatformError) Unwrap() error { return ErrConflict }

// CheckPlatform refuses, with a *PlatformError, to act on p unless its
// platform is one of running: the one check of the decisions (running
// is PLATFORM's list) and of the send stage (running is its client's
// platform alone).
func CheckPlatform(p Post, running ...string) error {
	if slices.Contains(running, p.Platform) {
		return nil
	}
	return &PlatformError{ID: p.ID, Platform: p.Platform}
}
