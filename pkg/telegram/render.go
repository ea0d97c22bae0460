package telegram

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"infernal/pkg/learning"
	"infernal/pkg/post"
)

// The texts the bot answers with.
const (
	// TextStale answers a press on a card whose draft has changed.
	TextStale = "This draft changed"
	// TextNotAllowed answers anyone but the administrator.
	TextNotAllowed = "not allowed"
	// TextApproved answers an Approve press that approved the draft.
	TextApproved = "Approved"
	// TextRejected answers a Reject press, and ends a card rejected here.
	TextRejected = "Rejected"
	// TextDecidedInWeb ends a card decided in the web admin.
	TextDecidedInWeb = "Decided in the web admin"
	// TextReplaced ends a card whose draft was replaced by a newer one.
	TextReplaced = "Replaced by a new draft"
	// TextAlreadyDecided answers a press on a draft decided already.
	TextAlreadyDecided = "Already decided"
	// TextRegenerating answers a Regenerate press.
	TextRegenerating = "Drafting anew…"
	// TextAutoApproved ends a card the autopilot approved, once sent.
	TextAutoApproved = "Auto-approved"
	// TextCancelled answers a Cancel press that withdrew an auto-approval,
	// and ends its card; a fresh card follows.
	TextCancelled = "Cancelled: back to review"
	// TextSendStarted answers a Cancel press that came too late.
	TextSendStarted = "Too late: the send has started"
	// TextReasonNoted answers a quick reason's press.
	TextReasonNoted = "Reason noted"
)

// Actions of the card's buttons, the first field of their callback data.
const (
	actApprove    = "a"
	actReject     = "r"
	actRegenerate = "g"
	actEdit       = "e"
	actCancel     = "c"
	// actReason gives a rejection its reason; the data's last field is
	// the reason's number in learning.QuickReasons, from 1.
	actReason = "y"
)

// maxPostRunes and maxThreadRunes shorten the mortal's post and the thread
// posts on a card; a message holds at most 4,096 characters.
const (
	maxPostRunes   = 600
	maxThreadRunes = 200
)

// ThreadPost is one earlier post of a card's thread.
type ThreadPost struct {
	Author string
	Text   string
}

// Card is what a draft's message shows.
type Card struct {
	PostID  int64
	Version int
	// Platform names the platform, as the admin's badge does.
	Platform string
	Author   string
	Post     string
	// ContentWarning is the warning over the mortal's post, "" for none:
	// shown on its own line above the post.
	ContentWarning string
	// Thread is at most the last two posts before the mortal's, oldest first.
	Thread   []ThreadPost
	Response string
	// Length is the response's length by the platform's rule; Max its
	// limit (post.Post.Limit: the server's, less a warning the reply carries).
	Length, Max int
	Review      *post.Review
	CostUSD     float64
	// AdminURL opens the card in the web admin; "" when PUBLIC_URL is unset.
	AdminURL string
	// Edited is set for a draft the administrator edited: only Approve and
	// Reject are offered.
	Edited bool
	// Images counts the images of the mortal's post; LinkTitle is its link
	// card's title ("" for none, or a card without a title).
	Images    int
	LinkTitle string
	// Cases and Lessons count what shaped the draft: past replies given
	// as examples and lessons in its prompt.
	Cases, Lessons int
}

// mediaLine is what a card says of the mortal's post's images and link
// card ("📷 2 images · 🔗 The pit's hours"), "" when it shows neither.
func (c Card) mediaLine() string {
	var parts []string
	switch {
	case c.Images == 1:
		parts = append(parts, "📷 1 image")
	case c.Images > 1:
		parts = append(parts, fmt.Sprintf("📷 %d images", c.Images))
	}
	if c.LinkTitle != "" {
		parts = append(parts, "🔗 "+shorten(c.LinkTitle, maxThreadRunes))
	}
	return strings.Join(parts, " · ")
}

