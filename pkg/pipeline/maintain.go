package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/learning/shaper"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/spend"
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
	// HandPostedEvery is the least time between two looks for hand-posted
	// replies, across every worker; DefaultHandPostedEvery when zero.
	HandPostedEvery time.Duration
	// Budget stops the metrics reads at an X spending ceiling; nil for none.
	Budget *spend.Gate
	// SkipInsights leaves the insights to another platform's Maintainer:
	// they are the persona's, computed once for all platforms.
	SkipInsights bool
	// Learning distils, at each reconcile, the lessons of the decisions
	// made since (a draft distils them too); nil distils none.
	Learning *shaper.Shaper
}

// DefaultHandPostedEvery is the least time between two looks for
// hand-posted replies (config HAND_POSTED_INTERVAL): each look reads the
// persona's timeline, in the rate-limit window the targeted scans share.
const DefaultHandPostedEvery = 5 * time.Minute

// handPostedBatch bounds how many posts awaiting hand-posting one look
// matches.
const handPostedBatch = 20

// metricsWindow is how far back the persona's posts have their counters refreshed.
const metricsWindow = 7 * 24 * time.Hour

// snapshotKeep is how long engagement snapshots are kept.
const snapshotKeep = 30 * 24 * time.Hour

// insightsWanted is how long after the admin last asked for a range of
// insights the worker keeps computing it.
const insightsWanted = 24 * time.Hour

// contextKeep is how long a post read as a draft's context is kept: a
// follow-up in the conversation within that time reads it from the
// database, a later one from the platform again.
const contextKeep = 30 * 24 * time.Hour

