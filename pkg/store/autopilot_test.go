package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

func allowAll(store.SendQueue) error { return nil }

// Two workers auto-approving a burst from a trusted author at once take
// max_per_hour approvals, no more; a cancelled one still counts.
func TestAutoApproveMaxPerHourUnderABurst(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	const burst, most = 12, 3
	ids := make([]int64, burst)
	for i := range ids {
		ids[i] = pending(t, s, fmt.Sprint(i), post.SourceMention, fmt.Sprintf("reply %d", i))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	approved, declined := 0, 0
	for worker := range 2 {
		wg.Go(func() {
			for i := worker; i < burst; i += 2 {
				_, err := s.ApproveWith(ctx, ids[i], store.Approval{By: post.ByAutopilot, Auto: &store.Auto{Grace: time.Minute, MaxPerHour: most}})
				mu.Lock()
				switch {
				case err == nil:
					approved++
				case errors.Is(err, store.ErrAutopilotDeclined):
					declined++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if approved != most || declined != burst-most {
		t.Fatalf("%d approved, %d declined; want %d and %d", approved, declined, most, burst-most)
	}
	recent, _, err := s.AutopilotCounts(ctx, ids[0])
	if err != nil || recent != most {
		t.Fatalf("AutopilotCounts = %d, %v; want %d", recent, err, most)
	}

	// Cancel one: the hour stays used up.
	var cancelled int64
	for _, id := range ids {
		if p, err := s.Post(ctx, id); err == nil && p.Status == post.StatusApproved {
			cancelled = id
			break
		}
	}
	if _, err := s.CancelAutoApproval(ctx, cancelled, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	var left int64
	for _, id := range ids {
		if p, _ := s.Post(ctx, id); p.Status == post.StatusPending && id != cancelled {
			left = id
			break
		}
	}
	if _, err := s.ApproveWith(ctx, left, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{MaxPerHour: most}}); !errors.Is(err, store.ErrAutopilotDeclined) {
		t.Errorf("an approval after a cancel in a used-up hour: %v, want ErrAutopilotDeclined", err)
	}
}

// The send of an auto-approved post does not start before its send_after,
// on either path of BeginSendWithin (room under the caps, or the queue
// asked), and starts once it has passed.
func TestBeginSendWaitsForSendAfter(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "later")
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{Grace: time.Hour, MaxPerHour: 5}}); err != nil {
		t.Fatal(err)
	}
	for _, caps := range []guard.SendCaps{
		{PerWindow: 100, Window: 3 * time.Hour, PerDay: 1000}, // room: the one-statement path
		{PerWindow: 0, Window: 3 * time.Hour, PerDay: 0},      // no room: the queue is asked
	} {
		_, _, err := s.BeginSendWithin(ctx, id, caps, allowAll)
		var early *store.SendEarlyError
		if !errors.As(err, &early) || early.Until.Before(time.Now().Add(50*time.Minute)) {
			t.Errorf("caps %+v: BeginSendWithin = %v, want a SendEarlyError an hour ahead", caps, err)
		}
	}
	if p, _ := s.Post(ctx, id); p.SendStartedAt != nil || p.Status != post.StatusApproved {
		t.Fatalf("an early send marked the post: %+v", p)
	}
	if _, _, err := s.BeginSend(ctx, id); err == nil {
		t.Error("BeginSend started the send before send_after")
	}

	now := pending(t, s, "2", post.SourceMention, "now")
	if _, err := s.ApproveWith(ctx, now, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{Grace: 0, MaxPerHour: 5}}); err != nil {
		t.Fatal(err)
	}
	if _, started, err := s.BeginSendWithin(ctx, now, guard.SendCaps{PerWindow: 100, Window: 3 * time.Hour, PerDay: 1000}, allowAll); err != nil || started != nil {
		t.Errorf("a send past send_after: %v, %v; want it started", started, err)
	}
}

// A cancel racing the send ends one way only: either the post is pending
// again and no send started, or the send started and the cancel is a
// SendStartedError. Never both, never neither.
func TestCancelRacingTheSend(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	caps := guard.SendCaps{PerWindow: 1000, Window: 3 * time.Hour, PerDay: 1000}
	cancels, sends := 0, 0
	for i := range 20 {
		id := pending(t, s, fmt.Sprint("race", i), post.SourceMention, fmt.Sprint("race ", i))
		if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{MaxPerHour: 100}}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var cancelErr, sendErr error
		wg.Go(func() { _, cancelErr = s.CancelAutoApproval(ctx, id, post.ByWeb) })
		wg.Go(func() { _, _, sendErr = s.BeginSendWithin(ctx, id, caps, allowAll) })
		wg.Wait()
		p, err := s.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var started *store.SendStartedError
		switch {
		case cancelErr == nil && errors.Is(sendErr, store.ErrConflict) && p.Status == post.StatusPending && p.SendStartedAt == nil:
			cancels++
		case errors.As(cancelErr, &started) && sendErr == nil && p.Status == post.StatusApproved && p.SendStartedAt != nil:
			sends++
		default:
			t.Fatalf("race %d: cancel %v, send %v, post %s started %v", i, cancelErr, sendErr, p.Status, p.SendStartedAt)
		}
	}
	t.Logf("%d cancels won, %d sends won", cancels, sends)
}

// A draft the administrator edited, or decided on, is a human decision:
// the autopilot never approves it.
func TestAutoApproveNeverTakesAHumanDraft(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	edited := pending(t, s, "1", post.SourceMention, "writer's words")
	if _, err := s.SaveEdit(ctx, edited, "the administrator's words", nil, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	regenerated := pending(t, s, "2", post.SourceMention, "first words")
	if err := s.RecordDecision(ctx, regenerated, post.ActionRegenerate, post.ByTelegram, 1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{edited, regenerated} {
		_, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{MaxPerHour: 100}})
		if !errors.Is(err, store.ErrAutopilotDeclined) {
			t.Errorf("post %d: %v, want ErrAutopilotDeclined", id, err)
		}
		if _, human, err := s.AutopilotCounts(ctx, id); err != nil || !human {
			t.Errorf("post %d: AutopilotCounts human = %v, %v; want true", id, human, err)
		}
		if p, _ := s.Post(ctx, id); p.Status != post.StatusPending {
			t.Errorf("post %d is %s, want pending", id, p.Status)
		}
	}
	// An edit in the grace window withdraws the auto-approval, recorded as a cancel then the edit.
	auto := pending(t, s, "3", post.SourceMention, "sure words")
	if _, err := s.ApproveWith(ctx, auto, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{Grace: time.Minute, MaxPerHour: 100}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.SaveEdit(ctx, auto, "other words", nil, nil, post.ByWeb)
	if err != nil || p.Status != post.StatusPending || p.SendAfter != nil || p.ProposedResponse != "other words" {
		t.Fatalf("edit in the window: %+v, %v; want pending with the new text", p, err)
	}
	ds, err := s.Decisions(ctx, auto)
	if err != nil || len(ds) != 3 || ds[1].Action != post.ActionCancel || ds[2].Action != post.ActionEdit {
		t.Errorf("decisions = %+v, %v; want approve, cancel, edit", ds, err)
	}
}
