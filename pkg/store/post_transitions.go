package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// from lists, as the guard of an UPDATE (status = ANY($n)), the statuses the
// domain lets a post move to status to from.
func from(to post.Status) []string {
	var out []string
	for _, s := range post.From(to) {
		out = append(out, string(s))
	}
	return out
}

// usual is the status a move to status to normally starts from, named when
// a post is found elsewhere.
func usual(to post.Status) post.Status {
	return post.From(to)[0]
}

// lockPost reads post id for update inside tx; an unknown id is ErrNotFound.
func lockPost(ctx context.Context, tx pgx.Tx, id int64, what string) (post.Post, error) {
	p, err := queryPost(ctx, tx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id)
	if err != nil {
		return post.Post{}, notFound(err, fmt.Sprintf("%s post %d", what, id))
	}
	return p, nil
}

// stateError explains why an update guarded by status want touched nothing:
// no such post (ErrNotFound), or a post in another state (*post.StateError).
func (s *Store) stateError(ctx context.Context, id int64, what string, want post.Status) error {
	var have post.Status
	err := s.pool.QueryRow(ctx, `SELECT status FROM posts WHERE id = $1`, id).Scan(&have)
	if err != nil {
		return notFound(err, fmt.Sprintf("%s %d", what, id))
	}
	return fmt.Errorf("store: %s %d: %w", what, id, &post.StateError{ID: id, Have: have, Want: want})
}

// failFrom moves post id from status was to failed, keeping reason, when
// the post is in was and the domain allows the move; else it reports why not.
func (s *Store) failFrom(ctx context.Context, id int64, what string, was post.Status, reason string) error {
	if !post.CanMove(was, post.StatusFailed) {
		return fmt.Errorf("store: %s %d: no move from %s to failed", what, id, was)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE posts SET status = 'failed', error = $2, updated_at = now() WHERE id = $1 AND status = $3`,
		id, reason, was)
	if err != nil {
		return fmt.Errorf("store: %s %d: %w", what, id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, what, was)
	}
	return nil
}

// ApproveCheck judges the text about to be approved while the post's row is
// locked: it returns the flags to store with it, or an error that refuses
// the approval (returned as it is).
type ApproveCheck func(p post.Post, text string) (flags []string, err error)

// Approval is one approval of a post under review.
type Approval struct {
	// Edited, when not nil, replaces the draft before approval.
	Edited *string
	// Check, when not nil, runs on the post and the text to be approved,
	// inside the transaction, so that the text judged is the text approved;
	// the flags it returns replace the post's.
	Check ApproveCheck
	// Shown is the draft version the administrator saw; nil approves the
	// current one. Another version is refused with a *post.VersionError.
	Shown *int
	// By is the channel the approval came through, kept in the history.
	By post.Channel
	// Detail is kept with the decision (the autopilot rule that matched).
	Detail map[string]any
	// Auto, when not nil, makes it an autopilot approval under its limits.
	Auto *Auto
}

// Auto are the limits of an autopilot approval, checked under the
// autopilot lock, so that two workers never both take the last one.
type Auto struct {
	// Grace is how long the post waits (send_after) before it may be sent.
	Grace time.Duration
	// MaxPerHour is the most autopilot approvals in any hour, cancelled ones included.
	MaxPerHour int
}

// ApproveWith carries out a: it moves a pending (or failed) post to
// approved, storing an edited response first when a.Edited is not nil (as
// an admin version when it changes the text); a post whose reply the API
// may not send (post.RouteManual) moves to awaiting_manual instead, for
// hand-posting. The response must pass post.CheckReply, its platform's
// rule within the post's Limit (a *post.LengthError, ErrInvalid). The decision is recorded; all under
// the post's row lock, so two approvals of one post approve it once (the
// second, like a post in any other state, gets a *post.StateError,
// ErrConflict). pkg/decision is its one caller, for every channel.
func (s *Store) ApproveWith(ctx context.Context, id int64, a Approval) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "approve")
		if err != nil {
			return err
		}
		to := post.StatusApproved
		if p.ReplyRoute == post.RouteManual {
			to = post.StatusAwaitingManual
		}
		if !post.CanMove(p.Status, to) {
			return fmt.Errorf("store: approve post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: usual(to)})
		}
		if err := post.CheckShown(p, a.Shown); err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		var grace *float64
		if a.Auto != nil {
			if err := autoAllowed(ctx, tx, p, *a.Auto); err != nil {
				return fmt.Errorf("store: approve post %d: %w", id, err)
			}
			secs := a.Auto.Grace.Seconds()
			grace = &secs
		}
		text := p.ProposedResponse
		if a.Edited != nil {
			text = *a.Edited
		}
		if err := post.CheckReply(p, text); err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		flags := nonNil(p.Flags)
		if a.Check != nil {
			if flags, err = a.Check(p, text); err != nil {
				return fmt.Errorf("store: approve post %d: %w", id, err)
			}
		}
		version := p.DraftVersion
		if text != p.ProposedResponse {
			if err := addVersion(ctx, tx, id, text, post.OriginAdmin, ""); err != nil {
				return err
			}
			version++
		}
		// The row is locked, so the guard holds; it is kept so that no update skips the table.
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = $4, proposed_response = $2, approved_at = now(), error = '', flags = $5,
				draft_version = $6, send_after = now() + make_interval(secs => $7), updated_at = now(),
				-- Edited: the administrator changed the text, now or in an edit saved before.
				edited = EXISTS (SELECT 1 FROM post_versions v WHERE v.post_id = $1 AND v.origin = 'admin')
			WHERE id = $1 AND status = ANY($3) RETURNING `+postColumns, id, text, from(to), to, nonNil(flags), version, grace)
		if err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		if err := recordCase(ctx, tx, id, text, false, a.By); err != nil {
			return err
		}
		return addDecision(ctx, tx, id, post.ActionApprove, a.By, version, a.Detail)
	})
	return out, err
}

