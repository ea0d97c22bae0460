package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// autopilotLockKey is the transaction-scoped advisory lock every autopilot
// approval holds while it counts the approvals of the last hour and adds
// its own, so that two workers cannot both take the last one.
const autopilotLockKey int64 = 0x696e_6665_726e_6c02 // "infernl" and 2

// ErrAutopilotDeclined marks an autopilot approval the store refused: the
// hour's approvals are used up, the post is no longer a fresh pending
// draft, or a person has decided on it.
var ErrAutopilotDeclined = errors.New("autopilot declined")

// AutopilotError says why the store refused an autopilot approval; it is an
// ErrAutopilotDeclined.
type AutopilotError struct {
	// Reason says why.
	Reason string
}

// Error implements error.
func (e *AutopilotError) Error() string { return ErrAutopilotDeclined.Error() + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrAutopilotDeclined) hold.
func (e *AutopilotError) Unwrap() error { return ErrAutopilotDeclined }

// autoAllowed checks, in tx, which holds p's row lock, that the autopilot
// may approve p: a pending draft no person has edited or decided on, with
// fewer than a.MaxPerHour autopilot approvals in the last hour. It takes
// the autopilot lock, held until tx ends.
func autoAllowed(ctx context.Context, tx pgx.Tx, p post.Post, a Auto) error {
	if p.Status != post.StatusPending {
		return &AutopilotError{Reason: fmt.Sprintf("post %d is %s, not pending", p.ID, p.Status)}
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, autopilotLockKey); err != nil {
		return fmt.Errorf("autopilot lock: %w", err)
	}
	var human bool
	var recent int
	// An admin version or a decision by a person makes the draft a human's.
	if err := tx.QueryRow(ctx, autopilotCountsSQL, p.ID, post.OriginAdmin, post.ByAutopilot, post.ActionApprove).Scan(&human, &recent); err != nil {
		return fmt.Errorf("autopilot count: %w", err)
	}
	if human {
		return &AutopilotError{Reason: "a person has edited or decided on the draft"}
	}
	if recent >= a.MaxPerHour {
		return &AutopilotError{Reason: fmt.Sprintf("%d auto-approvals in the last hour, the most is %d", recent, a.MaxPerHour)}
	}
	return nil
}

// SendStartedError refuses to cancel an approval whose send has started.
// It is an ErrConflict.
type SendStartedError struct {
	// ID is the post's id.
	ID int64
}

// Error implements error.
func (e *SendStartedError) Error() string {
	return fmt.Sprintf("%v: post %d: the send has started; it can no longer be cancelled", ErrConflict, e.ID)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *SendStartedError) Unwrap() error { return ErrConflict }

// CancelAutoApproval puts an auto-approved post whose send has not started
// back to pending, and records the cancel made through by, under the row
// lock that a send's start takes too: of a cancel and a send racing, one
// wins. A send that started gets a *SendStartedError, a post that is not
// auto-approved a *post.StateError; both are ErrConflict. The approval
// still counts toward the autopilot's hourly most.
func (s *Store) CancelAutoApproval(ctx context.Context, id int64, by post.Channel) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "cancel")
		if err != nil {
			return err
		}
		out, err = withdraw(ctx, tx, p, by)
		return err
	})
	return out, err
}

// withdraw is CancelAutoApproval on p, locked in tx.
func withdraw(ctx context.Context, tx pgx.Tx, p post.Post, by post.Channel) (post.Post, error) {
	if p.Status == post.StatusPosted || (p.Status == post.StatusApproved && p.SendStartedAt != nil) {
		return post.Post{}, fmt.Errorf("store: cancel post %d: %w", p.ID, &SendStartedError{ID: p.ID})
	}
	if p.Status != post.StatusApproved || p.SendAfter == nil {
		return post.Post{}, fmt.Errorf("store: cancel post %d: %w", p.ID, &post.StateError{ID: p.ID, Have: p.Status, Want: post.StatusApproved})
	}
	out, err := queryPost(ctx, tx, `
		UPDATE posts SET status = 'pending', approved_at = NULL, send_after = NULL, error = '', updated_at = now()
		WHERE id = $1 RETURNING `+postColumns, p.ID)
	if err != nil {
		return post.Post{}, fmt.Errorf("store: cancel post %d: %w", p.ID, err)
	}
	// The approval is withdrawn: so is its case.
	if err := dropCase(ctx, tx, p.ID); err != nil {
		return post.Post{}, err
	}
	return out, addDecision(ctx, tx, p.ID, post.ActionCancel, by, p.DraftVersion, nil)
}

// SendEarlyError refuses to start the send of a post before its send_after.
type SendEarlyError struct {
	// ID is the post's id.
	ID int64
	// Until is its send_after.
	Until time.Time
}

// Error implements error.
func (e *SendEarlyError) Error() string {
	return fmt.Sprintf("send %d waits for its grace window until %s", e.ID, e.Until.UTC().Format(time.RFC3339))
}
