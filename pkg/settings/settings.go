// Package settings is what the administrator decides about whom the
// persona answers: targeted accounts, search topics, blocklists and caps.
// They live in PostgreSQL; the environment only seeds them on first start.
package settings

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"infernal/pkg/guard"
	"infernal/pkg/post"
)

// Settings are the administrator's choices, in the shape of GET and PUT
// /api/settings.
type Settings struct {
	// TargetUsernames are the accounts whose recent posts the targeted scan reads.
	TargetUsernames []string `json:"target_usernames"`
	// SearchTopics are the words or phrases the conversation scan searches for.
	SearchTopics []string `json:"search_topics"`
	// BlockedAuthors are never answered; an opt-out adds its author here.
	BlockedAuthors []string `json:"blocked_authors"`
	// BlockedPhrases make a post that holds one (after normalisation) skipped.
	BlockedPhrases []string `json:"blocked_phrases"`
	// Caps bound how often the persona replies and sends.
	Caps Caps `json:"caps"`
	// Autopilot are the rules for approving a draft without a person.
	Autopilot Autopilot `json:"autopilot"`
	// Learning is whether and how much drafts learn from past decisions.
	Learning Learning `json:"learning"`
	// Knowledge is how many knowledge chunks a draft's prompt gets.
	Knowledge Knowledge `json:"knowledge"`
	// Platforms are the choices that one platform alone knows of
	// (post.Descriptor.Options), by platform.
	Platforms PlatformOptions `json:"platforms"`
}

// Caps are the reply, send and near-duplicate limits; every field is set
// (Normalize fills zero ones with their defaults).
type Caps struct {
	// PerConversation is the most persona replies in one conversation.
	PerConversation int `json:"per_conversation"`
	// PerAuthorPerDay is the most persona replies to one author in 24 hours.
	PerAuthorPerDay int `json:"per_author_per_day"`
	// SendsPer3Hours is the most posts sent in any 3 hours.
	SendsPer3Hours int `json:"sends_per_3h"`
	// SendsPerDay is the most posts sent in any 24 hours.
	SendsPerDay int `json:"sends_per_day"`
	// NearDuplicate is the similarity (0 to 1] from which a draft is a
	// near-duplicate of a recent persona post.
	NearDuplicate float64 `json:"near_duplicate"`
	// ContextDepth is how many posts up the reply chain a draft reads.
	ContextDepth int `json:"context_depth"`
	// MinReviewScore sends a draft the judge scores below it (1 to 5) to
	// the Skipped view; 0 turns it off, and is the default.
	MinReviewScore int `json:"min_review_score"`
	// DraftsPerHour is the most first drafts written in any rolling hour,
	// of every source: the posts beyond it wait undrafted, in order.
	DraftsPerHour int `json:"drafts_per_hour"`
}

// Reply returns the per-conversation and per-author caps for guard.CapDecision.
func (c Caps) Reply() guard.Caps {
	return guard.Caps{PerConversation: c.PerConversation, PerAuthorPerDay: c.PerAuthorPerDay}
}

// Send returns the global send caps for guard.SendSlot.
func (c Caps) Send() guard.SendCaps {
	return guard.SendCaps{PerWindow: c.SendsPer3Hours, Window: guard.DefaultSendWindow, PerDay: c.SendsPerDay}
}

// DefaultCaps are the caps of a fresh install, as the README lists them.
func DefaultCaps() Caps {
	return Caps{
		PerConversation: guard.DefaultPerConversation,
		PerAuthorPerDay: guard.DefaultPerAuthorPerDay,
		SendsPer3Hours:  guard.DefaultSendsPerWindow,
		SendsPerDay:     guard.DefaultSendsPerDay,
		NearDuplicate:   guard.DefaultNearDuplicateThreshold,
		ContextDepth:    DefaultContextDepth,
		DraftsPerHour:   DefaultDraftsPerHour,
	}
}

// DefaultDraftsPerHour is caps.drafts_per_hour unless the administrator
// says otherwise: a flood from many fresh accounts costs at most this many
// model calls (and their judges) an hour.
const DefaultDraftsPerHour = 120

