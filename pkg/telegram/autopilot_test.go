package telegram_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/telegram"
)

// autoApprove approves post id as the autopilot does, with grace.
func (e *env) autoApprove(id int64, grace time.Duration) {
	e.t.Helper()
	if _, err := decision.New(e.store, e.queue, "devil", nil).Approve(context.Background(), id, decision.Approval{By: post.ByAutopilot,
		Auto: &store.Auto{Grace: grace, MaxPerHour: 100}}); err != nil {
		e.t.Fatal(err)
	}
}

// An auto-approval in its grace window reaches Telegram as a card saying
// "Auto-posting in m:ss" with Cancel alone, whether it was approved before
// its card went out or after; Cancel puts the draft back to review with a
// fresh card, and a Cancel once the send started is answered so.
func TestAutoApprovalCardCancels(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)

	// Approved before any card went out.
	a := e.pending("first words", 5)
	e.autoApprove(a, 102*time.Second)
	e.relay()
	card := e.cardOf(a)
	if !strings.HasSuffix(card.Text, "Auto-posting in 1:42") || len(card.Buttons) != 1 || len(card.Buttons[0]) != 1 || card.Buttons[0][0].Text != "Cancel" {
		t.Fatalf("card = %q %+v, want Auto-posting in 1:42 with Cancel", card.Text, card.Buttons)
	}
	e.sync()
	if m := e.messageByID(card.ID); m.Text != card.Text {
		t.Errorf("sync changed the auto-posting card to %q", m.Text)
	}
	e.tg.Press(admin, card.ID, button(card, "Cancel"))
	e.apply()
	if p := e.post(a); p.Status != post.StatusPending || p.SendAfter != nil {
		t.Fatalf("after Cancel the post is %s (send_after %v), want pending", p.Status, p.SendAfter)
	}
	if m := e.messageByID(card.ID); len(m.Buttons) != 0 || !strings.HasSuffix(m.Text, telegram.TextCancelled) {
		t.Errorf("the cancelled card = %q %+v", m.Text, m.Buttons)
	}
	if fresh := e.cardOf(a); fresh.ID == card.ID || button(fresh, "Approve") == "" {
		t.Errorf("no fresh card with Approve after the cancel: %+v", fresh)
	}

	// Approved after its card went out: the card turns into the countdown.
	b := e.pending("second words", 5)
	e.relay()
	e.autoApprove(b, 2*time.Minute)
	e.sync()
	card = e.cardOf(b)
	if !strings.HasSuffix(card.Text, "Auto-posting in 2:00") || button(card, "Cancel") == "" || button(card, "Approve") != "" {
		t.Fatalf("synced card = %q %+v", card.Text, card.Buttons)
	}
	// The send starts: Cancel is too late.
	if _, err := e.store.Pool().Exec(context.Background(), `UPDATE posts SET send_started_at = now() WHERE id = $1`, b); err != nil {
		t.Fatal(err)
	}
	answers := len(e.tg.Answers())
	e.tg.Press(admin, card.ID, button(card, "Cancel"))
	e.apply()
	// apply reads every update again: the last answer is the late press's.
	if got := e.tg.Answers(); len(got) <= answers || got[len(got)-1].Text != telegram.TextSendStarted {
		t.Errorf("a late Cancel was answered %+v, want %q", got[answers:], telegram.TextSendStarted)
	}
	if p := e.post(b); p.Status != post.StatusApproved {
		t.Errorf("a late Cancel moved the post to %s", p.Status)
	}
}