// RejectWith moves a pending (or failed) post id to rejected, made on
// draft version shown (nil: the current one; another is a
// *post.VersionError) through channel by, and records the decision; any
// other state gets a *post.StateError (ErrConflict).
func (s *Store) RejectWith(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "reject")
		if err != nil {
			return err
		}
		if !post.CanMove(p.Status, post.StatusRejected) {
			return fmt.Errorf("store: reject post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: usual(post.StatusRejected)})
		}
		if err := post.CheckShown(p, shown); err != nil {
			return fmt.Errorf("store: reject post %d: %w", id, err)
		}
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = 'rejected', rejected_at = now(), updated_at = now()
			WHERE id = $1 RETURNING `+postColumns, id)
		if err != nil {
			return fmt.Errorf("store: reject post %d: %w", id, err)
		}
		if err := recordCase(ctx, tx, id, p.ProposedResponse, true, by); err != nil {
			return err
		}
		return addDecision(ctx, tx, id, post.ActionReject, by, p.DraftVersion, nil)
	})
	return out, err
}

// SaveEdit stores text as the administrator's edit of a pending (or
// failed) post's draft without approving it: a new admin version, the
// draft version one higher, the flags check returns (nil keeps the
// post's). It is made on draft version shown (nil: the current one); the
// text must pass post.CheckReply, as an approval's. A post in any other state gets a
// *post.StateError.
func (s *Store) SaveEdit(ctx context.Context, id int64, text string, shown *int, check ApproveCheck, by post.Channel) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "edit")
		if err != nil {
			return err
		}
		if post.InGrace(p) && text != p.ProposedResponse {
			// A changed text withdraws the auto-approval: the edit is the administrator's to approve.
			if p, err = withdraw(ctx, tx, p, by); err != nil {
				return err
			}
		}
		if !post.Regenerable(p.Status) {
			return fmt.Errorf("store: edit post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: post.StatusPending})
		}
		if err := post.CheckShown(p, shown); err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		if err := post.CheckReply(p, text); err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		flags := nonNil(p.Flags)
		if check != nil {
			if flags, err = check(p, text); err != nil {
				return fmt.Errorf("store: edit post %d: %w", id, err)
			}
		}
		if text == p.ProposedResponse {
			// Nothing changed: the draft and its version stay.
			out = p
			return nil
		}
		if err := addVersion(ctx, tx, id, text, post.OriginAdmin, ""); err != nil {
			return err
		}
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = 'pending', proposed_response = $2, flags = $3, error = '',
				draft_version = draft_version + 1, updated_at = now()
			WHERE id = $1 RETURNING `+postColumns, id, text, nonNil(flags))
		if err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		return addDecision(ctx, tx, id, post.ActionEdit, by, p.DraftVersion, nil)
	})
	return out, err
}

