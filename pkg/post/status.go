package post

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"infernal/pkg/twittertext"
)

// Sentinel errors of the domain; the store hands them on, and callers test
// them with errors.Is.
var (
	// ErrConflict means a post is not in a status that allows the change.
	ErrConflict = errors.New("conflict")
	// ErrInvalid means the change would keep content the domain forbids.
	ErrInvalid = errors.New("invalid")
)

// Statuses lists every status, in the order of a post's life.
var Statuses = []Status{StatusDrafting, StatusPending, StatusApproved, StatusAwaitingManual, StatusPosted, StatusRejected, StatusFailed, StatusSkipped}

// Valid reports whether s is one of the known statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Move is one change of status a post may make.
type Move struct {
	From, To Status
}

// Moves is the table of every allowed change of status; nothing else may
// happen to a post's status. Where a status can be reached from several,
// the usual one comes first.
func Moves() []Move {
	return []Move{
		// The writer produced a draft, or could not.
		{From: StatusDrafting, To: StatusPending},
		{From: StatusDrafting, To: StatusFailed},
		// The reviewer had a failed post redrafted (regenerate): its new
		// draft awaits review again.
		{From: StatusFailed, To: StatusPending},
		// A guard stopped the post before drafting, or the administrator
		// overrode the guard ("draft anyway").
		{From: StatusDrafting, To: StatusSkipped},
		{From: StatusSkipped, To: StatusDrafting},
		// The administrator judges a draft, or a failed post kept in view to be fixed.
		{From: StatusPending, To: StatusApproved},
		{From: StatusFailed, To: StatusApproved},
		{From: StatusPending, To: StatusRejected},
		{From: StatusFailed, To: StatusRejected},
		// An auto-approval was cancelled in its grace window, or withdrawn
		// when its text changed: the draft awaits review again.
		{From: StatusApproved, To: StatusPending},
		// The response went out, or the platform refused it for good.
		{From: StatusApproved, To: StatusPosted},
		{From: StatusApproved, To: StatusFailed},
		// A reply the API may not send is approved for hand-posting, or sent
		// to it when X refuses the API's reply.
		{From: StatusPending, To: StatusAwaitingManual},
		{From: StatusFailed, To: StatusAwaitingManual},
		{From: StatusApproved, To: StatusAwaitingManual},
		// The hand-posted reply was found (or marked) posted, or given up.
		{From: StatusAwaitingManual, To: StatusPosted},
		{From: StatusAwaitingManual, To: StatusRejected},
	}
}

// CanMove reports whether a post in status from may move to status to.
func CanMove(from, to Status) bool {
	return slices.Contains(Moves(), Move{From: from, To: to})
}

// From lists the statuses a post may move to status to from, the usual one
// first. Every post begins in drafting, which it re-enters only from
// skipped, when the administrator drafts it anyway.
func From(to Status) []Status {
	var out []Status
	for _, m := range Moves() {
		if m.To == to {
			out = append(out, m.From)
		}
	}
	return out
}

// StateError refuses a change because the post is not in a status that
// allows it. It is an ErrConflict.
type StateError struct {
	// ID is the post's id.
	ID int64
	// Have is the status the post is in.
	Have Status
	// Want is the status the change starts from (the usual one, when it is
	// allowed from several).
	Want Status
}

// Error says where the post stands and where it should.
func (e *StateError) Error() string {
	return fmt.Sprintf("%v: post %d is %s, not %s", ErrConflict, e.ID, e.Have, e.Want)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *StateError) Unwrap() error { return ErrConflict }

// LengthError refuses a response whose weighted length is not 1 to Max. It
// is an ErrInvalid.
type LengthError struct {
	// Length is the response's weighted length.
	Length int
	// Max is the longest weighted length allowed.
	Max int
	// Unit is what Length counts, "characters" when empty ("graphemes" on Bluesky).
	Unit string
}

// Error says how long the response is and how long it may be.
func (e *LengthError) Error() string {
	unit := e.Unit
	if unit == "" {
		unit = "characters"
	}
	return fmt.Sprintf("%v: the response is %d %s; it must be 1 to %d", ErrInvalid, e.Length, unit, e.Max)
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *LengthError) Unwrap() error { return ErrInvalid }

// ContentError refuses a response for what it holds rather than for its
// length. It is an ErrInvalid.
type ContentError struct {
	// Reason says what is wrong, written for the administrator.
	Reason string
}

// Error says what is wrong with the response.
func (e *ContentError) Error() string { return fmt.Sprintf("%v: %s", ErrInvalid, e.Reason) }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *ContentError) Unwrap() error { return ErrInvalid }

// CheckResponse refuses a response about to be posted unless the platform
// would take it: a *LengthError unless its weighted length is 1 to
// twittertext.MaxLength, a *ContentError when it is only whitespace or holds
// a character the platform refuses.
func CheckResponse(text string) error {
	return CheckResponseFor("", 0, text)
}

// CheckResponseFor is CheckResponse with platform's own length rule and
// limit: limit when above zero (a post's Limit, the server's own), else
// its descriptor's; on Bluesky 1 to 300 graphemes.
func CheckResponseFor(platform string, limit int, text string) error {
	d := DescriptorOf(platform)
	if limit <= 0 {
		limit = d.MaxLength
	}
	n := d.Length.Count(text)
	switch {
	case n == 0 || n > limit:
		e := &LengthError{Length: n, Max: limit}
		if d.Length != LengthWeighted {
			e.Unit = d.Length.Unit()
		}
		return e
	case strings.TrimSpace(text) == "":
		return &ContentError{Reason: "the response must not be only whitespace"}
	case d.Length == LengthWeighted && !twittertext.WithinLimit(text):
		// Within the length, so what twitter-text refuses is one of its three forbidden characters.
		return &ContentError{Reason: "the response must not contain U+FFFE, U+FEFF or U+FFFF"}
	}
	return nil
}

// CheckReply refuses text as p's response unless p's platform would take
// it: CheckResponseFor p's platform and its Limit, of the text as it is
// sent (ReplyText). The one check of a response written for a stored post.
func CheckReply(p Post, text string) error {
	return CheckResponseFor(p.Platform, p.Limit(), ReplyText(p, text))
}

// VersionError refuses a decision made on a draft version that is no
// longer the post's: the text changed since it was shown. It is an
// ErrConflict; Have is the current version, to show the new text.
type VersionError struct {
	// ID is the post's id.
	ID int64
	// Have is the post's current draft version.
	Have int
	// Shown is the version the decision was made on.
	Shown int
}

// Error says which version was shown and which is current.
func (e *VersionError) Error() string {
	return fmt.Sprintf("%v: post %d is at draft version %d, not %d", ErrConflict, e.ID, e.Have, e.Shown)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *VersionError) Unwrap() error { return ErrConflict }

// CheckShown refuses, with a *VersionError, a decision on p made on draft
// version shown when that is not p's current one; a nil shown decides on
// the current version.
func CheckShown(p Post, shown *int) error {
	if shown != nil && *shown != p.DraftVersion {
		return &VersionError{ID: p.ID, Have: p.DraftVersion, Shown: *shown}
	}
	return nil
}

// InGrace reports whether p is auto-approved and its send has not
// started: what a cancel, or a change of its text, withdraws.
func InGrace(p Post) bool {
	return p.Status == StatusApproved && p.SendAfter != nil && p.SendStartedAt == nil
}
