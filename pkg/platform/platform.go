// Package platform defines what the pipeline needs from a microblogging
// platform. Two implementations live below it: x (the X API v2) and sandbox
// (a simulated microblog kept in Postgres, the embedded default).
package platform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"infernal/pkg/upstream"
)

// User is an account on the platform.
type User struct {
	ID           string
	Username     string
	Name         string
	ProfileImage string
}

// Metrics are a post's public counters.
type Metrics struct {
	Likes    int
	Retweets int
	Replies  int
}

// Post is a post read from the platform, with its author resolved.
type Post struct {
	ID             string
	ConversationID string
	// InReplyToID is the post this one answers, empty for a standalone post.
	InReplyToID string
	Text        string
	Author      User
	CreatedAt   time.Time
	MediaURL    string
	Metrics     Metrics
	// Mentions are the accounts the post @mentions (X's entities.mentions).
	Mentions []User
	// QuotedAuthorID is the author of the post this one quotes, empty when
	// it quotes none (or X did not say who wrote it).
	QuotedAuthorID string
	// QuotedID is the post this one quotes, empty when it quotes none.
	QuotedID string
	// Media are the images, videos and GIFs the post carries, in the
	// post's order, at most MaxMedia.
	Media []Media
	// Link is the post's link card, nil when it shows none.
	Link *Link
	// ContentWarning is the warning its author put over it (Mastodon's
	// spoiler_text), "" when none: kept apart from Text.
	ContentWarning string
	// Language is the post's language as the platform gives it (X's lang,
	// the first of Bluesky's langs, Mastodon's language): a BCP 47 tag
	// such as "en" or "pt-BR", "" when the platform names none.
	Language string
	// WebURL is the post's web page as the platform names it (Mastodon's
	// Status url, on the author's server), "" where the platform names
	// none and its pages are built from the id (post.WebURL).
	WebURL string
}

// MaxMedia is how many media a post carries at most (X's and Bluesky's
// limit of images on one post).
const MaxMedia = 4

// The media types, as Media.Type names them.
const (
	MediaPhoto = "photo"
	MediaVideo = "video"
	MediaGIF   = "animated_gif"
)

// Media is one image, video or GIF of a post, as the platform serves it.
type Media struct {
	// Type is MediaPhoto, MediaVideo or MediaGIF.
	Type string
	// URL is the full image (a photo's); empty for a video or a GIF.
	URL string
	// PreviewURL is a still or thumbnail of it.
	PreviewURL string
	// Alt is the author's description of it, "" when they wrote none.
	Alt string
}

// Image is the address of m as an image: the photo itself, else its still.
func (m Media) Image() string {
	if m.URL != "" {
		return m.URL
	}
	return m.PreviewURL
}

// Link is a post's link card as the platform built it: the address the
// post links to and the title and description the platform read there.
// Nothing fetches the address: only the platform's own fields are kept.
type Link struct {
	URL         string
	Title       string
	Description string
}

// Range bounds one read of a timeline: posts newer than SinceID and older
// than UntilID (both exclusive, as X's since_id and until_id); an empty
// bound is open.
type Range struct {
	SinceID string
	UntilID string
}

// summonedKey marks a context as sending a reply to a post that summoned
// the persona.
type summonedKey struct{}

// WithSummoned marks ctx as sending a reply to a post that summoned the
// persona (mentioned it or quoted one of its posts), which X bills at the
// summoned reply's price under every reply policy.
func WithSummoned(ctx context.Context) context.Context {
	return context.WithValue(ctx, summonedKey{}, true)
}

// Summoned reports whether ctx was marked by WithSummoned.
func Summoned(ctx context.Context) bool {
	v, _ := ctx.Value(summonedKey{}).(bool)
	return v
}

