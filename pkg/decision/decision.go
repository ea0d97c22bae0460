// Package decision carries out the administrator's decisions on a post
// (approve, reject, edit, regenerate, cancel, draft anyway, mark posted,
// give up), each made on the draft version that was shown and kept in the
// post's history, for every channel: the web API, bulk, the Telegram chat
// and autopilot call the same methods, so the channels cannot drift apart
// and none skips the version check, the caps or the history.
package decision

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// ErrQueueDown marks work that could not be handed to Redis.
var ErrQueueDown = errors.New("queue unavailable")

// Store keeps the posts and their decisions; *store.Store is one.
type Store interface {
	// Post returns one post by id.
	Post(ctx context.Context, id int64) (post.Post, error)
	// ApproveWith approves a post under its row lock, recording the decision.
	ApproveWith(ctx context.Context, id int64, a store.Approval) (post.Post, error)
	// RejectWith rejects a post made on a draft version, recording the decision.
	RejectWith(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error)
	// SaveEdit stores an edited draft without approving it.
	SaveEdit(ctx context.Context, id int64, text string, shown *int, check store.ApproveCheck, by post.Channel) (post.Post, error)
	// CancelAutoApproval puts an auto-approved post not yet sending back to pending.
	CancelAutoApproval(ctx context.Context, id int64, by post.Channel) (post.Post, error)
	// RecordDecision records a decision that changes nothing by itself.
	RecordDecision(ctx context.Context, id int64, action post.Action, by post.Channel, version int) error
	// SetCaseReason keeps the reason of a post's rejection with its case.
	SetCaseReason(ctx context.Context, id int64, reason string) error
	// DraftAnyway moves a skipped post back to drafting, guarded, recording the decision.
	DraftAnyway(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error)
	// MarkManualPosted records a hand-posted reply as posted, recording the decision.
	MarkManualPosted(ctx context.Context, id int64, responseID string, postedAt time.Time, shown *int, by post.Channel) (post.Post, error)
	// GiveUp moves a post awaiting hand-posting back to rejected, recording the decision.
	GiveUp(ctx context.Context, id int64, reason string, shown *int, by post.Channel) (post.Post, error)
}

// Queue hands the work a decision starts to the workers; *tasks.Client is one.
type Queue interface {
	// EnqueueSend asks for an approved post to be sent.
	EnqueueSend(ctx context.Context, id int64) error
	// EnqueueRegenerate asks for a new draft of a post, written to instruction.
	EnqueueRegenerate(ctx context.Context, id int64, instruction string) error
	// EnsureDraft asks for a post of platform to be drafted, replacing a
	// draft task kept completed from before, unless one is waiting or running.
	EnsureDraft(ctx context.Context, id int64, platform string) (bool, error)
}

// Decider carries out decisions.
type Decider struct {
	store Store
	queue Queue
	// persona is the persona's handle, without the @: a reply that
	// mentions it is flagged.
	persona string
	log     *slog.Logger
	// running are the platforms PLATFORM names: an approval, an edit or a
	// regeneration of a post of another is refused (post.CheckPlatform);
	// nil checks nothing.
	running []string
}

// Option configures a Decider.
type Option func(*Decider)

// Running makes the Decider refuse, with a *post.PlatformError, to
// approve, edit or regenerate a post whose platform is not one of
// platforms (PLATFORM's list). A reject or a cancel stays allowed: it
// takes a post away from sending.
func Running(platforms []string) Option {
	return func(d *Decider) { d.running = slices.Clone(platforms) }
}

// New returns a Decider over st and q for the persona's handle.
func New(st Store, q Queue, persona string, log *slog.Logger, opts ...Option) *Decider {
	if log == nil {
		log = slog.Default()
	}
	d := &Decider{store: st, queue: q, persona: persona, log: log}
	for _, o := range opts {
		o(d)
	}
	return d
}

// belongs refuses a decision on p when its platform is not running.
func (d *Decider) belongs(p post.Post) error {
	if d.running == nil {
		return nil
	}
	return post.CheckPlatform(p, d.running...)
}