// GiveUp moves a post awaiting hand-posting back to rejected, keeping
// reason, made on draft version shown (nil: the current one) through
// channel by, and records the decision; any other status gets a
// *post.StateError (ErrConflict).
func (s *Store) GiveUp(ctx context.Context, id int64, reason string, shown *int, by post.Channel) (post.Post, error) {
	return s.decideOn(ctx, id, decisionOn{what: "give up", want: post.StatusAwaitingManual, action: post.ActionGiveUp, shown: shown, by: by},
		func(tx pgx.Tx) (post.Post, error) {
			return queryPost(ctx, tx, `
				UPDATE posts SET status = 'rejected', rejected_at = now(), error = $2, updated_at = now()
				WHERE id = $1 RETURNING `+postColumns, id, reason)
		})
}

// DraftAnyway overrides the guard that skipped a post: it moves back to
// drafting, guarded (so the guards are not run again, and it counts
// against the caps), its reason cleared, and with its review waived (the
// judge's score skips it no more). It is made on draft version shown (nil:
// the current one) through channel by, and the decision is recorded. A
// post that is not skipped gets a *post.StateError (ErrConflict), an
// unknown one ErrNotFound.
func (s *Store) DraftAnyway(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error) {
	return s.decideOn(ctx, id, decisionOn{what: "draft anyway", want: post.StatusSkipped, action: post.ActionDraftAnyway, shown: shown, by: by},
		func(tx pgx.Tx) (post.Post, error) {
			return queryPost(ctx, tx, `
				UPDATE posts SET status = 'drafting', guarded_at = now(), skip_reason = '', review_waived = true, updated_at = now()
				WHERE id = $1 RETURNING `+postColumns, id)
		})
}

// decisionOn is one decision on a post in a status of its own, for decideOn.
type decisionOn struct {
	// what names the decision in errors.
	what string
	// want is the one status the decision is made from.
	want   post.Status
	action post.Action
	// shown is the draft version the decision was made on; nil: the current one.
	shown *int
	by    post.Channel
}

// decideOn carries out decision d on post id in one transaction, under the
// post's row lock: a post not in d.want is a *post.StateError, a stale
// d.shown a *post.VersionError, and both change nothing; else move changes
// the row (and returns it) and the decision is recorded on the draft
// version it was made on.
func (s *Store) decideOn(ctx context.Context, id int64, d decisionOn, move func(tx pgx.Tx) (post.Post, error)) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, d.what)
		if err != nil {
			return err
		}
		if p.Status != d.want {
			return fmt.Errorf("store: %s %d: %w", d.what, id, &post.StateError{ID: id, Have: p.Status, Want: d.want})
		}
		if err := post.CheckShown(p, d.shown); err != nil {
			return fmt.Errorf("store: %s %d: %w", d.what, id, err)
		}
		if out, err = move(tx); err != nil {
			return fmt.Errorf("store: %s %d: %w", d.what, id, err)
		}
		return addDecision(ctx, tx, id, d.action, d.by, p.DraftVersion, nil)
	})
	return out, err
}
