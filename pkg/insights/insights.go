// Package insights accounts for every post the scans return: its fate, and
// the funnel of fates the admin's Insights show.
package insights

import (
	"strings"

	"infernal/pkg/post"
)

// The reasons the scans drop a post before recording it (the ledger's
// reason). The reasons of the posts skipped after recording are the starts
// of their skip reasons (guard's Reason* and the caps).
const (
	// DropRetweet is a repost: not its author's own words.
	DropRetweet = "retweet"
	// DropOwnPost is the persona's own post.
	DropOwnPost = "own post"
	// DropNotSummoned is a post the API may not answer (the persona was
	// not summoned to it) and nobody posts replies to by hand.
	DropNotSummoned = "not summoned"
	// DropDirectMessage is a direct mention (Mastodon's visibility
	// direct) left unanswered while platforms.mastodon.reply_to_direct is off: a
	// public answer would widen a private word.
	DropDirectMessage = "direct_message"
	// ReasonDraftFailed is a post whose draft failed (a refusal, or a
	// writer failing to the last attempt): never drafted, it counts among
	// the skipped.
	ReasonDraftFailed = "draft failed"
)

// The fates of a post the scans returned, each post at exactly one.
const (
	// FateWaiting is a post not drafted yet.
	FateWaiting = "waiting"
	// FateSkipped is a post dropped, skipped by a guard, or whose draft failed.
	FateSkipped = "skipped"
	// FatePending is a draft awaiting the administrator.
	FatePending = "pending"
	// FateRejected is a draft the administrator rejected (or a hand-post given up).
	FateRejected = "rejected"
	// FateSending is an approved reply not posted yet.
	FateSending = "sending"
	// FatePosted is a reply posted.
	FatePosted = "posted"
	// FateAwaitingHandPost is an approved reply waiting to be posted by hand.
	FateAwaitingHandPost = "awaiting_hand_post"
	// FateFailed is an approved reply the platform refused for good.
	FateFailed = "failed"
)

// FateOf is the fate of a recorded post in status, with its skip reason
// and error; approved tells a failed send (approved first) from a failed
// draft. A skipped post's reason is the start of its skip reason, before
// the colon: "opt-out", not `opt-out: "stop"`; a failed send's is its error.
func FateOf(status post.Status, skipReason, errText string, approved bool) (fate, reason string) {
	switch status {
	case post.StatusDrafting:
		return FateWaiting, ""
	case post.StatusSkipped:
		return FateSkipped, ReasonCode(skipReason)
	case post.StatusPending:
		return FatePending, ""
	case post.StatusApproved:
		return FateSending, ""
	case post.StatusAwaitingManual:
		return FateAwaitingHandPost, ""
	case post.StatusPosted:
		return FatePosted, ""
	case post.StatusRejected:
		return FateRejected, ""
	case post.StatusFailed:
		if !approved {
			return FateSkipped, ReasonDraftFailed
		}
		return FateFailed, errText
	default:
		// A status newer than this code: not drafted as far as it knows.
		return FateWaiting, string(status)
	}
}

// ReasonCode is the start of a skip reason, before its first colon, trimmed.
func ReasonCode(reason string) string {
	code, _, _ := strings.Cut(reason, ":")
	return strings.TrimSpace(code)
}

// Funnel counts the posts the scans returned in a range, each once at its
// current fate. Its sums agree (Check): Seen = Waiting + the Skipped +
// Drafted; Drafted = Pending + Approved + Rejected; Approved = Sending +
// Posted + AwaitingHandPost + Failed; Edited and ApprovedByAutopilot are
// parts of Approved.
type Funnel struct {
	Seen    int64            `json:"seen"`
	Waiting int64            `json:"waiting"`
	Skipped map[string]int64 `json:"skipped"`
	Drafted int64            `json:"drafted"`
	Pending int64            `json:"pending"`
	// Approved counts the approved replies, posted or not.
	Approved int64 `json:"approved"`
	// ApprovedByAutopilot is the part of Approved no administrator
	// approved: its last approval was the autopilot's (post_decisions).
	ApprovedByAutopilot int64 `json:"approved_by_autopilot"`
	// Edited is the part of Approved whose text the administrator changed.
	Edited           int64 `json:"edited"`
	Rejected         int64 `json:"rejected"`
	Sending          int64 `json:"sending"`
	Posted           int64 `json:"posted"`
	AwaitingHandPost int64 `json:"awaiting_hand_post"`
	Failed           int64 `json:"failed"`
}

// NewFunnel returns an empty funnel.
func NewFunnel() Funnel { return Funnel{Skipped: map[string]int64{}} }

// Add counts n posts at fate (skipped ones for reason), of which edited
// had their text changed before approval and autopilot were approved by
// the autopilot. A fate it does not know counts as waiting, so that Seen
// still adds up.
func (f *Funnel) Add(fate, reason string, n, edited, autopilot int64) {
	if f.Skipped == nil {
		f.Skipped = map[string]int64{}
	}
	f.Seen += n
	switch fate {
	case FateSkipped:
		f.Skipped[reason] += n
		return
	case FatePending:
		f.Pending += n
	case FateRejected:
		f.Rejected += n
	case FateSending, FatePosted, FateAwaitingHandPost, FateFailed:
		f.Approved += n
		f.Edited += edited
		f.ApprovedByAutopilot += autopilot
		switch fate {
		case FateSending:
			f.Sending += n
		case FatePosted:
			f.Posted += n
		case FateAwaitingHandPost:
			f.AwaitingHandPost += n
		default:
			f.Failed += n
		}
	default:
		f.Waiting += n
		return
	}
	f.Drafted += n
}

// Check reports whether the funnel's sums agree.
func (f Funnel) Check() bool {
	var skipped int64
	for _, n := range f.Skipped {
		skipped += n
	}
	return f.Seen == f.Waiting+skipped+f.Drafted &&
		f.Drafted == f.Pending+f.Approved+f.Rejected &&
		f.Approved == f.Sending+f.Posted+f.AwaitingHandPost+f.Failed &&
		f.Edited <= f.Approved && f.ApprovedByAutopilot <= f.Approved
}
