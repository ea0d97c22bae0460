package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/writer"
)

// Handlers does the pipeline's work; its dependencies are injected.
type Handlers struct {
	Store    *store.Store
	Platform platform.Platform
	Writer   writer.Writer
	Queue    *Client
	Log      *slog.Logger
	Now      func() time.Time
	// Persona is the persona's handle, without the @.
	Persona string
	// SearchQuery finds the conversations to join.
	SearchQuery string
	// Targets are the handles whose recent posts are answered.
	Targets []string

	meOnce sync.Mutex
	me     *platform.User
}

// Register routes every task type to its handler.
func (h *Handlers) Register(mux *asynq.ServeMux) {
	mux.HandleFunc(TypeScanMentions, h.ScanMentions)
	mux.HandleFunc(TypeScanConversations, h.ScanConversations)
	mux.HandleFunc(TypeScanTargeted, h.ScanTargeted)
	mux.HandleFunc(TypeGenerateProfile, h.GenerateProfile)
	mux.HandleFunc(TypeDraftPost, h.DraftPost)
	mux.HandleFunc(TypeSendPost, h.SendPost)
	mux.HandleFunc(TypeRefreshMetrics, h.RefreshMetrics)
	mux.HandleFunc(TypeReconcile, h.Reconcile)
}

// self returns the persona's account, asked of the platform once.
func (h *Handlers) self(ctx context.Context) (platform.User, error) {
	h.meOnce.Lock()
	defer h.meOnce.Unlock()
	if h.me != nil {
		return *h.me, nil
	}
	me, err := h.Platform.Me(ctx)
	if err != nil {
		return platform.User{}, fmt.Errorf("who am I: %w", err)
	}
	h.me = &me
	return me, nil
}