// ValidUsername reports whether s is a handle as X allows them: 1 to 15
// letters, digits or underscores, without the @.
func ValidUsername(s string) bool {
	if len(s) < 1 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// Summons reports whether p calls on self: its author @mentioned self or
// quoted one of self's posts, the only posts a self-serve X app may answer
// through the API since 2026-02-23.
func (p Post) Summons(self User) bool {
	if self.ID != "" && p.QuotedAuthorID == self.ID {
		return true
	}
	for _, m := range p.Mentions {
		if (self.ID != "" && m.ID == self.ID) || (m.Username != "" && strings.EqualFold(m.Username, self.Username)) {
			return true
		}
	}
	return false
}

// ReplyPolicy says which posts the persona may answer through the API.
type ReplyPolicy string

// The reply policies (config X_REPLY_POLICY).
const (
	// ReplySummoned is X's 2026 self-serve rule: only posts that summon the
	// persona (Post.Summons) may be answered through the API.
	ReplySummoned ReplyPolicy = "summoned"
	// ReplyOpen is an Enterprise app's: any post may be answered.
	ReplyOpen ReplyPolicy = "open"
)

// AllowsAPIReply reports whether the API may post a reply to p as self.
func (rp ReplyPolicy) AllowsAPIReply(p Post, self User) bool {
	return rp == ReplyOpen || p.Summons(self)
}

// ReplyNotAllowedDetail is X's words for a reply the 2026 rule refuses,
// which the sandbox repeats.
const ReplyNotAllowedDetail = "You can only reply to or quote posts where you are mentioned or are the author."

// Page is one read of a timeline: the posts found, newest first, and the
// newest id among them, to be kept as the next read's cursor.
type Page struct {
	Posts    []Post
	NewestID string
	// OldestID is the oldest id the read reached, empty when it found none.
	OldestID string
	// More reports that the read stopped at its bound while the platform
	// still had posts of the range older than OldestID: the posts between
	// the range's SinceID and OldestID are left unread.
	More bool
	// Included are the posts the read returned alongside Posts without
	// being part of the timeline: the posts they answer or quote (X's
	// includes.tweets through the referenced_tweets.id expansion), so that
	// a post's parent costs no second read.
	Included []Post
	// Reposts are the ids of the reposts the read returned and left out
	// of Posts (a repost is not its author's own words), so that the scan
	// can account for them.
	Reposts []string
	// Withheld are the posts the read returned and left out of Posts by
	// the platform's own rules, each with its reason (a Mastodon direct
	// mention while platforms.mastodon.reply_to_direct is off: "direct_message"),
	// so that the scan keeps them in its ledger rather than losing them.
	Withheld []Withheld
}

// Withheld is a post a read left out of its page, and why.
type Withheld struct {
	// ID is the post's id.
	ID string
	// Reason is why it is not answered, as the scan ledger records it.
	Reason string
}

// Platform is the microblog the persona lives on.
type Platform interface {
	// Name identifies the platform in stored rows ("x" or "sandbox").
	Name() string
	// Me returns the persona's own account.
	Me(ctx context.Context) (User, error)
	// Mentions returns posts mentioning the user within r, newest first
	// (the most recent ones when r is open), up to the platform's bound.
	Mentions(ctx context.Context, userID string, r Range) (Page, error)
	// Search returns recent posts matching query within r.
	Search(ctx context.Context, query string, r Range) (Page, error)
	// UserByUsername looks an account up by its handle, without the @.
	UserByUsername(ctx context.Context, username string) (User, error)
	// UserPosts returns the user's own recent posts within r.
	UserPosts(ctx context.Context, userID string, r Range) (Page, error)
	// Publish posts text, as a reply to inReplyToID when it is not empty.
	Publish(ctx context.Context, text, inReplyToID string) (Post, error)
	// FindPublished looks through the persona's recent posts for one that
	// answers inReplyToID (or, for a standalone post, has exactly this text),
	// so that a retried send never posts twice. found is false when none exists.
	FindPublished(ctx context.Context, authorID, inReplyToID, text string) (post Post, found bool, err error)
	// Metrics returns the public counters of the given posts; ids the platform
	// no longer knows are absent from the map.
	Metrics(ctx context.Context, ids []string) (map[string]Metrics, error)
	// Lookup returns the posts of ids with their authors resolved, in no
	// particular order; ids the platform no longer shows (deleted,
	// protected, unknown) are absent. On X every post returned is a billed
	// post read.
	Lookup(ctx context.Context, ids []string) ([]Post, error)
}

// KeyedPublisher is a Platform whose sends are made exactly-once by a key
// the caller chooses before the first attempt and stores with the send
// (Bluesky's record key): every retry under the same key gives the same
// post, never a second one.
type KeyedPublisher interface {
	// NewPublishKey chooses a fresh key for a send.
	NewPublishKey() string
	// PublishKeyed is Publish under key.
	PublishKeyed(ctx context.Context, key, text, inReplyToID string) (Post, error)
}

// VersionKeyer is a KeyedPublisher whose key is derived from the post and
// its draft version rather than chosen and stored (Mastodon's
// Idempotency-Key): the same approved version is never posted twice, and
// an edited version, a new text, gets a new key.
type VersionKeyer interface {
	// PublishKeyFor is the key of the send of draft version draftVersion
	// of post postID.
	PublishKeyFor(postID int64, draftVersion int) string
}

// Qualifier is a platform whose usernames are relative to its server: a
// Mastodon acct leaves the server's own domain out for a local account
// ("alice", where other servers say "alice@server.tld").
type Qualifier interface {
	// Qualify returns username (with or without a leading @) as it names
	// the account from anywhere, lower-cased and without the @: the name
	// the settings keep a blocked author by.
	Qualify(username string) string
}

// Error is a refusal from the platform, with what it said.
type Error struct {
	// Status is the HTTP status, 0 for a network failure.
	Status int
	// Title and Detail are the platform's own words.
	Title  string
	Detail string
	// Type is the problem type X names (like
	// "https://api.twitter.com/2/problems/usage-capped"), empty when none.
	Type string
	// RetryAt is when a rate limit lifts, zero when not announced.
	RetryAt time.Time
	// Invalid names the request parameters the platform refused as
	// invalid (X's errors[].parameters of a 400), empty when none.
	Invalid []string
	// Err is the underlying network error, if any.
	Err error
}

// Error describes the refusal in the platform's words, as a short single
// line (upstream.Excerpt): the fields keep the whole answer, for Classify.
func (e *Error) Error() string {
	var s string
	switch {
	case e.Err != nil:
		s = fmt.Sprintf("platform: %v", e.Err)
	case e.Detail != "" && e.Title != "":
		s = fmt.Sprintf("platform: %d %s: %s", e.Status, e.Title, e.Detail)
	case e.Detail != "":
		s = fmt.Sprintf("platform: %d %s", e.Status, e.Detail)
	default:
		s = fmt.Sprintf("platform: %d %s", e.Status, e.Title)
	}
	return upstream.Excerpt(s)
}

// Unwrap returns the underlying network error.
func (e *Error) Unwrap() error { return e.Err }

// RateLimited reports whether err is a 429 that lifts by itself, and when to
// try again. A 429 for the monthly usage cap is a refusal (RefusalUsageCapped).
func RateLimited(err error) (retryAt time.Time, ok bool) {
	var pe *Error
	if errors.As(err, &pe) && pe.Status == 429 && Classify(err) == "" {
		return pe.RetryAt, true
	}
	return time.Time{}, false
}

// Temporary reports whether err may go away on its own: a network failure,
// a rate limit or a server error. Any other refusal is final, and so is
// every named Refusal.
func Temporary(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) {
		// Context cancellation and unknown failures are retried, never failed for good.
		return true
	}
	if Classify(err) != "" {
		return false
	}
	return pe.Status == 0 || pe.Status == 429 || pe.Status >= 500
}

