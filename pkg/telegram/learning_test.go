package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"infernal/pkg/learning"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/telegram"
)

// After Reject, the quick reasons follow, each a button of at most 64
// bytes; a press keeps the reason with the post's case and shows it;
// answering is optional; a forged reason number is refused.
func TestRejectReasonButtons(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("drafted words", 4)
	e.relay()
	c := e.cardOf(id)
	e.tg.Press(admin, c.ID, button(c, "Reject"))
	e.apply()
	if p := e.post(id); p.Status != post.StatusRejected {
		t.Fatalf("post is %s, want rejected", p.Status)
	}
	prompt := e.lastMessage()
	var texts []string
	for _, row := range prompt.Buttons {
		for _, b := range row {
			texts = append(texts, b.Text)
			if len(b.Data) > 64 {
				t.Errorf("callback data %q is over 64 bytes", b.Data)
			}
		}
	}
	if got := strings.Join(texts, ","); got != strings.Join(learning.QuickReasons, ",") || !strings.Contains(prompt.Text, fmt.Sprintf("#%d", id)) {
		t.Fatalf("reason prompt %q with %s", prompt.Text, got)
	}
	e.tg.Press(admin, prompt.ID, fmt.Sprintf("y:%d:9", id))
	e.apply()
	if a := e.lastAnswer(); a == telegram.TextReasonNoted {
		t.Fatal("a forged reason number was noted")
	}
	e.tg.Press(admin, prompt.ID, button(prompt, "Wrong tone"))
	e.apply()
	if a := e.lastAnswer(); a != telegram.TextReasonNoted {
		t.Fatalf("answer %q, want %q", a, telegram.TextReasonNoted)
	}
	if m := e.messageByID(prompt.ID); len(m.Buttons) != 0 || !strings.HasSuffix(m.Text, "Wrong tone") {
		t.Fatalf("answered prompt %+v", m)
	}
	cases, _, err := e.store.Cases(context.Background(), "", 1)
	if err != nil || len(cases) != 1 || cases[0].Reason != "Wrong tone" || cases[0].By != "telegram" {
		t.Fatalf("cases = %+v, %v", cases, err)
	}
}

// A card shaped by past replies and lessons says so in one line.
func TestCardShapedBy(t *testing.T) {
	t.Parallel()
	if got := telegram.ShapedBy(3, 2); got != "Shaped by 3 past replies · 2 lessons" {
		t.Fatalf("ShapedBy = %q", got)
	}
	if got := telegram.ShapedBy(1, 0); got != "Shaped by 1 past reply · 0 lessons" {
		t.Fatalf("ShapedBy = %q", got)
	}
	if telegram.ShapedBy(0, 0) != "" {
		t.Fatal("an unshaped card has the line")
	}
	e := setup(t, 10)
	ctx := context.Background()
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "s1",
		ConversationID: "cs1", OriginalPostText: "@devil shaped?", AuthorUsername: "mortal", CreatedAt: e.since})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "shaped words", Category: "wrath",
		Learned: post.LearnedFrom{Cases: []int64{7, 8}, Lessons: []int64{9}}}); err != nil {
		t.Fatal(err)
	}
	e.relay()
	if c := e.cardOf(id); !strings.Contains(c.Text, "Shaped by 2 past replies · 1 lesson") {
		t.Fatalf("card %q", c.Text)
	}
}