// decode reads a payload strictly; garbage is refused without retry, so a
// poison task is archived at once and stops nothing else.
func decode(t *asynq.Task, v any) error {
	if _, scan := v.(*ScanPayload); scan && len(t.Payload()) == 0 {
		// A periodic task run by hand from the dashboard may carry no payload at all.
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t.Payload()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: bad payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	if dec.More() {
		return fmt.Errorf("%s: bad payload: trailing data: %w", t.Type(), asynq.SkipRetry)
	}
	return nil
}

func decodePost(t *asynq.Task) (int64, error) {
	var p PostPayload
	if err := decode(t, &p); err != nil {
		return 0, err
	}
	if p.PostID <= 0 {
		return 0, fmt.Errorf("%s: bad payload: post_id must be positive: %w", t.Type(), asynq.SkipRetry)
	}
	return p.PostID, nil
}

// ScanMentions ingests the posts that mention the persona.
func (h *Handlers) ScanMentions(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	me, err := h.self(ctx)
	if err != nil {
		return err
	}
	return h.scan(ctx, "mentions", post.SourceMention, func(since string) (platform.Page, error) {
		return h.Platform.Mentions(ctx, me.ID, since)
	})
}

// ScanConversations ingests posts found by the configured search.
func (h *Handlers) ScanConversations(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	// The cursor belongs to the query: a new SEARCH_QUERY starts from the newest results.
	return h.scan(ctx, "search:"+h.SearchQuery, post.SourceConversation, func(since string) (platform.Page, error) {
		return h.Platform.Search(ctx, h.SearchQuery, since)
	})
}

// ScanTargeted ingests the recent posts of each targeted account. An account
// the platform does not know is logged and skipped.
func (h *Handlers) ScanTargeted(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	var errs []error
	for _, username := range h.Targets {
		userID, err := h.Store.TargetUserID(ctx, h.Platform.Name(), username)
		if err != nil {
			return err
		}
		if userID == "" {
			u, err := h.Platform.UserByUsername(ctx, username)
			if err != nil {
				if !platform.Temporary(err) {
					h.Log.WarnContext(ctx, "targeted account skipped", "username", username, "error", err)
					continue
				}
				errs = append(errs, err)
				continue
			}
			if err := h.Store.PutTarget(ctx, h.Platform.Name(), username, u.ID); err != nil {
				return err
			}
			userID = u.ID
		}
		err = h.scan(ctx, "targeted:"+username, post.SourceTargeted, func(since string) (platform.Page, error) {
			return h.Platform.UserPosts(ctx, userID, since)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// scan reads one timeline from its cursor, records every new post and asks
// for its draft, then moves the cursor. A crash before the cursor moves only
// means the next scan reads the same posts again, which changes nothing.
func (h *Handlers) scan(ctx context.Context, cursor string, source post.Source, read func(since string) (platform.Page, error)) error {
	name := h.Platform.Name()
	since, err := h.Store.Cursor(ctx, name, cursor)
	if err != nil {
		return err
	}
	page, err := read(since)
	if err != nil {
		return fmt.Errorf("scan %s: %w", cursor, err)
	}
	me, err := h.self(ctx)
	if err != nil {
		return err
	}
	fresh := 0
	for _, p := range page.Posts {
		if p.Author.ID == me.ID {
			continue
		}
		id, created, err := h.Store.UpsertFound(ctx, post.Post{
			Platform: name, Source: source, OriginalPostID: p.ID, ConversationID: p.ConversationID,
			OriginalPostText: post.StorableText(p.Text), OriginalPostUser: post.StorableText(p.Author.Name),
			AuthorUsername: post.StorableText(p.Author.Username), AuthorProfileImage: post.StorableText(p.Author.ProfileImage),
			MediaURL: post.StorableText(p.MediaURL), CreatedAt: p.CreatedAt,
			Likes: p.Metrics.Likes, Retweets: p.Metrics.Retweets, Replies: p.Metrics.Replies,
		})
		if err != nil {
			return err
		}
		if created {
			fresh++
			if err := h.Queue.EnqueueDraft(ctx, id); err != nil {
				return err
			}
		}
	}
	if page.NewestID != "" && page.NewestID != since {
		if err := h.Store.SetCursor(ctx, name, cursor, page.NewestID); err != nil {
			return err
		}
	}
	h.Log.InfoContext(ctx, "scanned", "timeline", cursor, "read", len(page.Posts), "new", fresh)
	return nil
}

// maxUnreviewedProfiles is how many profile drafts may wait for review
// before scheduled generation pauses, so they never pile up unread.
const maxUnreviewedProfiles = 3

// GenerateProfile makes a new profile post and asks for its draft, unless
// enough profile drafts already wait for the administrator.
func (h *Handlers) GenerateProfile(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	_, waiting, err := h.Store.ListPending(ctx, post.SourceProfile, post.SortDate, 1, 1)
	if err != nil {
		return err
	}
	if waiting >= maxUnreviewedProfiles {
		h.Log.InfoContext(ctx, "profile post skipped: drafts await review", "waiting", waiting)
		return nil
	}
	id, err := h.Store.CreateProfileDraft(ctx, h.Platform.Name(), h.Persona)
	if err != nil {
		return err
	}
	return h.Queue.EnqueueDraft(ctx, id)
}

// lastAttempt reports whether asynq will not retry the running task again.
func lastAttempt(ctx context.Context) bool {
	n, ok1 := asynq.GetRetryCount(ctx)
	max, ok2 := asynq.GetMaxRetry(ctx)
	return ok1 && ok2 && n >= max
}

// DraftPost writes the response of a post in drafting and makes it pending.
// A refusal, or a writer still failing at the last attempt, leaves the post
// failed with the reason, visible to the administrator.
func (h *Handlers) DraftPost(ctx context.Context, t *asynq.Task) error {
	id, err := decodePost(t)
	if err != nil {
		return err
	}
	p, err := h.Store.Post(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("draft %d: %w: %w", id, err, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if p.Status != post.StatusDrafting {
		return nil
	}
	req := writer.Request{Kind: writer.KindReply, Persona: h.Persona, PostText: p.OriginalPostText, Author: p.AuthorUsername}
	if p.IsProfile() {
		req = writer.Request{Kind: writer.KindProfile, Persona: h.Persona}
	}
	d, err := writer.Compose(ctx, h.Writer, req)
	if err != nil {
		if errors.Is(err, writer.ErrRefused) || lastAttempt(ctx) {
			if ferr := h.Store.FailDraft(ctx, id, err.Error()); ferr != nil && !errors.Is(ferr, store.ErrConflict) {
				return ferr
			}
			h.Log.WarnContext(ctx, "draft failed", "post_id", id, "error", err)
			return nil
		}
		return err
	}
	err = h.Store.SaveDraft(ctx, id, store.Draft{
		Response: post.StorableText(d.Text), Category: d.Category,
		Temperature: d.Temperature, PresencePenalty: d.PresencePenalty, FrequencyPenalty: d.FrequencyPenalty,
	})
	if errors.Is(err, store.ErrConflict) {
		// Another delivery of the task got there first.
		return nil
	}
	return err
}

// SendPost posts an approved response, at most once. The row is marked
// before the platform call; a later attempt that finds the mark first asks
// the platform whether the reply already exists.
func (h *Handlers) SendPost(ctx context.Context, t *asynq.Task) error {
	id, err := decodePost(t)
	if err != nil {
		return err
	}
	p, started, err := h.Store.BeginSend(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("send %d: %w: %w", id, err, asynq.SkipRetry)
	case errors.Is(err, store.ErrConflict):
		// Already posted, failed or never approved: nothing to send.
		h.Log.InfoContext(ctx, "send skipped", "post_id", id, "reason", err)
		return nil
	case err != nil:
		return err
	}
	inReplyTo := p.OriginalPostID
	if p.IsProfile() {
		inReplyTo = ""
	}
	if started != nil {
		me, err := h.self(ctx)
		if err != nil {
			return err
		}
		prior, found, err := h.Platform.FindPublished(ctx, me.ID, inReplyTo, p.ProposedResponse)
		if err != nil {
			return h.sendFailed(ctx, id, err)
		}
		if found {
			h.Log.InfoContext(ctx, "reply found already posted", "post_id", id, "response_id", prior.ID)
			return h.Store.MarkPosted(ctx, id, prior.ID, orNow(prior.CreatedAt, h.Now()))
		}
	}
	sent, err := h.Platform.Publish(ctx, p.ProposedResponse, inReplyTo)
	if err != nil {
		return h.sendFailed(ctx, id, err)
	}
	if err := h.Store.MarkPosted(ctx, id, sent.ID, orNow(sent.CreatedAt, h.Now())); err != nil {
		return err
	}
	h.Log.InfoContext(ctx, "posted", "post_id", id, "response_id", sent.ID)
	return nil
}

// sendFailed decides what a platform error means for post id: a lasting
// refusal fails the row at once with the platform's words; anything else is
// retried, and fails the row only when no retry is left.
func (h *Handlers) sendFailed(ctx context.Context, id int64, err error) error {
	if !platform.Temporary(err) || lastAttempt(ctx) {
		if ferr := h.Store.FailSend(ctx, id, err.Error()); ferr != nil {
			return ferr
		}
		h.Log.WarnContext(ctx, "send failed", "post_id", id, "error", err)
		return nil
	}
	if nerr := h.Store.NoteError(ctx, id, err.Error()); nerr != nil {
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

// RetryDelay waits out a rate limit until the platform says it lifts,
// resumes at once the task of a worker that died, and otherwise backs off as
// asynq does by default.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	if errors.Is(err, asynq.ErrLeaseExpired) {
		// Not the task's fault; a send must not wait minutes more after a crash.
		return time.Second
	}
	if at, ok := platform.RateLimited(err); ok && !at.IsZero() {
		if d := time.Until(at) + time.Second; d > 0 {
			return d
		}
		return time.Second
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// metricsWindow is how far back the persona's posts have their counters refreshed.
const metricsWindow = 7 * 24 * time.Hour

// RefreshMetrics updates the public counters of the persona's recent posts
// and records the engagement of the last 24 hours.
func (h *Handlers) RefreshMetrics(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	now := h.Now()
	rows, err := h.Store.PostedSince(ctx, h.Platform.Name(), now.Add(-metricsWindow))
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(rows))
	for rid := range rows {
		ids = append(ids, rid)
	}
	if len(ids) > 0 {
		metrics, err := h.Platform.Metrics(ctx, ids)
		if err != nil {
			return fmt.Errorf("refresh metrics: %w", err)
		}
		update := make(map[int64]store.Metrics, len(metrics))
		for rid, m := range metrics {
			update[rows[rid]] = store.Metrics{Likes: m.Likes, Retweets: m.Retweets, Replies: m.Replies}
		}
		if err := h.Store.SetResponseMetrics(ctx, update); err != nil {
			return err
		}
	}
	e, err := h.Store.ResponseEngagementSince(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	if err := h.Store.RecordEngagement(ctx, e, now); err != nil {
		return err
	}
	// Only the latest snapshot is shown; a month of them is history enough.
	return h.Store.DeleteEngagementBefore(ctx, now.Add(-snapshotKeep))
}

// snapshotKeep is how long engagement snapshots are kept.
const snapshotKeep = 30 * 24 * time.Hour

// Reconcile finds work whose task was lost (Redis flushed or down) and
// queues it again: approved posts not sent, and drafts never written.
func (h *Handlers) Reconcile(ctx context.Context, t *asynq.Task) error {
	if err := decode(t, &ScanPayload{}); err != nil {
		return err
	}
	now := h.Now()
	approved, err := h.Store.IDsInStatus(ctx, post.StatusApproved, now.Add(-30*time.Second), 500)
	if err != nil {
		return err
	}
	drafting, err := h.Store.IDsInStatus(ctx, post.StatusDrafting, now.Add(-2*time.Minute), 500)
	if err != nil {
		return err
	}
	requeued := 0
	for _, id := range approved {
		ok, err := h.Queue.ensureSend(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			requeued++
		}
	}
	for _, id := range drafting {
		ok, err := h.Queue.ensureDraft(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			requeued++
		}
	}
	if requeued > 0 {
		h.Log.WarnContext(ctx, "reconcile queued lost work again", "tasks", requeued)
	}
	return nil
}