// Approval is one approval.
type Approval struct {
	// Shown is the draft version the decision was made on; nil approves the
	// current one.
	Shown *int
	// Edited, when not nil, is the text to post in place of the draft.
	Edited *string
	// Override approves a text the outbound check flags ("approve anyway").
	Override bool
	// By is the channel the decision came through.
	By post.Channel
	// Detail is kept with the decision (the autopilot rule that matched).
	Detail map[string]any
	// Auto, when not nil, makes it an autopilot approval: sent after its
	// grace window, within the hourly most (store.Auto).
	Auto *store.Auto
}

// Approve approves post id: the text shown (or the edited one) passes the
// length rule and the outbound check, and is what gets sent. An approved
// post is recorded first, then handed to the workers to send; if Redis is
// down the reconcile task sends it later. A stale Shown is a
// *post.VersionError and changes nothing; a second approval of one post
// is a *post.StateError.
func (d *Decider) Approve(ctx context.Context, id int64, a Approval) (post.Post, error) {
	if a.Edited != nil {
		if err := post.CheckField("response", *a.Edited); err != nil {
			return post.Post{}, fmt.Errorf("decision: approve post %d: %w", id, err)
		}
	}
	p, err := d.store.ApproveWith(ctx, id, store.Approval{
		Edited: a.Edited, Check: d.check(a.Override), Shown: a.Shown, By: a.By, Detail: a.Detail, Auto: a.Auto,
	})
	if err != nil {
		return post.Post{}, err
	}
	if p.Status == post.StatusAwaitingManual {
		// The API may not send it: the admin posts it through intent_url.
		return p, nil
	}
	if err := d.queue.EnqueueSend(ctx, id); err != nil {
		d.log.WarnContext(ctx, "approved post not queued yet; reconcile will send it", "post_id", id, "error", err)
	}
	return p, nil
}

// Cancel withdraws post id's auto-approval in its grace window: it is
// pending again. Once its send has started it is a *store.SendStartedError.
func (d *Decider) Cancel(ctx context.Context, id int64, by post.Channel) (post.Post, error) {
	return d.store.CancelAutoApproval(ctx, id, by)
}

// Reject rejects post id, made on draft version shown (nil: the current).
func (d *Decider) Reject(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error) {
	return d.store.RejectWith(ctx, id, shown, by)
}

// RejectFor rejects post id as Reject does, with reason (checked by
// learning.CheckReason; "" for none) kept with its case in the memory, from
// which the next drafts learn a lesson.
func (d *Decider) RejectFor(ctx context.Context, id int64, shown *int, by post.Channel, reason string) (post.Post, error) {
	p, err := d.store.RejectWith(ctx, id, shown, by)
	if err != nil || reason == "" {
		return p, err
	}
	return p, d.Reason(ctx, id, reason)
}

// Reason keeps reason (checked by learning.CheckReason) as the reason of
// post id's rejection, given after it (Telegram's quick reasons); a post
// without a rejected case keeps none.
func (d *Decider) Reason(ctx context.Context, id int64, reason string) error {
	if err := d.store.SetCaseReason(ctx, id, reason); err != nil {
		return fmt.Errorf("decision: reason of post %d: %w", id, err)
	}
	return nil
}

// Edit saves text as post id's draft without approving it, made on draft
// version shown; the text passes the same length rule as an approval, and
// its flags are stored for the card. Nothing is sent.
func (d *Decider) Edit(ctx context.Context, id int64, text string, shown *int, by post.Channel) (post.Post, error) {
	if err := post.CheckField("response", text); err != nil {
		return post.Post{}, fmt.Errorf("decision: edit post %d: %w", id, err)
	}
	return d.store.SaveEdit(ctx, id, text, shown, func(p post.Post, text string) ([]string, error) {
		if err := d.belongs(p); err != nil {
			return nil, err
		}
		return d.flags(p, text), nil
	}, by)
}

