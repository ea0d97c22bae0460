// Package platform defines what the pipeline needs from a microblogging
// platform. Two implementations live below it: x (the X API v2) and sandbox
// (a simulated microblog kept in Postgres, the embedded default).
package platform

import (
	"context"
	"errors"
	"fmt"
	"time"
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
}

// Range bounds one read of a timeline: posts newer than SinceID and older
// than UntilID (both exclusive, as X's since_id and until_id); an empty
// bound is open.
type Range struct {
	SinceID string
	UntilID string
}

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
}

// Error is a refusal from the platform, with what it said.
type Error struct {
	// Status is the HTTP status, 0 for a network failure.
	Status int
	// Title and Detail are the platform's own words.
	Title  string
	Detail string
	// RetryAt is when a rate limit lifts, zero when not announced.
	RetryAt time.Time
	// Err is the underlying network error, if any.
	Err error
}

// Error describes the refusal in the platform's words.
func (e *Error) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("platform: %v", e.Err)
	case e.Detail != "" && e.Title != "":
		return fmt.Sprintf("platform: %d %s: %s", e.Status, e.Title, e.Detail)
	case e.Detail != "":
		return fmt.Sprintf("platform: %d %s", e.Status, e.Detail)
	}
	return fmt.Sprintf("platform: %d %s", e.Status, e.Title)
}

// Unwrap returns the underlying network error.
func (e *Error) Unwrap() error { return e.Err }

// RateLimited reports whether err is a 429, and when to try again.
func RateLimited(err error) (retryAt time.Time, ok bool) {
	var pe *Error
	if errors.As(err, &pe) && pe.Status == 429 {
		return pe.RetryAt, true
	}
	return time.Time{}, false
}

// Temporary reports whether err may go away on its own: a network failure,
// a rate limit or a server error. Any other refusal is final.
func Temporary(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) {
		// Context cancellation and unknown failures are retried, never failed for good.
		return true
	}
	return pe.Status == 0 || pe.Status == 429 || pe.Status >= 500
}
