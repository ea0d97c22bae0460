package settings

import (
	"fmt"
	"slices"
	"strings"

	"infernal/pkg/post"
)

// Autopilot are the administrator's rules for approving a draft without a
// person: off by default. A draft that qualifies (see package autopilot)
// is approved with a grace window in which it may still be cancelled.
type Autopilot struct {
	// Enabled turns the autopilot on.
	Enabled bool `json:"enabled"`
	// MinReviewScore is the least judge's score (1 to 5) a draft needs; an
	// unjudged draft never qualifies.
	MinReviewScore int `json:"min_review_score"`
	// Authors are the trusted authors' X handles (the sandbox plays X),
	// lower-cased without "@"; an author on a platform of another account
	// syntax (Bluesky, Mastodon) is never trusted by name, only by AnyAuthor.
	Authors []string `json:"authors"`
	// AnyAuthor trusts every author.
	AnyAuthor bool `json:"any_author"`
	// Categories limit it to drafts filed under one of them; empty: any.
	Categories []string `json:"categories"`
	// MaxPerHour is the most drafts auto-approved in any hour (0 to 100),
	// cancelled ones included.
	MaxPerHour int `json:"max_per_hour"`
	// GraceSeconds is how long (0 to 3600 s) an auto-approved draft waits
	// before it is sent, during which it may be cancelled.
	GraceSeconds int `json:"grace_seconds"`
}

// The bounds of the autopilot's numbers.
const (
	// MaxAutopilotPerHour bounds Autopilot.MaxPerHour.
	MaxAutopilotPerHour = 100
	// MaxGraceSeconds bounds Autopilot.GraceSeconds.
	MaxGraceSeconds = 3600
)

// DefaultAutopilot is the autopilot of a fresh install: off.
func DefaultAutopilot() Autopilot {
	return Autopilot{MinReviewScore: MaxReviewScore, Authors: []string{}, Categories: []string{}, MaxPerHour: 5, GraceSeconds: 120}
}

// Normalize returns a cleaned for storage, or the first bad value as a
// *FieldError named under "autopilot.".
func (a Autopilot) Normalize() (Autopilot, error) {
	if a.MinReviewScore < 1 || a.MinReviewScore > MaxReviewScore {
		return Autopilot{}, &FieldError{"autopilot.min_review_score", fmt.Sprintf("%d is out of range 1 to %d", a.MinReviewScore, MaxReviewScore)}
	}
	if a.GraceSeconds < 0 || a.GraceSeconds > MaxGraceSeconds {
		return Autopilot{}, &FieldError{"autopilot.grace_seconds", fmt.Sprintf("%d is out of range 0 to %d", a.GraceSeconds, MaxGraceSeconds)}
	}
	if a.MaxPerHour < 0 || a.MaxPerHour > MaxAutopilotPerHour {
		return Autopilot{}, &FieldError{"autopilot.max_per_hour", fmt.Sprintf("%d is out of range 0 to %d", a.MaxPerHour, MaxAutopilotPerHour)}
	}
	var err error
	if a.Authors, err = handles("autopilot.authors", a.Authors); err != nil {
		return Autopilot{}, err
	}
	cats := make([]string, 0, len(a.Categories))
	for i, c := range a.Categories {
		parsed, err := post.ParseCategory(strings.ToLower(strings.TrimSpace(c)))
		if err != nil {
			return Autopilot{}, &FieldError{fmt.Sprintf("autopilot.categories[%d]", i), fmt.Sprintf("%q is not one of %v", c, post.Categories)}
		}
		if !slices.Contains(cats, string(parsed)) {
			cats = append(cats, string(parsed))
		}
	}
	a.Categories = cats
	return a, nil
}

// isZero reports whether a was never set: a Settings built without it
// (the environment's seed) takes DefaultAutopilot.
func (a Autopilot) isZero() bool {
	return !a.Enabled && !a.AnyAuthor && a.MinReviewScore == 0 && a.MaxPerHour == 0 && a.GraceSeconds == 0 &&
		len(a.Authors) == 0 && len(a.Categories) == 0
}
