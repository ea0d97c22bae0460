// Package post holds the domain of the persona's work: where a post came from,
// where it stands in review, the sin it is filed under, and the figures derived
// from it. It knows nothing of storage or transport.
package post

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Source says how a post reached the persona; each source is one admin tab.
type Source string

// The four sources, one per admin tab.
const (
	// SourceConversation is a post found by searching the configured topics.
	SourceConversation Source = "conversation"
	// SourceMention is a post that mentions the persona's account.
	SourceMention Source = "mention"
	// SourceProfile is the persona's own standalone post.
	SourceProfile Source = "profile"
	// SourceTargeted is a recent post of a configured account.
	SourceTargeted Source = "targeted"
)

// Sources lists every source in tab order.
var Sources = []Source{SourceConversation, SourceMention, SourceProfile, SourceTargeted}

// Valid reports whether s is one of the known sources.
func (s Source) Valid() bool {
	for _, k := range Sources {
		if s == k {
			return true
		}
	}
	return false
}

// Status is where a post stands in its life.
type Status string

// The statuses: drafting → pending → approved → posted, or pending → rejected,
// or approved → failed; a draft the writer cannot produce also ends failed,
// and a failed post may be approved again or rejected. Moves is the table of
// every allowed change.
const (
	// StatusDrafting means the writer has not produced a response yet.
	StatusDrafting Status = "drafting"
	// StatusPending means a response waits for the administrator.
	StatusPending Status = "pending"
	// StatusApproved means the administrator approved it and sending is under way.
	StatusApproved Status = "approved"
	// StatusPosted means the response is live on the platform.
	StatusPosted Status = "posted"
	// StatusRejected means the administrator rejected it.
	StatusRejected Status = "rejected"
	// StatusFailed means drafting or sending failed for good; Error says why.
	StatusFailed Status = "failed"
	// StatusAwaitingManual means the administrator approved a reply the API
	// may not send; it waits to be posted by hand through X's web intent.
	StatusAwaitingManual Status = "awaiting_manual"
	// StatusSkipped means a guard stopped the post before drafting (an
	// opt-out, a blocklist, a reply cap); SkipReason says which.
	StatusSkipped Status = "skipped"
)

// Route is how an approved reply reaches the platform.
type Route string

// The reply routes; a profile post has none ("").
const (
	// RouteAPI replies through the platform's API.
	RouteAPI Route = "api"
	// RouteManual is posted by hand by the administrator (X's web intent),
	// since the API may not reply to the post.
	RouteManual Route = "manual"
)

// IntentURL is X's web intent that opens a reply to originalID with text
// filled in, for hand-posting.
func IntentURL(originalID, text string) string {
	q := url.Values{"in_reply_to": {originalID}, "text": {text}}
	// Encode writes a space as "+"; %20 is what every reader takes for one.
	return "https://x.com/intent/post?" + strings.ReplaceAll(q.Encode(), "+", "%20")
}

// Category is the deadly sin a post is filed under in the Sin Registry.
type Category string

// Categories lists the seven deadly sins, the only categories a post may carry.
var Categories = []Category{"pride", "greed", "wrath", "envy", "lust", "gluttony", "sloth"}

