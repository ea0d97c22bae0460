package pipeline

import (
	"context"
	"log/slog"
	"time"

	"infernal/pkg/autopilot"
	"infernal/pkg/decision"
	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
)

// Autopilot approves, by the administrator's rules, the drafts that have
// just become pending, each with a grace window (send_after) in which it
// may be cancelled.
type Autopilot struct {
	Store   *store.Store
	Decider *decision.Decider
	Log     *slog.Logger
	Now     func() time.Time
	// Budget stops it at the spend ceiling; nil for none.
	Budget *spend.Gate
	// Prices price the send against the budget.
	Prices spend.Prices
}

// Consider approves post id, a draft just made pending, when it qualifies
// under set's autopilot (autopilot.Qualify), and says why not in the log
// otherwise. A draft it cannot approve stays pending for the administrator:
// its errors are logged, never returned, so the draft task is not retried.
func (a *Autopilot) Consider(ctx context.Context, id int64, set settings.Settings) {
	if a == nil || !set.Autopilot.Enabled {
		return
	}
	detail, version, why, err := a.qualify(ctx, id, set)
	if err != nil {
		a.Log.WarnContext(ctx, "autopilot could not judge the draft: it waits for review", "post_id", id, "error", err)
		return
	}
	if why != "" {
		a.Log.InfoContext(ctx, "autopilot: left for review", "post_id", id, "reason", why)
		return
	}
	p, err := a.Decider.Approve(ctx, id, decision.Approval{
		Shown: &version, By: post.ByAutopilot, Detail: detail,
		Auto: &store.Auto{Grace: time.Duration(set.Autopilot.GraceSeconds) * time.Second, MaxPerHour: set.Autopilot.MaxPerHour},
	})
	if err != nil {
		// The hour used up by another worker, a person quicker, a flag: the draft waits for review.
		a.Log.InfoContext(ctx, "autopilot: left for review", "post_id", id, "reason", err)
		return
	}
	a.Log.InfoContext(ctx, "autopilot: approved", "post_id", id, "send_after", p.SendAfter, "summary", detail["summary"])
}

// qualify gathers the facts about post id and asks autopilot.Qualify; version
// is the draft version it judged.
func (a *Autopilot) qualify(ctx context.Context, id int64, set settings.Settings) (detail map[string]any, version int, why string, err error) {
	p, err := a.Store.Post(ctx, id)
	if err != nil {
		return nil, 0, "", err
	}
	f := autopilot.Facts{Post: p}
	pause, err := a.Store.ActivePause(ctx, p.Platform, a.Now())
	if err != nil {
		return nil, 0, "", err
	}
	f.Paused = pause != nil
	blocked, err := a.Budget.ModelBlocked(ctx)
	if err != nil {
		return nil, 0, "", err
	}
	cost, _ := a.Prices.SendCost(p.ReplyRoute, p.Source == post.SourceMention, p.ProposedResponse)
	fits, err := a.Budget.SendFits(ctx, cost)
	if err != nil {
		return nil, 0, "", err
	}
	f.SpendBlocked = blocked != "" || !fits
	caps := set.Caps.Send()
	q, err := a.Store.SendQueueOf(ctx, id, caps)
	if err != nil {
		return nil, 0, "", err
	}
	_, ok := guard.SendTurn(q.Sent, q.Ahead, q.Now, caps)
	f.CapsFull = !ok
	if f.RecentApprovals, f.HumanDecided, err = a.Store.AutopilotCounts(ctx, id); err != nil {
		return nil, 0, "", err
	}
	detail, why = autopilot.Qualify(set.Autopilot, f)
	return detail, p.DraftVersion, why, nil
}
