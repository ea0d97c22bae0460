package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/guard"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Sender posts the approved responses, at most once each.
type Sender struct {
	Store    *store.Store
	Platform platform.Platform
	Log      *slog.Logger
	Now      func() time.Time
	// Self is the persona's account, whose earlier replies a retry looks for.
	Self *Self
	// Budget holds a send back while it does not fit the X ceilings; nil for none.
	Budget *spend.Gate
	// Prices price a send against the budget.
	Prices spend.Prices
	// Handle is the persona's handle: a reply to a post naming it is a
	// summoned reply, priced as one.
	Handle string
	// Settings keeps the settings (the send caps) between their changes;
	// nil reads them for every send.
	Settings *store.SettingsCache
}

// fits reports whether sending p stays within the X budget.
func (s *Sender) fits(ctx context.Context, p post.Post) (bool, error) {
	cost, _ := s.Prices.SendCost(p.ReplyRoute, p.Summoned(s.Handle), p.ProposedResponse)
	return s.Budget.SendFits(ctx, cost)
}

// fitsBudget reports whether post id may go within the X budget; one that
// does not stays approved (reconcile queues it again, and it goes once it
// fits). Only a ceiling of X spending needs the post read before its send
// starts, to price it.
func (s *Sender) fitsBudget(ctx context.Context, id int64) (bool, error) {
	if !s.Budget.LimitsX() {
		return true, nil
	}
	p, err := s.Store.Post(ctx, id)
	if err != nil || p.Status != post.StatusApproved {
		// BeginSendWithin tells what became of it.
		return true, nil
	}
	fit, err := s.fits(ctx, p)
	if err != nil {
		return false, err
	}
	if !fit {
		s.Log.InfoContext(ctx, "send deferred: it does not fit the X budget", "post_id", id)
	}
	return fit, nil
}

// SendPost posts an approved response, at most once. The row is marked
// before the platform call; a later attempt that finds the mark first asks
// the platform whether the reply already exists.
func (s *Sender) SendPost(ctx context.Context, t *asynq.Task) error {
	payload, err := tasks.DecodePost(t)
	if err != nil {
		return err
	}
	id := payload.PostID
	pause, set, err := s.Store.PauseWithSettings(ctx, s.Platform.Name(), s.Now(), s.Settings)
	if err != nil {
		return err
	}
	if pause != nil {
		// The post stays approved; reconcile queues it again once the pause lifts.
		s.Log.InfoContext(ctx, "send deferred: paused", "post_id", id, "reason", pause.Reason)
		return nil
	}
	if done, err := s.refuseOtherPlatform(ctx, id); done || err != nil {
		return err
	}
	if fit, err := s.fitsBudget(ctx, id); err != nil || !fit {
		return err
	}
	caps := set.Caps.Send()
	p, started, err := s.Store.BeginSendWithin(ctx, id, caps, func(q store.SendQueue) error {
		next, ok := guard.SendTurn(q.Sent, q.Ahead, q.Now, caps)
		if ok {
			return nil
		}
		return &SendHeld{ID: id, Until: next}
	})
	var held *SendHeld
	var early *store.SendEarlyError
	switch {
	case errors.As(err, &held):
		return s.hold(ctx, held)
	case errors.As(err, &early):
		// Its grace window: the task comes back at its end (RetryDelay), a
		// restart's reconcile queues it again, and it is held again until then.
		s.Log.InfoContext(ctx, "send waits for its grace window", "post_id", id, "send_after", early.Until)
		return &SendHeld{ID: id, Until: early.Until}
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("send %d: %w: %w", id, err, asynq.SkipRetry)
	case errors.Is(err, store.ErrConflict):
		// Already posted, failed or never approved: nothing to send.
		s.Log.InfoContext(ctx, "send skipped", "post_id", id, "reason", err)
		return nil
	case err != nil:
		return err
	}
	inReplyTo := p.OriginalPostID
	if p.IsProfile() {
		inReplyTo = ""
	}
	if kp, ok := s.Platform.(platform.KeyedPublisher); ok {
		return s.sendKeyed(ctx, kp, id, p, inReplyTo)
	}
	if started != nil {
		me, err := s.Self.User(ctx)
		if err != nil {
			return err
		}
		prior, found, err := s.Platform.FindPublished(ctx, me.ID, inReplyTo, p.ProposedResponse)
		if err != nil {
			return s.sendFailed(ctx, id, err)
		}
		if found {
			s.Log.InfoContext(ctx, "reply found already posted", "post_id", id, "response_id", prior.ID)
			return s.Store.MarkPosted(ctx, id, prior.ID, orNow(prior.CreatedAt, s.Now()))
		}
	}
	pubCtx := ctx
	if inReplyTo != "" && p.Summoned(s.Handle) {
		// X bills a reply to a post that summoned the persona at the summoned price, under every policy.
		pubCtx = platform.WithSummoned(ctx)
	}
	sent, err := s.Platform.Publish(pubCtx, p.ProposedResponse, inReplyTo)
	if err != nil {
		return s.sendFailed(ctx, id, err)
	}
	if err := s.Store.MarkPosted(ctx, id, sent.ID, orNow(sent.CreatedAt, s.Now())); err != nil {
		return err
	}
	s.Log.InfoContext(ctx, "posted", "post_id", id, "response_id", sent.ID)
	return nil
}

