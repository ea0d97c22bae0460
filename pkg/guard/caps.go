package guard

import (
	"fmt"
	"slices"
	"time"
)

// Default reply caps: one persona reply per conversation, so that two bots
// cannot answer each other forever and X's "at most once per interaction"
// holds, and three replies to the same author a day.
const (
	// DefaultPerConversation is Caps.PerConversation's default.
	DefaultPerConversation = 1
	// DefaultPerAuthorPerDay is Caps.PerAuthorPerDay's default.
	DefaultPerAuthorPerDay = 3
)

// Caps are the per-conversation and per-author reply caps; a field of 0
// (or less) takes its default.
type Caps struct {
	// PerConversation is the most persona replies in one conversation.
	PerConversation int `json:"per_conversation"`
	// PerAuthorPerDay is the most persona replies to one author in a day.
	PerAuthorPerDay int `json:"per_author_per_day"`
}

// The reasons CapDecision gives, the start of a skipped post's reason.
const (
	// ReasonConversationCap starts the reason of a post skipped because the
	// persona has replied enough in its conversation.
	ReasonConversationCap = "cap: conversation"
	// ReasonAuthorCap starts the reason of a post skipped because the
	// persona has replied enough to its author today.
	ReasonAuthorCap = "cap: author"
)

// CapDecision reports whether the persona may reply once more, given how
// many replies it has made (or has pending, approved or sent) in the
// conversation and to the author in the last day; if not, reason says
// which cap holds, e.g. "cap: conversation (1 of 1)", for the skipped
// post.
func CapDecision(repliesInConversation, repliesToAuthorToday int, caps Caps) (reason string, ok bool) {
	caps = caps.WithDefaults()
	if repliesInConversation >= caps.PerConversation {
		return fmt.Sprintf("%s (%d of %d)", ReasonConversationCap, repliesInConversation, caps.PerConversation), false
	}
	if repliesToAuthorToday >= caps.PerAuthorPerDay {
		return fmt.Sprintf("%s (%d of %d today)", ReasonAuthorCap, repliesToAuthorToday, caps.PerAuthorPerDay), false
	}
	return "", true
}

// WithDefaults returns c with each unset field at its default.
func (c Caps) WithDefaults() Caps {
	if c.PerConversation <= 0 {
		c.PerConversation = DefaultPerConversation
	}
	if c.PerAuthorPerDay <= 0 {
		c.PerAuthorPerDay = DefaultPerAuthorPerDay
	}
	return c
}

// maxCap bounds every configurable cap: far above any sensible setting,
// low enough that a typo (an extra digit or two) is refused.
const maxCap = 1000

// Validate reports the first field of c that is out of range (negative or
// over 1000) as an error naming its JSON name, for a settings API's 400.
func (c Caps) Validate() error {
	return validateFields(
		field{"per_conversation", c.PerConversation},
		field{"per_author_per_day", c.PerAuthorPerDay},
	)
}

// Default send caps, well inside X's limits: X allows about 100 posts per
// 15 minutes per user through the API and 2,400 posts a day per account;
// ten posts per three hours and fifty a day keep the persona far from
// both and from looking like a spam account.
const (
	// DefaultSendWindow is SendCaps.Window's default.
	DefaultSendWindow = 3 * time.Hour
	// DefaultSendsPerWindow is SendCaps.PerWindow's default.
	DefaultSendsPerWindow = 10
	// DefaultSendsPerDay is SendCaps.PerDay's default.
	DefaultSendsPerDay = 50
)

// sendDay is the long window of the send caps.
const sendDay = 24 * time.Hour

// ReasonSendCap is what the card shows of an approved post that waits for
// a send slot.
const ReasonSendCap = "queued: cap"

// SendCaps are the global caps on posts sent: per rolling window (3 hours
// by default) and per rolling 24 hours; a field of 0 (or
// less) takes its default.
type SendCaps struct {
	// PerWindow is the most posts sent in any Window.
	PerWindow int `json:"sends_per_window"`
	// Window is the length of the short window.
	Window time.Duration `json:"-"`
	// PerDay is the most posts sent in any 24 hours.
	PerDay int `json:"sends_per_day"`
}

// WithDefaults returns c with each unset field at its default.
func (c SendCaps) WithDefaults() SendCaps {
	if c.PerWindow <= 0 {
		c.PerWindow = DefaultSendsPerWindow
	}
	if c.Window <= 0 {
		c.Window = DefaultSendWindow
	}
	if c.PerDay <= 0 {
		c.PerDay = DefaultSendsPerDay
	}
	return c
}

// Validate reports the first count of c that is out of range (negative or
// over 1000), or a per-window cap above the per-day one, as an error
// naming its JSON name.
func (c SendCaps) Validate() error {
	if err := validateFields(field{"sends_per_window", c.PerWindow}, field{"sends_per_day", c.PerDay}); err != nil {
		return err
	}
	d := c.WithDefaults()
	if d.PerWindow > d.PerDay {
		return fmt.Errorf("sends_per_window: %d is more than sends_per_day (%d)", d.PerWindow, d.PerDay)
	}
	return nil
}

// SendSlot reports whether one more post may be sent at now, given the
// times of the posts already sent (in any order), and if not, next, the
// earliest time it may: when enough sends have left every full window.
// A send at exactly now − window has left it. When ok, next is now.
func SendSlot(sent []time.Time, now time.Time, caps SendCaps) (next time.Time, ok bool) {
	caps = caps.WithDefaults()
	next = now
	for _, w := range []struct {
		length time.Duration
		limit  int
	}{{caps.Window, caps.PerWindow}, {sendDay, caps.PerDay}} {
		if at := windowOpens(sent, now, w.length, w.limit); at.After(next) {
			next = at
		}
	}
	return next, !next.After(now)
}

// windowOpens returns when fewer than limit of sent lie in the window of
// length ending at that time, assuming no more sends; now if they already
// do. A send after now (a clock step) counts as recent.
func windowOpens(sent []time.Time, now time.Time, length time.Duration, limit int) time.Time {
	var in []time.Time
	for _, s := range sent {
		if s.After(now.Add(-length)) {
			in = append(in, s)
		}
	}
	if len(in) < limit {
		return now
	}
	slices.SortFunc(in, time.Time.Compare)
	// The window has room once the oldest len(in)-limit+1 sends have left.
	return in[len(in)-limit].Add(length)
}

// field is a named setting for validateFields.
type field struct {
	name  string
	value int
}

// validateFields returns an error naming the first field out of range.
func validateFields(fields ...field) error {
	for _, f := range fields {
		if f.value < 0 || f.value > maxCap {
			return fmt.Errorf("%s: %d is out of range 0 to %d (0 takes the default)", f.name, f.value, maxCap)
		}
	}
	return nil
}