// ShapedBy is the line saying what shaped a draft, "" when nothing did.
func ShapedBy(cases, lessons int) string {
	if cases == 0 && lessons == 0 {
		return ""
	}
	return fmt.Sprintf("Shaped by %s · %s", plural(cases, "past reply", "past replies"), plural(lessons, "lesson", "lessons"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ReasonPrompt offers the quick reasons of post id's rejection, one
// button each; answering is optional.
func ReasonPrompt(id int64) Message {
	var row []Button
	var rows [][]Button
	for i, r := range learning.QuickReasons {
		row = append(row, Button{Text: r, Data: callbackData(actReason, id, i+1)})
		if len(row) == 3 {
			rows, row = append(rows, row), nil
		}
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return Message{Text: fmt.Sprintf("Rejected #%d. Why? (optional)", id), Buttons: rows}
}

// ReasonGiven is the reason prompt once answered.
func ReasonGiven(id int64, reason string) Message {
	return Message{Text: fmt.Sprintf("Rejected #%d: %s", id, reason)}
}

// platformName is how a card names the platform: its descriptor's label.
func platformName(p string) string { return post.Label(p) }

// Render is the card's message, with its buttons.
func (c Card) Render() Message {
	var b strings.Builder
	head := "New draft"
	if c.Edited {
		head = "Edited draft"
	}
	fmt.Fprintf(&b, "%s #%d · %s · @%s\n\n", head, c.PostID, platformName(c.Platform), c.Author)
	for _, t := range c.Thread {
		fmt.Fprintf(&b, "↳ @%s: %s\n", t.Author, shorten(t.Text, maxThreadRunes))
	}
	if c.ContentWarning != "" {
		fmt.Fprintf(&b, "Content warning: %s\n", shorten(c.ContentWarning, maxThreadRunes))
	}
	fmt.Fprintf(&b, "@%s: %s\n", c.Author, shorten(c.Post, maxPostRunes))
	if m := c.mediaLine(); m != "" {
		b.WriteString(m + "\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Response (%d / %d):\n%s\n\n", c.Length, c.Max, c.Response)
	if c.Review != nil {
		fmt.Fprintf(&b, "Review: %d/5 · %s\n", c.Review.Score, c.Review.Reason)
	} else {
		b.WriteString("Review: none\n")
	}
	if line := ShapedBy(c.Cases, c.Lessons); line != "" {
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "Estimated cost: $%.3f\n", c.CostUSD)
	if c.AdminURL != "" {
		fmt.Fprintf(&b, "Card: %s\n", c.AdminURL)
	}
	rows := [][]Button{{
		{Text: "Approve", Data: callbackData(actApprove, c.PostID, c.Version)},
		{Text: "Reject", Data: callbackData(actReject, c.PostID, c.Version)},
	}}
	if !c.Edited {
		rows = append(rows, []Button{
			{Text: "Regenerate", Data: callbackData(actRegenerate, c.PostID, c.Version)},
			{Text: "Edit", Data: callbackData(actEdit, c.PostID, c.Version)},
		})
	}
	return Message{Text: strings.TrimRight(b.String(), "\n"), Buttons: rows}
}

// AutoPosting is the card of an auto-approval in its grace window, which
// lasts grace: "Auto-posting in 1:42", shown with a Cancel button.
func AutoPosting(grace time.Duration) string {
	secs := max(int(grace.Round(time.Second).Seconds()), 0)
	return fmt.Sprintf("Auto-posting in %d:%02d", secs/60, secs%60)
}

// Cancellable is the card's text with outcome (AutoPosting) and a Cancel
// button for post id's draft version.
func Cancellable(card, outcome string, id int64, version int) Message {
	return Message{Text: card + "\n\n" + outcome, Buttons: [][]Button{{{Text: "Cancel", Data: callbackData(actCancel, id, version)}}}}
}

// Closed is the card's text with outcome in place of its buttons.
func Closed(card string, outcome string) Message {
	return Message{Text: card + "\n\n" + outcome}
}

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// callbackData is a button's data: action, post id and draft version, at
// most 64 bytes (two int64s and a letter fit in 43).
func callbackData(action string, id int64, version int) string {
	return action + ":" + strconv.FormatInt(id, 10) + ":" + strconv.Itoa(version)
}

// errBadData refuses callback data the bot did not write.
var errBadData = errors.New("telegram: callback data is not action:id:version")

// parseData reads callback data written by callbackData.
func parseData(data string) (action string, id int64, version int, err error) {
	parts := strings.Split(data, ":")
	if len(parts) != 3 {
		return "", 0, 0, errBadData
	}
	switch parts[0] {
	case actApprove, actReject, actRegenerate, actEdit, actCancel, actReason:
	default:
		return "", 0, 0, errBadData
	}
	id, err = strconv.ParseInt(parts[1], 10, 64)
	if err != nil || id <= 0 {
		return "", 0, 0, errBadData
	}
	version, err = strconv.Atoi(parts[2])
	if err != nil || version < 1 {
		return "", 0, 0, errBadData
	}
	return parts[0], id, version, nil
}

// DigestText sums up a burst of n new drafts, the top shown of them following as cards.
func DigestText(n, shown int) string {
	return fmt.Sprintf("%d new drafts; the top %d by review score follow", n, shown)
}

// EditPrompt asks for the new text of a draft.
func EditPrompt(id int64) string {
	return fmt.Sprintf("Send the new text for draft #%d as a reply to this message.", id)
}

// TooLong refuses an edited text over the platform's limit.
func TooLong(length, max int) string {
	return fmt.Sprintf("Too long: %d / %d. Nothing changed.", length, max)
}

// QueueText answers /queue: the counts and the oldest waiting draft.
func QueueText(pending, mentions int, oldest *post.Post, now time.Time) string {
	if pending == 0 || oldest == nil {
		return "No drafts wait for review."
	}
	wait := now.Sub(oldest.UpdatedAt).Round(time.Minute)
	return fmt.Sprintf("%d drafts wait for review (%d mentions). Oldest: #%d by @%s, waiting %s.",
		pending, mentions, oldest.ID, oldest.AuthorUsername, wait)
}

// Outcome is what a card shows once its post moved on: the final text,
// and whether the card needs no further edit.
func Outcome(p post.Post, by post.Channel, cardVersion int, postURL string) (text string, final bool) {
	switch {
	case p.Status == post.StatusPending && p.DraftVersion != cardVersion:
		return TextReplaced, true
	case by != post.ByTelegram && by != "" && p.Status != post.StatusPending:
		if by == post.ByAutopilot {
			if post.InGrace(p) && p.ApprovedAt != nil {
				return AutoPosting(p.SendAfter.Sub(*p.ApprovedAt)), false
			}
			return TextAutoApproved, p.Status != post.StatusApproved
		}
		return TextDecidedInWeb, true
	}
	switch p.Status {
	case post.StatusApproved:
		return "Approved: sending…", false
	case post.StatusPosted:
		if postURL == "" {
			return "Approved: posted", true
		}
		return "Approved: posted " + postURL, true
	case post.StatusAwaitingManual:
		return "Approved: post it by hand from the web admin", true
	case post.StatusRejected:
		return TextRejected, true
	case post.StatusFailed:
		return "Failed: " + shorten(p.Error, 200), true
	}
	return "", false
}