// MaxDraftsPerHour bounds caps.drafts_per_hour: a burst test drafts
// thousands an hour, a persona far fewer.
const MaxDraftsPerHour = 100000

// DefaultContextDepth is how many posts up its thread a draft reads unless
// the administrator says otherwise; MaxContextDepth bounds it, since every
// post above costs X a read.
const (
	DefaultContextDepth = 5
	MaxContextDepth     = 20
)

// MaxReviewScore is the highest judge's score, and so the highest
// MinReviewScore.
const MaxReviewScore = 5

// Limits on list sizes and entry lengths: far above real use, low enough
// that a pasted file is refused rather than stored.
const (
	// MaxEntries is the most entries one list may hold.
	MaxEntries = 500
	// MaxTopicLength is the longest search topic, in characters.
	MaxTopicLength = 100
	// MaxPhraseLength is the longest blocked phrase, in characters.
	MaxPhraseLength = 200
)

// handlePattern is what X allows in a handle.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)

// FieldError is a bad value, named by its JSON path (such as
// "target_usernames[2]" or "caps.sends_per_day", or "" for the request
// body as a whole), for the API's 400.
type FieldError struct {
	// Field is the JSON path of the bad value.
	Field string
	// Problem says what is wrong with it.
	Problem string
}

// Error implements error; a FieldError without a field (the body as a
// whole is wrong) is its problem alone.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return e.Field + ": " + e.Problem
}

// Normalize returns s cleaned for storage, or the first bad value as a
// *FieldError: accounts (targets, blocked authors) are handles or platform
// ids, as post.ParseAccount cleans them, entries are
// trimmed, empty entries dropped, duplicates (ignoring case) kept once,
// nil lists made empty, zero caps take their defaults, and an autopilot never
// set takes DefaultAutopilot (off). The topics must
// make a search X accepts (SearchQuery).
func (s Settings) Normalize() (Settings, error) {
	var err error
	if s.TargetUsernames, err = accounts("target_usernames", s.TargetUsernames); err != nil {
		return Settings{}, err
	}
	if s.BlockedAuthors, err = accounts("blocked_authors", s.BlockedAuthors); err != nil {
		return Settings{}, err
	}
	if s.SearchTopics, err = texts("search_topics", s.SearchTopics, MaxTopicLength); err != nil {
		return Settings{}, err
	}
	// The topics must make a search X accepts.
	if _, err = SearchQuery(s.SearchTopics); err != nil {
		return Settings{}, err
	}
	if s.BlockedPhrases, err = texts("blocked_phrases", s.BlockedPhrases, MaxPhraseLength); err != nil {
		return Settings{}, err
	}
	if s.Caps, err = s.Caps.normalize(); err != nil {
		return Settings{}, err
	}
	if s.Autopilot.isZero() {
		s.Autopilot = DefaultAutopilot()
	}
	if s.Autopilot, err = s.Autopilot.Normalize(); err != nil {
		return Settings{}, err
	}
	if s.Learning, err = s.Learning.Normalize(); err != nil {
		return Settings{}, err
	}
	if s.Knowledge, err = s.Knowledge.Normalize(); err != nil {
		return Settings{}, err
	}
	s.Platforms = s.Platforms.WithDefaults()
	return s, nil
}

// accounts cleans a list of accounts named field, each a handle or a
// platform id (see post.ParseAccount).
func accounts(field string, in []string) ([]string, error) {
	out, err := texts(field, in, post.MaxAccountLength)
	if err != nil {
		return nil, err
	}
	for i, a := range out {
		norm, _, err := post.ParseAccount(a)
		if err != nil {
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), err.Error()}
		}
		out[i] = norm
	}
	return dedupe(out), nil
}

// handles cleans a list of X handles named field.
func handles(field string, in []string) ([]string, error) {
	out, err := texts(field, in, 16)
	if err != nil {
		return nil, err
	}
	for i, h := range out {
		h = strings.ToLower(strings.TrimPrefix(h, "@"))
		if !handlePattern.MatchString(h) {
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%q is not a handle (1 to 15 letters, digits or underscores)", out[i])}
		}
		out[i] = h
	}
	return dedupe(out), nil
}