// sendKeyed posts p through a platform whose sends are keyed: the key is
// derived from the post's id and draft version (platform.VersionKeyer), or
// else stored with the post before the first attempt (or read back, on a
// retry), so that however often the send is retried, even after a crash
// between the platform's answer and MarkPosted, the platform makes one post.
func (s *Sender) sendKeyed(ctx context.Context, kp platform.KeyedPublisher, id int64, p post.Post, inReplyTo string) error {
	key, err := s.sendKey(ctx, kp, id, p)
	if err != nil {
		return err
	}
	sent, err := kp.PublishKeyed(ctx, key, p.ProposedResponse, inReplyTo)
	if err != nil {
		return s.sendFailed(ctx, id, err)
	}
	if err := s.Store.MarkPosted(ctx, id, sent.ID, orNow(sent.CreatedAt, s.Now())); err != nil {
		return err
	}
	s.Log.InfoContext(ctx, "posted", "post_id", id, "response_id", sent.ID, "send_key", key)
	return nil
}

// sendKey is the key of the send of post id (p) through kp.
func (s *Sender) sendKey(ctx context.Context, kp platform.KeyedPublisher, id int64, p post.Post) (string, error) {
	if vk, ok := kp.(platform.VersionKeyer); ok {
		return vk.PublishKeyFor(id, p.DraftVersion), nil
	}
	return s.Store.SendKey(ctx, id, kp.NewPublishKey())
}

// orderWait is the least a held send waits before it asks again, so that
// the posts ahead of it have started; maxHoldWait the most, so that caps
// raised in the admin free held posts within minutes.
const (
	orderWait   = 2 * time.Second
	maxHoldWait = 5 * time.Minute
)

// refuseOtherPlatform fails approved post id when it is not of the
// platform of s's client (post.CheckPlatform): a post of another platform,
// left approved after PLATFORM changed, is never handed to this client.
// done reports that the post was refused (or is gone).
func (s *Sender) refuseOtherPlatform(ctx context.Context, id int64) (done bool, err error) {
	name, err := s.Store.PostPlatform(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		// BeginSendWithin answers a post that is gone.
		return false, nil
	}
	if err != nil {
		return false, err
	}
	perr := post.CheckPlatform(post.Post{ID: id, Platform: name}, s.Platform.Name())
	if perr == nil {
		return false, nil
	}
	if ferr := s.Store.FailSend(ctx, id, perr.Error()); ferr != nil && !errors.Is(ferr, store.ErrConflict) {
		return true, ferr
	}
	s.Log.WarnContext(ctx, "send refused: the post is of another platform", "post_id", id, "platform", name, "client", s.Platform.Name())
	return true, nil
}