// ParseCategory returns the category named by s, or an error when s is not a sin.
func ParseCategory(s string) (Category, error) {
	for _, c := range Categories {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("post: unknown category %q", s)
}

// Sort is an order of the admin lists.
type Sort string

// The orders offered by the dashboard's Sort By control.
const (
	SortDate       Sort = "date"
	SortEngagement Sort = "engagement"
	SortLikes      Sort = "likes"
	SortRetweets   Sort = "retweets"
	SortReplies    Sort = "replies"
)

// ParseSort returns the order named by s; the empty string means SortDate.
func ParseSort(s string) (Sort, error) {
	switch Sort(s) {
	case "":
		return SortDate, nil
	case SortDate, SortEngagement, SortLikes, SortRetweets, SortReplies:
		return Sort(s), nil
	}
	return "", fmt.Errorf("sortBy must be one of date, engagement, likes, retweets, replies")
}

// DefaultLLMParameter is the temperature and penalties recorded on a draft
// when the writer reports none, as the spec's logs default to 0.3.
const DefaultLLMParameter = 0.3

// EngagementScore weighs a post's public metrics: likes count once, reposts
// and replies twice, since they spread the post further.
func EngagementScore(likes, retweets, replies int) int {
	return likes + 2*retweets + 2*replies
}

// AgeSeconds is how long ago created was, never negative.
func AgeSeconds(created, now time.Time) int64 {
	d := now.Sub(created)
	if d < 0 {
		return 0
	}
	return int64(d / time.Second)
}

// SuccessRate is posted / (posted + rejected) × 100 to one decimal, 0 when
// nothing has been judged yet.
func SuccessRate(posted, rejected int) float64 {
	if posted+rejected == 0 {
		return 0
	}
	r := float64(posted) * 1000 / float64(posted+rejected)
	return float64(int(r+0.5)) / 10
}

// Post is one post the persona considers, with its drafted response and
// where the response stands.
type Post struct {
	ID       int64
	Platform string
	// AuthorID is the platform's stable id of the found post's author (the
	// X user id, the Bluesky DID), "" where unknown; the handle is for display.
	AuthorID string
	Source   Source
	Status   Status

	OriginalPostID     string
	ConversationID     string
	OriginalPostText   string
	OriginalPostUser   string
	AuthorUsername     string
	AuthorProfileImage string
	// MediaURL is the first image of Media (its full image), kept as the
	// spec's post shape has it.
	MediaURL string
	// Media are the post's images, videos and GIFs, at most MaxMedia, never nil once read.
	Media []Media
	// Link is the post's link card, nil when it shows none.
	Link *Link
	// ContentWarning is the warning the author put over the post
	// (Mastodon's spoiler_text), "" when none; a reply there carries it.
	ContentWarning string
	// Language is the post's language as its platform gave it at intake
	// (ParseLanguage's form: "en", "pt-BR"), "" when it named none.
	Language string
	// WebURL is the post's own web page as its platform named it at
	// intake (Mastodon's Status url, which depends on the server), ""
	// when none was kept: PageURL falls back to the descriptor's.
	WebURL string
	// CreatedAt is when the original post was made; for a profile post, when
	// its draft was asked for.
	CreatedAt time.Time
	Category  Category
	Likes     int
	Retweets  int
	Replies   int

	// ReplyRoute is how the reply goes out; "" for a profile post.
	ReplyRoute       Route
	ProposedResponse string
	// MaxLength is the limit in force on the platform when the draft was
	// written (Mastodon's server announces its own), zero for the
	// descriptor's; Limit is what a response may weigh.
	MaxLength        int
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64

	ApprovedAt     *time.Time
	RejectedAt     *time.Time
	SendStartedAt  *time.Time
	PostedAt       *time.Time
	ResponsePostID string
	Error          string
	UpdatedAt      time.Time

	// SkipReason says which guard stopped a skipped post.
	SkipReason string
	// Flags are the outbound check's findings on the current draft, the
	// values of guard.Flag; approving a flagged post needs an override.
	Flags []string
	// GuardedAt is when the post passed the guards before drafting (or was
	// drafted anyway); nil until then. From then on it counts against the
	// reply caps.
	GuardedAt *time.Time

	// InReplyToID and QuotedID are the platform ids of the posts the
	// original answers and quotes, empty when none: where its conversation
	// context starts.
	InReplyToID string
	QuotedID    string
	// ContextNote says what the draft could not see of its conversation
	// (the X budget spent, a read refused); empty when it saw all it asked for.
	ContextNote string

	// PersonaVersion is the persona version the draft was written in; zero
	// when none is known.
	PersonaVersion int
	// Review is the judge's second opinion on the draft; nil while
	// unjudged or when the judge failed.
	Review *Review
	// ReviewWaived is set when the administrator drafted the post anyway
	// after the judge skipped it: the judge skips it no more.
	ReviewWaived bool
	// DraftVersion grows by one whenever the proposed response changes (a
	// draft, a regenerate, a redraft, a saved edit); a decision names the
	// version it was made on.
	DraftVersion int
	// SendAfter is when an auto-approved post may be sent: the end of its
	// grace window, in which it may be cancelled; nil for a human approval.
	SendAfter *time.Time
	// LearnedFrom is what shaped the current draft (see LearnedFrom).
	LearnedFrom LearnedFrom
}

// Review is a judge's second opinion on a draft.
type Review struct {
	// Score is 1 (bad) to 5 (good).
	Score int `json:"score"`
	// Reason says why, in one line.
	Reason string `json:"reason"`
	// By names the judge ("offline", or the model).
	By string `json:"by"`
}

// The range of a review's score.
const (
	MinReviewScore = 1
	MaxReviewScore = 5
)

// EngagementScore is the post's weighed public metrics.
func (p Post) EngagementScore() int { return EngagementScore(p.Likes, p.Retweets, p.Replies) }

// IsMention reports whether the post came from a mention of the persona.
func (p Post) IsMention() bool { return p.Source == SourceMention }

// IsProfile reports whether the post is the persona's own standalone post.
func (p Post) IsProfile() bool { return p.Source == SourceProfile }

// StorableText drops the NUL characters PostgreSQL cannot keep in text, from
// text that comes from outside (a platform's post, a model's answer).
func StorableText(s string) string {
	return strings.ReplaceAll(s, "\x00", "")
}