// RefreshMetrics updates the public counters of the persona's recent posts
// and records the engagement of the last 24 hours.
func (m *Maintainer) RefreshMetrics(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	now := m.Now()
	if !m.SkipInsights {
		// The insights need nothing of X: they are computed again even when its reads wait.
		if n, err := m.Store.RefreshInsightsCache(ctx, now.Add(-insightsWanted), now); err != nil {
			m.Log.WarnContext(ctx, "insights not computed again; the admin computes them when asked", "error", err)
		} else if n > 0 {
			m.Log.DebugContext(ctx, "insights computed again", "ranges", n)
		}
	}
	pause, err := m.Store.ActivePause(ctx, m.Platform.Name(), now)
	if err != nil {
		return err
	}
	if pause != nil {
		m.Log.InfoContext(ctx, "metrics refresh skipped: paused", "reason", pause.Reason)
		// The insights show the time without metrics as a gap, not as zeros.
		return m.Store.OpenMetricGap(ctx, m.Platform.Name(), "paused: "+pause.Reason, now)
	}
	why, err := m.Budget.ScanBlocked(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		m.Log.InfoContext(ctx, "metrics refresh skipped: budget", "reason", why)
		return m.Store.OpenMetricGap(ctx, m.Platform.Name(), "budget: "+why, now)
	}
	if err := m.findHandPosted(ctx); err != nil {
		// The hand-posted replies wait for the next look; the metrics do not wait for them.
		m.Log.WarnContext(ctx, "hand-posted replies not looked for", "error", err)
	}
	rows, err := m.Store.PostedSince(ctx, m.Platform.Name(), now.Add(-metricsWindow))
	if err != nil {
		return err
	}
	// The replies just past the window are read once more, for their week's snapshot.
	due, err := m.Store.SnapshotsDue(ctx, m.Platform.Name(), now)
	if err != nil {
		return err
	}
	maps.Copy(rows, due)
	ids := make([]string, 0, len(rows))
	for rid := range rows {
		ids = append(ids, rid)
	}
	if len(ids) > 0 {
		metrics, err := m.Platform.Metrics(ctx, ids)
		if err != nil {
			return m.metricsFailed(ctx, now, err)
		}
		update := make(map[int64]store.Metrics, len(metrics))
		for rid, pm := range metrics {
			update[rows[rid]] = store.Metrics{Likes: pm.Likes, Retweets: pm.Retweets, Replies: pm.Replies}
		}
		if err := m.Store.SetResponseMetrics(ctx, update); err != nil {
			return err
		}
		if _, err := m.Store.TakeSnapshots(ctx, update, now); err != nil {
			return err
		}
	}
	if err := m.Store.CloseMetricGap(ctx, m.Platform.Name(), now); err != nil {
		return err
	}
	e, err := m.Store.ResponseEngagementSince(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	if err := m.Store.RecordEngagement(ctx, e, now); err != nil {
		return err
	}
	// Only the latest snapshot is shown; a month of them is history enough.
	if err := m.Store.DeleteEngagementBefore(ctx, now.Add(-snapshotKeep)); err != nil {
		return err
	}
	// Context posts older than that serve no draft still under review.
	if _, err = m.Store.PruneContextPosts(ctx, now.Add(-contextKeep)); err != nil {
		return err
	}
	_, err = m.Store.PruneLedger(ctx, now.Add(-store.LedgerKeep))
	return err
}

// metricsFailed opens a metrics gap for a read the platform refused, and
// says what the refresh does: a closed rate-limit window waits for the next
// run; anything else fails the task, as before.
func (m *Maintainer) metricsFailed(ctx context.Context, now time.Time, err error) error {
	reason := "read failed"
	if _, ok := platform.RateLimited(err); ok {
		reason = "rate limit"
	} else if r := platform.Classify(err); r.AccountWide() {
		reason = r.Reason()
	}
	if gerr := m.Store.OpenMetricGap(ctx, m.Platform.Name(), reason, now); gerr != nil {
		return errors.Join(fmt.Errorf("refresh metrics: %w", err), gerr)
	}
	if reason == "rate limit" {
		m.Log.InfoContext(ctx, "metrics refresh skipped: rate-limit window closed", "error", err)
		return nil
	}
	return fmt.Errorf("refresh metrics: %w", err)
}

// findHandPosted looks on the persona's own timeline (an owned read, the
// cheapest) for the replies the administrator posted by hand, and marks
// their posts posted with the real reply id and text, so statistics and the
// public logs stay true. It looks at most once every HandPostedEvery across
// every worker, and then with one read: the persona's posts newer than the
// oldest post awaiting an answer, matched against every awaiting post.
func (m *Maintainer) findHandPosted(ctx context.Context) error {
	awaiting, err := m.Store.AwaitingManual(ctx, m.Platform.Name(), handPostedBatch)
	if err != nil || len(awaiting) == 0 {
		return err
	}
	every := m.HandPostedEvery
	if every <= 0 {
		every = DefaultHandPostedEvery
	}
	due, err := m.Queue.Due(ctx, "hand-posted:"+m.Platform.Name(), every)
	if err != nil || !due {
		return err
	}
	me, err := m.Self.User(ctx)
	if err != nil {
		return fmt.Errorf("find hand-posted replies: %w", err)
	}
	byOriginal := make(map[string]post.Post, len(awaiting))
	oldest := ""
	for _, p := range awaiting {
		byOriginal[p.OriginalPostID] = p
		if oldest == "" || olderID(p.OriginalPostID, oldest) {
			oldest = p.OriginalPostID
		}
	}
	// A reply is newer than the post it answers: nothing older is read.
	page, err := m.Platform.UserPosts(ctx, me.ID, platform.Range{SinceID: oldest})
	if err != nil {
		return fmt.Errorf("find hand-posted replies: %w", err)
	}
	if page.More {
		m.Log.WarnContext(ctx, "hand-posted replies: the persona posted more than one read holds; the oldest are looked for again next time",
			"since_id", oldest, "oldest_read", page.OldestID)
	}
	// Newest first: the oldest reply to a post, the first posted, is kept.
	found := make(map[int64]platform.Post, len(awaiting))
	for _, reply := range page.Posts {
		if p, ok := byOriginal[reply.InReplyToID]; ok && reply.InReplyToID != "" {
			found[p.ID] = reply
		}
	}
	for id, reply := range found {
		_, err := m.Store.MarkHandPostedFound(ctx, id, reply.ID, reply.Text, orNow(reply.CreatedAt, m.Now()))
		if errors.Is(err, store.ErrConflict) {
			// Marked posted or given up by the administrator meanwhile.
			continue
		}
		if err != nil {
			return fmt.Errorf("find hand-posted replies: %w", err)
		}
		m.Log.InfoContext(ctx, "hand-posted reply found", "post_id", id, "response_id", reply.ID)
	}
	return nil
}

// olderID reports whether post id a is older than b: numerically for
// decimal ids (X's and the sandbox's), as strings otherwise.
func olderID(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) && isDecimal(a) && isDecimal(b) {
		return len(a) < len(b)
	}
	return a < b
}

// isDecimal reports whether s holds only the digits 0 to 9.
func isDecimal(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// Reconcile finds work whose task was lost (Redis flushed or down) and
// queues it again: approved posts not sent, and drafts never written.
func (m *Maintainer) Reconcile(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	now := m.Now()
	approved, err := m.Store.IDsInStatus(ctx, post.StatusApproved, now.Add(-30*time.Second), 500)
	if err != nil {
		return err
	}
	drafting, err := m.Store.RefsInStatus(ctx, post.StatusDrafting, now.Add(-2*time.Minute), 500)
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
	for _, ref := range drafting {
		ok, err := m.Queue.EnsureDraft(ctx, ref.ID, ref.Platform)
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
	if m.Learning != nil {
		// A lesson shows in the admin within a minute of its decision, drafts or not;
		// a failing distiller is tried again at the next reconcile.
		if n, err := m.Learning.Distil(ctx); err != nil {
			m.Log.WarnContext(ctx, "lessons not distilled yet", "error", err)
		} else if n > 0 {
			m.Log.InfoContext(ctx, "lessons distilled", "lessons", n)
		}
	}
	return nil
}