// Refusal names a permanent refusal of the platform.
type Refusal string

// The named refusals; Classify tells them apart.
const (
	RefusalDuplicate       Refusal = "duplicate_content"
	RefusalOriginalGone    Refusal = "original_gone"
	RefusalReplyNotAllowed Refusal = "reply_not_allowed"
	RefusalSuspended       Refusal = "account_suspended"
	RefusalOutOfCredits    Refusal = "out_of_credits"
	RefusalUsageCapped     Refusal = "usage_capped"
	// RefusalBadRequestConfig is a 400 naming a field, expansion or
	// exclusion the client asks for as invalid: the client's request no
	// longer fits the platform's API, and asking again cannot help.
	RefusalBadRequestConfig Refusal = "bad_request_config"
	// RefusalReplyGated is Bluesky's refusal of a reply its thread's gate
	// (threadgate) does not allow, or that a block between the author and
	// the persona forbids: no one may post it, by hand neither.
	RefusalReplyGated Refusal = "reply_gated"
)

// AccountWide reports whether r stops every call of the account, not only
// the one refused: scanning and sending pause until it clears.
func (r Refusal) AccountWide() bool {
	return r == RefusalSuspended || r == RefusalOutOfCredits || r == RefusalUsageCapped
}

// Reason is r in words for the administrator.
func (r Refusal) Reason() string {
	switch r {
	case RefusalDuplicate:
		return "X refused duplicate content: the persona already posted this text"
	case RefusalOriginalGone:
		return "the original post was deleted or is not visible to the persona"
	case RefusalReplyNotAllowed:
		return "X does not let the API reply to a post that did not mention or quote the persona; post it by hand"
	case RefusalSuspended:
		return "the persona's X account is suspended or locked"
	case RefusalOutOfCredits:
		return "the X API's prepaid credits ran out (402)"
	case RefusalUsageCapped:
		return "the X API's monthly usage cap is reached (429 usage-capped)"
	case RefusalReplyGated:
		return "Bluesky does not let the persona reply here: the thread's gate or a block between its author and the persona forbids it"
	case RefusalBadRequestConfig:
		return "X rejects a field or expansion the client asks for (400): the client's request names no longer fit X's API; this timeline's scans pause until the client is updated"
	}
	return ""
}