// texts cleans a list of free-text entries named field, each at most max characters.
func texts(field string, in []string, max int) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, t := range in {
		t = strings.TrimSpace(t)
		if !utf8.ValidString(t) {
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), "is not valid UTF-8"}
		}
		if strings.ContainsAny(t, "\n\r\t") {
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), "must be one line"}
		}
		// Topics reach the search query and phrases the filters: no control
		// characters or overrides, the same rule as every administrator's text.
		if err := post.CheckText(t); err != nil {
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), err.Error()}
		}
		switch {
		case utf8.RuneCountInString(t) > max:
			return nil, &FieldError{fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("is longer than %d characters", max)}
		case t != "":
			out = append(out, t)
		}
	}
	out = dedupe(out)
	if len(out) > MaxEntries {
		return nil, &FieldError{field, fmt.Sprintf("holds %d entries, more than %d", len(out), MaxEntries)}
	}
	return out, nil
}

// dedupe keeps the first of entries that are equal ignoring case.
func dedupe(in []string) []string {
	out := in[:0]
	for _, v := range in {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, v) }) {
			out = append(out, v)
		}
	}
	return out
}

// maxCap bounds every count cap: far above any sensible setting, low
// enough that a typo (an extra digit or two) is refused.
const maxCap = 1000

// normalize fills zero caps with their defaults and checks the ranges.
func (c Caps) normalize() (Caps, error) {
	d := DefaultCaps()
	for _, f := range []struct {
		name  string
		value *int
		def   int
	}{
		{"per_conversation", &c.PerConversation, d.PerConversation},
		{"per_author_per_day", &c.PerAuthorPerDay, d.PerAuthorPerDay},
		{"sends_per_3h", &c.SendsPer3Hours, d.SendsPer3Hours},
		{"sends_per_day", &c.SendsPerDay, d.SendsPerDay},
	} {
		if *f.value == 0 {
			*f.value = f.def
		}
		if *f.value < 0 || *f.value > maxCap {
			return Caps{}, &FieldError{"caps." + f.name, fmt.Sprintf("%d is out of range 0 to %d (0 takes the default)", *f.value, maxCap)}
		}
	}
	if c.DraftsPerHour == 0 {
		c.DraftsPerHour = d.DraftsPerHour
	}
	if c.DraftsPerHour < 0 || c.DraftsPerHour > MaxDraftsPerHour {
		return Caps{}, &FieldError{"caps.drafts_per_hour", fmt.Sprintf("%d is out of range 0 to %d (0 takes the default)", c.DraftsPerHour, MaxDraftsPerHour)}
	}
	if c.SendsPer3Hours > c.SendsPerDay {
		return Caps{}, &FieldError{"caps.sends_per_3h", fmt.Sprintf("%d is more than sends_per_day (%d)", c.SendsPer3Hours, c.SendsPerDay)}
	}
	if c.NearDuplicate == 0 {
		c.NearDuplicate = d.NearDuplicate
	}
	// The negated test also refuses NaN.
	if !(c.NearDuplicate > 0 && c.NearDuplicate <= 1) {
		return Caps{}, &FieldError{"caps.near_duplicate", fmt.Sprintf("%v is out of range: more than 0, at most 1 (0 takes the default)", c.NearDuplicate)}
	}
	if c.ContextDepth == 0 {
		c.ContextDepth = d.ContextDepth
	}
	if c.ContextDepth < 0 || c.ContextDepth > MaxContextDepth {
		return Caps{}, &FieldError{"caps.context_depth", fmt.Sprintf("%d is out of range 0 to %d (0 takes the default)", c.ContextDepth, MaxContextDepth)}
	}
	if c.MinReviewScore < 0 || c.MinReviewScore > MaxReviewScore {
		return Caps{}, &FieldError{"caps.min_review_score", fmt.Sprintf("%d is out of range 0 to %d (0 turns it off)", c.MinReviewScore, MaxReviewScore)}
	}
	return c, nil
}
