package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// Maintainer keeps the records up to date: it refreshes engagement and
// queues again the work whose task was lost.
type Maintainer struct {
	Store    *store.Store
	Platform platform.Platform
	Queue    *tasks.Client
	Log      *slog.Logger
	Now      func() time.Time
	// Self is the persona's account, on whose timeline hand-posted replies are found.
	Self *Self
}

// handPostedBatch bounds how many posts awaiting hand-posting one refresh
// looks for.
const handPostedBatch = 20

// metricsWindow is how far back the persona's posts have their counters refreshed.
const metricsWindow = 7 * 24 * time.Hour

// snapshotKeep is how long engagement snapshots are kept.
const snapshotKeep = 30 * 24 * time.Hour

// RefreshMetrics updates the public counters of the persona's recent posts
// and records the engagement of the last 24 hours.
func (m *Maintainer) RefreshMetrics(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	now := m.Now()
	pause, err := m.Store.ActivePause(ctx, now)
	if err != nil {
		return err
	}
	if pause != nil {
		m.Log.InfoContext(ctx, "metrics refresh skipped: paused", "reason", pause.Reason)
		return nil
	}
	if err := m.findHandPosted(ctx); err != nil {
		return err
	}
	rows, err := m.Store.PostedSince(ctx, m.Platform.Name(), now.Add(-metricsWindow))
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(rows))
	for rid := range rows {
		ids = append(ids, rid)
	}
	if len(ids) > 0 {
		metrics, err := m.Platform.Metrics(ctx, ids)
		if err != nil {
			return fmt.Errorf("refresh metrics: %w", err)
		}
		update := make(map[int64]store.Metrics, len(metrics))
		for rid, pm := range metrics {
			update[rows[rid]] = store.Metrics{Likes: pm.Likes, Retweets: pm.Retweets, Replies: pm.Replies}
		}
		if err := m.Store.SetResponseMetrics(ctx, update); err != nil {
			return err
		}
	}
	e, err := m.Store.ResponseEngagementSince(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	if err := m.Store.RecordEngagement(ctx, e, now); err != nil {
		return err
	}
	// Only the latest snapshot is shown; a month of them is history enough.
	return m.Store.DeleteEngagementBefore(ctx, now.Add(-snapshotKeep))
}

// findHandPosted looks on the persona's own timeline (an owned read, the
// cheapest) for the replies the administrator posted by hand, and marks
// their posts posted with the real reply id, so statistics and the public
// logs stay true.
func (m *Maintainer) findHandPosted(ctx context.Context) error {
	awaiting, err := m.Store.AwaitingManual(ctx, m.Platform.Name(), handPostedBatch)
	if err != nil || len(awaiting) == 0 {
		return err
	}
	me, err := m.Self.User(ctx)
	if err != nil {
		return err
	}
	for _, p := range awaiting {
		reply, found, err := m.Platform.FindPublished(ctx, me.ID, p.OriginalPostID, p.ProposedResponse)
		if err != nil {
			return fmt.Errorf("find hand-posted reply of %d: %w", p.ID, err)
		}
		if !found {
			continue
		}
		_, err = m.Store.MarkManualPosted(ctx, p.ID, reply.ID, orNow(reply.CreatedAt, m.Now()))
		if err != nil && !errors.Is(err, store.ErrConflict) {
			return err
		}
		m.Log.InfoContext(ctx, "hand-posted reply found", "post_id", p.ID, "response_id", reply.ID)
	}
	return nil
}

// Reconcile finds work whose task was lost (Redis flushed or down) and
// queues it again: approved posts not sent, and drafts never written.
func (m *Maintainer) Reconcile(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	now := m.Now()
	approved, err := m.Store.IDsInStatus(ctx, post.StatusApproved, now.Add(-30*time.Second), 500)
	if err != nil {
		return err
	}
	drafting, err := m.Store.IDsInStatus(ctx, post.StatusDrafting, now.Add(-2*time.Minute), 500)
	if err != nil {
		return err
	}
	requeued := 0
	for _, id := range approved {
		ok, err := m.Queue.EnsureSend(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			requeued++
		}
	}
	for _, id := range drafting {
		ok, err := m.Queue.EnsureDraft(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			requeued++
		}
	}
	if requeued > 0 {
		m.Log.WarnContext(ctx, "reconcile queued lost work again", "tasks", requeued)
	}
	return nil
}