// shapeParameter reports whether name is a parameter that shapes every
// read the same way (a fields list, the expansions, the exclusions), not one
// of a read's own bounds (since_id, until_id, a page token).
func shapeParameter(name string) bool {
	return name == "expansions" || name == "exclude" || strings.HasSuffix(name, ".fields")
}

// Classify names the permanent refusal err stands for, by status, problem
// type and text as X sends them; "" when it is none of them.
func Classify(err error) Refusal {
	var pe *Error
	if !errors.As(err, &pe) || pe.Status == 0 {
		return ""
	}
	text := strings.ToLower(pe.Title + " " + pe.Detail)
	typ := strings.ToLower(pe.Type)
	switch {
	case pe.Status == 402 || strings.HasSuffix(typ, "/credits-depleted"):
		return RefusalOutOfCredits
	case strings.HasSuffix(typ, "/usage-capped") || (pe.Status == 429 && strings.Contains(text, "usage cap")):
		return RefusalUsageCapped
	case pe.Status >= 500 || pe.Status == 429:
		return ""
	case pe.Status == 400 && slices.ContainsFunc(pe.Invalid, shapeParameter):
		return RefusalBadRequestConfig
	case strings.Contains(text, "the thread's gate"), strings.Contains(text, "block each other"):
		return RefusalReplyGated
	case strings.Contains(text, "duplicate content"):
		return RefusalDuplicate
	case strings.Contains(text, "only reply to or quote posts where you are mentioned"),
		strings.Contains(text, "reply to this conversation is not allowed"):
		return RefusalReplyNotAllowed
	case strings.Contains(text, "deleted or not visible"), strings.Contains(text, "deleted or invisible"):
		return RefusalOriginalGone
	case strings.Contains(text, "suspended"), strings.Contains(text, "locked"):
		return RefusalSuspended
	}
	return ""
}
