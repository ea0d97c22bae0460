// Package autopilot decides, by the administrator's explicit rules
// (settings.Autopilot), whether a draft just made pending is approved
// without a person, and explains why: Qualify is a pure function of the
// rules and the facts the worker gathered.
package autopilot

import (
	"fmt"
	"slices"
	"strings"

	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// Facts are what Qualify decides on besides the rules.
type Facts struct {
	// Post is the draft, just made pending.
	Post post.Post
	// Paused is set while the operator pause holds.
	Paused bool
	// SpendBlocked is set when the spend ceiling stops the send.
	SpendBlocked bool
	// CapsFull is set when the send caps would hold the send.
	CapsFull bool
	// RecentApprovals counts the autopilot's approvals of the last hour,
	// cancelled ones included.
	RecentApprovals int
	// HumanDecided is set when a person edited or decided on the draft.
	HumanDecided bool
}

// Qualify returns the detail to record with an auto-approval of f.Post
// under rules (the rule values that matched and the score), or "" and the
// reason it does not qualify. Every condition must hold; each one alone
// blocks.
func Qualify(rules settings.Autopilot, f Facts) (map[string]any, string) {
	p := f.Post
	author := strings.ToLower(strings.TrimPrefix(p.AuthorUsername, "@"))
	// The trusted authors are X handles (settings.Autopilot): on a platform
	// of another account syntax a name alike is another person, so none of
	// its authors is trusted by name (post.Descriptor.AuthorsByName).
	trusted := post.DescriptorOf(p.Platform).AuthorsByName && slices.Contains(rules.Authors, author)
	switch {
	case !rules.Enabled:
		return nil, "autopilot is off"
	case p.Status != post.StatusPending:
		return nil, fmt.Sprintf("the post is %s, not pending", p.Status)
	case p.Review == nil:
		return nil, "the draft is unjudged"
	case p.Review.Score < rules.MinReviewScore:
		return nil, fmt.Sprintf("review %d/%d is below %d", p.Review.Score, post.MaxReviewScore, rules.MinReviewScore)
	case !rules.AnyAuthor && !trusted:
		return nil, fmt.Sprintf("@%s is not a trusted author", author)
	case len(rules.Categories) > 0 && !slices.Contains(rules.Categories, string(p.Category)):
		return nil, fmt.Sprintf("category %q is not among %v", p.Category, rules.Categories)
	case p.ReplyRoute != post.RouteAPI:
		return nil, "the reply does not go through the API"
	case len(p.Flags) > 0:
		return nil, fmt.Sprintf("flagged: %s", strings.Join(p.Flags, ", "))
	case f.HumanDecided:
		return nil, "a person has edited or decided on the draft"
	case f.Paused:
		return nil, "the operator pause holds"
	case f.SpendBlocked:
		return nil, "the spend ceiling stops it"
	case f.CapsFull:
		return nil, "the send caps hold it"
	case f.RecentApprovals >= rules.MaxPerHour:
		return nil, fmt.Sprintf("%d auto-approvals in the last hour, the most is %d", f.RecentApprovals, rules.MaxPerHour)
	}
	detail := map[string]any{
		"review_score":     p.Review.Score,
		"min_review_score": rules.MinReviewScore,
		"grace_seconds":    rules.GraceSeconds,
		"max_per_hour":     rules.MaxPerHour,
		"category":         string(p.Category),
	}
	who := "any author"
	if trusted {
		who = "trusted author @" + author
		detail["author"] = author
	} else {
		detail["any_author"] = true
	}
	if len(rules.Categories) > 0 {
		detail["categories"] = slices.Clone(rules.Categories)
	}
	detail["summary"] = fmt.Sprintf("Auto-approved: %s, review %d/%d", who, p.Review.Score, post.MaxReviewScore)
	return detail, ""
}