// SendHeld is what SendPost returns for a post the send caps hold: it stays
// approved, noted guard.ReasonSendCap for the card, and its task is retried
// at Until (RetryDelay) without using up its attempts (IsFailure), so posts
// go out in approval order as the windows allow.
type SendHeld struct {
	// ID is the held post.
	ID int64
	// Until is when to ask again.
	Until time.Time
}

// Error implements error.
func (e *SendHeld) Error() string {
	return fmt.Sprintf("send %d held by the send caps until %s", e.ID, e.Until.UTC().Format(time.RFC3339))
}

// hold notes on the post that the caps hold it, then returns held for the retry.
func (s *Sender) hold(ctx context.Context, held *SendHeld) error {
	if err := s.Store.NoteError(ctx, held.ID, guard.ReasonSendCap); err != nil {
		return errors.Join(held, err)
	}
	s.Log.InfoContext(ctx, "send held by the send caps", "post_id", held.ID, "until", held.Until)
	return held
}

// sendFailed decides what a platform error means for post id: a lasting
// refusal fails the row at once with the platform's words; anything else is
// retried, and fails the row only when no retry is left.
func (s *Sender) sendFailed(ctx context.Context, id int64, err error) error {
	switch r := platform.Classify(err); {
	case r == platform.RefusalReplyNotAllowed:
		// Not a failure: the admin posts it by hand through X's web intent.
		if merr := s.Store.ToManual(ctx, id, r.Reason()); merr != nil {
			return merr
		}
		s.Log.InfoContext(ctx, "reply not allowed through the API: awaiting hand-posting", "post_id", id)
		return nil
	case r.AccountWide():
		// The post is not at fault: it stays approved, with the reason, and goes out after the pause.
		if nerr := s.Store.NoteError(ctx, id, r.Reason()); nerr != nil {
			return errors.Join(err, nerr)
		}
		return pauseFor(ctx, s.Store, s.Log, s.Platform.Name(), r, err)
	case r != "":
		if ferr := s.Store.FailSend(ctx, id, r.Reason()+" ("+err.Error()+")"); ferr != nil {
			return ferr
		}
		s.Log.WarnContext(ctx, "send refused", "post_id", id, "refusal", r, "error", err)
		return nil
	}
	if !platform.Temporary(err) || lastAttempt(ctx) {
		if ferr := s.Store.FailSend(ctx, id, err.Error()); ferr != nil {
			return ferr
		}
		s.Log.WarnContext(ctx, "send failed", "post_id", id, "error", err)
		return nil
	}
	if nerr := s.Store.NoteError(ctx, id, err.Error()); nerr != nil {
		return errors.Join(err, nerr)
	}
	return err
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// RetryDelay waits out a rate limit until the platform or the model's
// provider says it lifts (writer.Busy) and a send the caps hold until they
// may let it go, resumes at once the task of a worker that died, and
// otherwise backs off as asynq does by default. The worker's server takes
// it as its tasks.ServerConfig.RetryDelay.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	var held *SendHeld
	if errors.As(err, &held) {
		return min(max(time.Until(held.Until), orderWait), maxHoldWait)
	}
	if errors.Is(err, asynq.ErrLeaseExpired) {
		// Not the task's fault; a send must not wait minutes more after a crash.
		return time.Second
	}
	at, ok := platform.RateLimited(err)
	var busy *writer.Busy
	if errors.As(err, &busy) {
		// The model's window: the draft waits in the queue until it opens.
		at, ok = busy.Until, true
	}
	if ok && !at.IsZero() {
		if d := time.Until(at) + time.Second; d > time.Second {
			// Spread the retries past the reset, never all at its instant.
			return d + rand.N(d/25+1)
		}
		return time.Second
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}
