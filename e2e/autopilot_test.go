package e2e

// The test in this file runs the real web, scheduler and two worker
// binaries against the fake X and the offline writer with the autopilot
// on: a trusted author is answered after the grace window with
// nobody acting; a stranger waits for review.

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/settings"
)

func TestAutopilotPostsATrustedAuthorAfterTheGrace(t *testing.T) {
	t.Parallel()
	s := startTelegramSystem(t, 2, "@every 2s")
	fx := s.f.fx

	status, body := s.web.request("GET", "/api/settings", "")
	var set settings.Settings
	if err := json.Unmarshal(body, &set); status != http.StatusOK || err != nil {
		t.Fatalf("GET /api/settings: %d %s (%v)", status, body, err)
	}
	if set.Autopilot.Enabled {
		t.Fatal("the autopilot is on in a fresh install")
	}
	const grace = 4
	// Review 1 up: the offline judge's score depends on the words; the score rule has its own tests.
	// Any category (empty, not null: the API refuses a null list).
	set.Autopilot = settings.Autopilot{Enabled: true, MinReviewScore: 1, Authors: []string{"@Trusted_Friend"}, Categories: []string{},
		MaxPerHour: 5, GraceSeconds: grace}
	put, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := s.web.request("PUT", "/api/settings", string(put)); status != http.StatusOK {
		t.Fatalf("PUT /api/settings: %d %s", status, body)
	}

	stranger := s.mention("a_stranger", "is coffee a sin?")
	friend := s.mention("trusted_friend", "is coffee a sin, friend?")
	idOf := func(original string) int64 {
		var id int64
		s.waitFor("the post of "+original, func() bool {
			err := s.f.st.Pool().QueryRow(t.Context(), `SELECT id FROM posts WHERE original_post_id = $1`, original).Scan(&id)
			return err == nil
		})
		return id
	}
	friendID, strangerID := idOf(friend), idOf(stranger)

	s.waitFor("the trusted author's reply on X", func() bool { return s.post(friendID).Status == post.StatusPosted })
	p := s.post(friendID)
	if pubs := fx.publishesTo(friend); len(pubs) != 1 || pubs[0].Text != p.ProposedResponse {
		t.Fatalf("X got %+v, want one reply with the draft", pubs)
	}
	ds, err := s.f.st.Decisions(t.Context(), friendID)
	if err != nil || len(ds) != 1 || ds[0].By != post.ByAutopilot || ds[0].Detail["author"] != "trusted_friend" {
		t.Fatalf("decisions = %+v, %v; want one by the autopilot naming the author", ds, err)
	}
	if p.SendAfter == nil || p.PostedAt == nil || p.PostedAt.Before(*p.SendAfter) || p.SendAfter.Sub(ds[0].At) < (grace-1)*time.Second {
		t.Fatalf("send_after %v, posted %v, approved %v: want posted after a %d s grace", p.SendAfter, p.PostedAt, ds[0].At, grace)
	}
	status, body = s.web.request("GET", "/api/posts/"+strconv.FormatInt(friendID, 10)+"/history", "")
	var h struct {
		Decisions []struct {
			By     string         `json:"by"`
			Detail map[string]any `json:"detail"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(body, &h); status != http.StatusOK || err != nil || len(h.Decisions) != 1 ||
		h.Decisions[0].By != "autopilot" || h.Decisions[0].Detail["summary"] == nil {
		t.Errorf("history: %d %s", status, body)
	}

	// The stranger's draft waits for review, unsent.
	s.waitFor("the stranger's draft", func() bool { return s.post(strangerID).Status == post.StatusPending })
	if p := s.post(strangerID); p.SendAfter != nil || len(fx.publishesTo(stranger)) != 0 {
		t.Fatalf("the stranger's draft: %s, send_after %v, %d replies", p.Status, p.SendAfter, len(fx.publishesTo(stranger)))
	}
}