// Regenerate asks the writer for a new draft of pending or failed post id,
// to instruction (already checked by post.CheckInstruction), made on draft
// version shown, and returns the post as it was. The new draft arrives
// later with a higher draft version. An auto-approval in its grace window
// is withdrawn first.
func (d *Decider) Regenerate(ctx context.Context, id int64, instruction string, shown *int, by post.Channel) (post.Post, error) {
	p, err := d.store.Post(ctx, id)
	if err != nil {
		return post.Post{}, err
	}
	if err := d.belongs(p); err != nil {
		return post.Post{}, err
	}
	if !post.Regenerable(p.Status) && !post.InGrace(p) {
		return post.Post{}, &post.StateError{ID: id, Have: p.Status, Want: post.StatusPending}
	}
	if err := post.CheckShown(p, shown); err != nil {
		return post.Post{}, err
	}
	if post.InGrace(p) {
		// A new text withdraws the auto-approval.
		if p, err = d.store.CancelAutoApproval(ctx, id, by); err != nil {
			return post.Post{}, err
		}
	}
	if err := d.queue.EnqueueRegenerate(ctx, id, instruction); err != nil {
		return post.Post{}, fmt.Errorf("decision: regenerate %d: %w: %w", id, ErrQueueDown, err)
	}
	if err := d.store.RecordDecision(ctx, id, post.ActionRegenerate, by, p.DraftVersion); err != nil {
		return post.Post{}, err
	}
	return p, nil
}

// DraftAnyway overrides the guard that skipped post id, made on draft
// version shown (nil: the current one): it goes back to drafting, past the
// guards (it counts against the caps), and is handed to the workers to
// draft; if Redis is down the reconcile task queues it later. A post that
// is not skipped is a *post.StateError.
func (d *Decider) DraftAnyway(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error) {
	p, err := d.store.DraftAnyway(ctx, id, shown, by)
	if err != nil {
		return post.Post{}, err
	}
	// Its first draft task, which skipped it, may be kept completed under the same id.
	if _, err := d.queue.EnsureDraft(ctx, id, p.Platform); err != nil {
		d.log.WarnContext(ctx, "post to draft anyway not queued yet; reconcile will draft it", "post_id", id, "error", err)
	}
	return p, nil
}

// MarkPosted records that the administrator posted post id's reply, awaiting
// hand-posting, by hand at postedAt, as responseID when known (""
// otherwise), made on draft version shown. A post in any other status is
// a *post.StateError.
func (d *Decider) MarkPosted(ctx context.Context, id int64, responseID string, postedAt time.Time, shown *int, by post.Channel) (post.Post, error) {
	return d.store.MarkManualPosted(ctx, id, responseID, postedAt, shown, by)
}

// GiveUp gives up post id's reply, awaiting hand-posting: it is rejected,
// keeping reason, made on draft version shown. A reason holding a control
// character is a *post.TextError; a post in any other status a *post.StateError.
func (d *Decider) GiveUp(ctx context.Context, id int64, reason string, shown *int, by post.Channel) (post.Post, error) {
	if err := post.CheckField("reason", reason); err != nil {
		return post.Post{}, fmt.Errorf("decision: give up post %d: %w", id, err)
	}
	return d.store.GiveUp(ctx, id, reason, shown, by)
}

// check is the outbound check of an approval: the flags of the text
// approved, refused without override. The pipeline's near-duplicate flag
// stays on an unedited draft, shown on the card, but needs no override: it
// says the persona repeats itself, not that the text is unsafe.
func (d *Decider) check(override bool) store.ApproveCheck {
	return func(p post.Post, text string) ([]string, error) {
		if err := d.belongs(p); err != nil {
			return nil, err
		}
		flags := d.flags(p, text)
		if len(flags) > 0 && !override {
			return nil, &guard.OverrideError{Flags: flags}
		}
		if text == p.ProposedResponse && slices.Contains(p.Flags, string(guard.FlagNearDuplicate)) {
			flags = append(flags, string(guard.FlagNearDuplicate))
		}
		return flags, nil
	}
}

// flags are the outbound check's flags of text as a reply to p.
func (d *Decider) flags(p post.Post, text string) []string {
	return guard.Strings(guard.ReplyFlags(text, p.AuthorUsername, p.OriginalPostText, d.persona))
}
