package telegram

import (
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
)

func TestParseData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data    string
		act     string
		id      int64
		version int
		ok      bool
	}{
		{data: "a:12:3", act: actApprove, id: 12, version: 3, ok: true},
		{data: "r:1:1", act: actReject, id: 1, version: 1, ok: true},
		{data: "g:9223372036854775807:2147483647", act: actRegenerate, id: 9223372036854775807, version: 2147483647, ok: true},
		{data: "e:5:1", act: actEdit, id: 5, version: 1, ok: true},
		{data: ""},
		{data: "a"},
		{data: "a:1"},
		{data: "a:1:1:1"},
		{data: "z:1:1"},
		{data: "a:0:1"},
		{data: "a:-4:1"},
		{data: "a:1:0"},
		{data: "a:1:x"},
		{data: "a:9223372036854775808:1"},
		{data: "a: 1:1"},
	}
	for _, tt := range tests {
		act, id, version, err := parseData(tt.data)
		if (err == nil) != tt.ok || act != tt.act || id != tt.id || version != tt.version {
			t.Errorf("parseData(%q) = %q %d %d %v", tt.data, act, id, version, err)
		}
		if tt.ok && callbackData(act, id, version) != tt.data {
			t.Errorf("callbackData does not give back %q", tt.data)
		}
		if tt.ok && len(tt.data) > 64 {
			t.Errorf("%q is over Telegram's 64 bytes", tt.data)
		}
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	p := func(s post.Status, v int) post.Post { return post.Post{Status: s, DraftVersion: v, Error: "X said no"} }
	tests := []struct {
		name      string
		p         post.Post
		by        post.Channel
		card      int
		want      string
		wantFinal bool
	}{
		{name: "pending at the card's version", p: p(post.StatusPending, 1), card: 1, want: ""},
		{name: "a newer draft", p: p(post.StatusPending, 2), card: 1, want: TextReplaced, wantFinal: true},
		{name: "approved here, sending", p: p(post.StatusApproved, 1), by: post.ByTelegram, card: 1, want: "Approved: sending…"},
		{name: "approved here, posted", p: p(post.StatusPosted, 1), by: post.ByTelegram, card: 1, want: "Approved: posted https://x.com/devil/status/9", wantFinal: true},
		{name: "rejected here", p: p(post.StatusRejected, 1), by: post.ByTelegram, card: 1, want: TextRejected, wantFinal: true},
		{name: "approved in the web", p: p(post.StatusApproved, 1), by: post.ByWeb, card: 1, want: TextDecidedInWeb, wantFinal: true},
		{name: "rejected in bulk", p: p(post.StatusRejected, 1), by: post.ByBulk, card: 1, want: TextDecidedInWeb, wantFinal: true},
		{name: "edited and approved in the web", p: p(post.StatusApproved, 2), by: post.ByWeb, card: 1, want: TextDecidedInWeb, wantFinal: true},
		{name: "send failed", p: p(post.StatusFailed, 1), by: post.ByTelegram, card: 1, want: "Failed: X said no", wantFinal: true},
		{name: "hand-posting", p: p(post.StatusAwaitingManual, 1), by: post.ByTelegram, card: 1, want: "Approved: post it by hand from the web admin", wantFinal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, final := Outcome(tt.p, tt.by, tt.card, "https://x.com/devil/status/9")
			if got != tt.want || final != tt.wantFinal {
				t.Errorf("Outcome = %q %v, want %q %v", got, final, tt.want, tt.wantFinal)
			}
		})
	}
}

func TestCardTexts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ash ", 400)
	c := Card{PostID: 7, Version: 2, Platform: "x", Author: "mortal", Post: long, Thread: []ThreadPost{{Author: "a", Text: long}, {Author: "b", Text: "hi"}},
		Response: "burn", Length: 4, Max: 280, CostUSD: 0.01}
	m := c.Render()
	if n := len([]rune(m.Text)); n > 4096 {
		t.Errorf("a card of %d characters is over Telegram's 4,096", n)
	}
	if !strings.Contains(m.Text, "New draft #7 · X · @mortal") || !strings.Contains(m.Text, "Review: none") || !strings.Contains(m.Text, "↳ @b: hi") {
		t.Errorf("card:\n%s", m.Text)
	}
	if len(m.Buttons) != 2 || m.Buttons[0][0].Data != "a:7:2" {
		t.Errorf("buttons %+v", m.Buttons)
	}
	c.Images, c.LinkTitle = 2, "The pit's hours"
	if m := c.Render(); !strings.Contains(m.Text, "\n📷 2 images · 🔗 The pit's hours\n") {
		t.Errorf("card with two images and a link:\n%s", m.Text)
	}
	c.Images, c.LinkTitle = 1, ""
	if m := c.Render(); !strings.Contains(m.Text, "\n📷 1 image\n") {
		t.Errorf("card with one image:\n%s", m.Text)
	}
	if strings.Contains(c.Render().Text, "Content warning") {
		t.Error("a card without a warning names one")
	}
	c.Platform, c.ContentWarning, c.Max = "mastodon", "film\nending", 489
	if m := c.Render(); !strings.Contains(m.Text, "\nContent warning: film ending\n@mortal: ash") || !strings.Contains(m.Text, "Response (4 / 489):") {
		t.Errorf("card behind a warning:\n%s", m.Text)
	}
	if DigestText(37, 5) != "37 new drafts; the top 5 by review score follow" {
		t.Errorf("digest %q", DigestText(37, 5))
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	oldest := post.Post{ID: 3, AuthorUsername: "m", UpdatedAt: now.Add(-90 * time.Minute)}
	if got := QueueText(4, 2, &oldest, now); got != "4 drafts wait for review (2 mentions). Oldest: #3 by @m, waiting 1h30m0s." {
		t.Errorf("queue %q", got)
	}
}
