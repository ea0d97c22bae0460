// Package learning is how the persona learns from its editor: every
// decision on a draft is a Case (the post, the first draft, the final text,
// the decision and its channel), every edit and every rejection with a
// reason may yield a Lesson (one short rule), and the next drafts get the
// most similar approved cases as examples and the best lessons in their
// prompt (Shaper, over pkg/retrieval). The cases and lessons live in
// PostgreSQL (pkg/store); the writers distill the lessons (pkg/writer).
package learning

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"infernal/pkg/guard"
)

// Decision is what became of a case's draft.
type Decision string

// The decisions of a case.
const (
	// DecisionApproved is a draft sent as the writer wrote it.
	DecisionApproved Decision = "approved"
	// DecisionEdited is a draft sent after the administrator changed it.
	DecisionEdited Decision = "edited"
	// DecisionRejected is a rejected draft: never an example.
	DecisionRejected Decision = "rejected"
)

// ByImport is the channel of an imported case.
const ByImport = "import"

// Case is one decision on a draft, or one imported reply.
type Case struct {
	ID int64
	// PostID is the post decided on; 0 for an imported reply.
	PostID int64
	// ConversationKey tells conversations apart: no two examples share one.
	ConversationKey string
	Platform        string
	// Language is the post's language when known, else "".
	Language string
	// Author and AuthorID are the mortal's handle (without @) and stable
	// id; "" for an imported reply.
	Author   string
	AuthorID string
	// Mention is the mortal's post.
	Mention string
	// Digest is a short digest of the thread the post answers.
	Digest string
	// Draft is the writer's last draft before the decision, Final the text
	// approved (or the draft rejected).
	Draft    string
	Final    string
	Decision Decision
	// By is the channel of the decision (post.Channel values, or ByImport).
	By string
	// Reason is a rejection's reason, "" when none.
	Reason string
	// ReviewScore and PersonaVersion are the draft's; nil when unknown.
	ReviewScore    *int
	PersonaVersion *int
	// Engagement is the reply's likes, reposts and replies at 24 hours;
	// nil until then.
	Engagement *int
	UsedCount  int
	LastUsedAt *time.Time
	CreatedAt  time.Time
}

// LessonKind says where a lesson came from.
type LessonKind string

// The kinds of lesson.
const (
	// KindEdit is distilled from an edit.
	KindEdit LessonKind = "edit"
	// KindRejection is distilled from a rejection's reason.
	KindRejection LessonKind = "rejection"
	// KindManual is written by the administrator.
	KindManual LessonKind = "manual"
)

// Lesson is one short rule the persona learned.
type Lesson struct {
	ID   int64
	Text string
	Kind LessonKind
	// SourceCaseIDs are the cases it was distilled from or confirmed by.
	SourceCaseIDs []int64
	// Count is how many times it was distilled or added.
	Count     int
	Enabled   bool
	UsedCount int
	CreatedAt time.Time
	// LastUsedAt is when it last was in a prompt, nil if never.
	LastUsedAt *time.Time
}

// Limits of the texts the administrator gives.
const (
	// MaxLesson is the longest lesson, in characters.
	MaxLesson = 200
	// MaxReason is the longest rejection reason, in characters.
	MaxReason = 200
	// MaxMention is the longest imported post, in characters.
	MaxMention = 2000
)

// ErrInvalid marks a text that may not be stored; its message says why.
var ErrInvalid = errors.New("invalid")

// CheckLesson returns text trimmed if it can be a lesson: 1 to MaxLesson
// characters, one line, no link and no @mention (a lesson goes into every
// prompt: it must not carry a handle or an address there).
func CheckLesson(text string) (string, error) {
	t := strings.TrimSpace(text)
	switch {
	case !utf8.ValidString(t):
		return "", fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	case t == "":
		return "", fmt.Errorf("%w: must not be empty", ErrInvalid)
	case utf8.RuneCountInString(t) > MaxLesson:
		return "", fmt.Errorf("%w: longer than %d characters", ErrInvalid, MaxLesson)
	case strings.ContainsAny(t, "\n\r\t\x00"):
		return "", fmt.Errorf("%w: must be one line", ErrInvalid)
	}
	for _, f := range guard.Flags(t, nil, "") {
		switch f {
		case guard.FlagLink:
			return "", fmt.Errorf("%w: must not hold a link", ErrInvalid)
		case guard.FlagForeignMention:
			return "", fmt.Errorf("%w: must not @mention anyone", ErrInvalid)
		}
	}
	if len(guard.Mentions(t)) > 0 {
		return "", fmt.Errorf("%w: must not @mention anyone", ErrInvalid)
	}
	return t, nil
}

// CheckReason returns a rejection reason trimmed: at most MaxReason
// characters, one line; "" is none.
func CheckReason(reason string) (string, error) {
	t := strings.TrimSpace(reason)
	switch {
	case !utf8.ValidString(t):
		return "", fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	case utf8.RuneCountInString(t) > MaxReason:
		return "", fmt.Errorf("%w: longer than %d characters", ErrInvalid, MaxReason)
	case strings.ContainsAny(t, "\n\r\x00"):
		return "", fmt.Errorf("%w: must be one line", ErrInvalid)
	}
	return t, nil
}

// QuickReasons are the reasons Telegram offers after a reject, in order.
var QuickReasons = []string{"Off-topic", "Wrong tone", "Too long", "Unsafe", "Other"}

// Candidate is a case that may shape a draft, with its similarity to the
// post being drafted, as pkg/store finds it.
type Candidate struct {
	Case
	// Trigram is pg_trgm's similarity of the case's post to the query.
	Trigram float64
	// Rank is the text-search rank of the case's post, normalised to [0, 1).
	Rank float64
}
