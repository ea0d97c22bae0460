package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

// replyAs publishes u's reply to the post inReplyTo and returns its id.
func (f *fakeX) replyAs(u xUser, text, inReplyTo string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.FormatInt(f.add(u.ID, text, inReplyTo).id, 10)
}

// guardView is a post of the admin lists with what the guards add.
type guardView struct {
	ID             int64    `json:"id"`
	Status         string   `json:"status"`
	OriginalPostID string   `json:"original_post_id"`
	Reason         string   `json:"reason"`
	Flags          []string `json:"flags"`
}

// skipped returns the Skipped view's posts by original post id.
func (s *liveSystem) skipped() map[string]guardView {
	s.t.Helper()
	status, body := s.do("GET", "/api/posts/skipped?sortBy=date", "")
	if status != http.StatusOK {
		s.t.Fatalf("skipped: %d %s", status, body)
	}
	var out struct{ Posts []guardView }
	if err := json.Unmarshal(body, &out); err != nil {
		s.t.Fatal(err)
	}
	m := map[string]guardView{}
	for _, p := range out.Posts {
		m[p.OriginalPostID] = p
	}
	return m
}

// waitSkipped waits until the post answering originalID is in the Skipped
// view, asking for a mentions scan every half second meanwhile.
func (s *liveSystem) waitSkipped(originalID string) guardView {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	nextScan := time.Now()
	for time.Now().Before(deadline) {
		if v, ok := s.skipped()[originalID]; ok {
			return v
		}
		if time.Now().After(nextScan) {
			s.enqueue(tasks.TypeScanMentions)
			nextScan = time.Now().Add(500 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("post %s never skipped; skipped: %+v", originalID, s.skipped())
	return guardView{}
}

// Against the X stand-in and the model stand-in (which fails the test when
// asked about a post it does not know, so no skipped post may reach it):
// two bots talking end at the conversation cap, an opt-out blocks its
// author for good, a look-alike blocked phrase is caught, the Skipped view
// shows each reason and "draft anyway" drafts one; a flagged draft is sent
// only with an override.
func TestLiveGuards(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	ctx := context.Background()
	set, err := s.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.BlockedPhrases = []string{"scam coin"}
	if set, err = set.Normalize(); err != nil {
		t.Fatal(err)
	}
	if err := s.store.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	bot, quiet, shill := s.x.addUser("otherbot", "Other Bot"), s.x.addUser("quietone", "Quiet One"), s.x.addUser("shill", "Shill")

	// The other bot summons the persona; the persona answers once.
	first := "@" + persona + " hello fellow bot, what is your favourite sin?"
	answer := "Sloth, obviously: it files itself. 😈"
	s.llm.reply(first, answer)
	firstID := s.x.postAs(bot, first)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)
	v := s.waitListed("/api/posts/mentions", firstID, post.StatusPending, "")
	s.approve(v.ID, "")
	s.waitPostStatus(v.ID, post.StatusPosted)
	sent := s.x.publishesTo(firstID)
	if len(sent) != 1 {
		t.Fatalf("persona replies to the bot: %+v", sent)
	}
	// The bot answers the persona's reply, and again: the conversation is capped.
	loop1 := s.x.replyAs(bot, "@"+persona+" fascinating, tell me more about sloth", sent[0].ID)
	if r := s.waitSkipped(loop1); r.Reason != "cap: conversation (1 of 1)" {
		t.Errorf("the bot's answer: %+v, want the conversation cap", r)
	}
	loop2 := s.x.replyAs(bot, "@"+persona+" are you still there?", loop1)
	if r := s.waitSkipped(loop2); r.Reason != "cap: conversation (1 of 1)" {
		t.Errorf("the bot's second answer: %+v", r)
	}

	// An opt-out blocks its author at once: a later post in another conversation is skipped too.
	stop := s.x.postAs(quiet, "@"+persona+" please stop replying to me")
	if r := s.waitSkipped(stop); r.Reason != `opt-out: "stop replying"` {
		t.Errorf("opt-out: %+v", r)
	}
	later := s.x.postAs(quiet, "@"+persona+" a new thread about mondays")
	if r := s.waitSkipped(later); r.Reason != "blocked author: @quietone" {
		t.Errorf("post after the opt-out: %+v", r)
	}

	// A blocked phrase written with Cyrillic look-alikes, a zero-width joiner and full-width forms.
	shillText := "@" + persona + " buy my ѕсаm\u200d ｃｏｉｎ today"
	shilled := s.x.postAs(shill, shillText)
	r := s.waitSkipped(shilled)
	if r.Reason != `blocked phrase: "scam coin"` {
		t.Errorf("look-alike phrase: %+v", r)
	}

	// Draft anyway: the guard is overridden and the model drafts it, with a link it is flagged for.
	s.llm.reply(shillText, "Your coin is cursed; read https://example.com/hell before you buy.")
	if status, body := s.do("POST", "/api/posts/"+strconv.FormatInt(r.ID, 10)+"/draft-anyway", "{}"); status != http.StatusOK {
		t.Fatalf("draft anyway: %d %s", status, body)
	}
	drafted := s.waitPostStatus(r.ID, post.StatusPending)
	if !slices.Equal(drafted.Flags, []string{"link"}) {
		t.Errorf("drafted anyway with flags %v, want [link]", drafted.Flags)
	}
	status, body := s.do("POST", "/api/posts/"+strconv.FormatInt(r.ID, 10)+"/approve", "{}")
	if status != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"flags":["link"]`) {
		t.Fatalf("approve a flagged draft: %d %s, want 422 naming the link", status, body)
	}
	if n := len(s.x.publishesTo(shilled)); n != 0 {
		t.Fatalf("a refused approval was sent %d times", n)
	}
	if status, body := s.do("POST", "/api/posts/"+strconv.FormatInt(r.ID, 10)+"/approve", `{"override":true}`); status != http.StatusOK {
		t.Fatalf("approve anyway: %d %s", status, body)
	}
	s.waitPostStatus(r.ID, post.StatusPosted)

	for _, text := range []string{first, shillText} {
		if n := s.llm.timesAsked(text); n != 1 {
			t.Errorf("the model was asked %d times about %q, want once", n, text)
		}
	}
	if got, _ := s.store.Settings(ctx); !slices.Contains(got.BlockedAuthors, "quietone") {
		t.Errorf("blocked authors %v lack the opt-out", got.BlockedAuthors)
	}
}
