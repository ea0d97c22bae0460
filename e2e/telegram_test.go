package e2e

// The tests in this file run the real web, scheduler and two worker
// binaries against the fake X, the offline writer and a stand-in of
// Telegram's Bot API (pkg/telegram/telegramtest): review from the phone.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/telegram"
	"infernal/pkg/telegram/telegramtest"
)

const (
	tgToken    = "987654321:AAFakeTokenForTheTelegramStandIn_x9"
	tgAdmin    = int64(5151)
	tgStranger = int64(7777)
	// tgWait bounds each wait of these tests; a guard against a hang, not
	// a speed requirement (make bench measures the latency).
	tgWait = 60 * time.Second
)

// tgSystem is the product's processes with the Telegram channel on.
type tgSystem struct {
	t     *testing.T
	f     processFixture
	tg    *telegramtest.Server
	web   *webClient
	procs []*proc
}

// startTelegramSystem starts workers workers, the scheduler and the web
// binary; mentionsEvery is the mentions scan's schedule, "" for the
// shipped default.
func startTelegramSystem(t *testing.T, workers int, mentionsEvery string) *tgSystem {
	t.Helper()
	f := newProcessFixture(t)
	scheduler, web := buildBinary(t, "scheduler"), buildBinary(t, "web")
	tg := telegramtest.New(tgToken, "infernal_review_bot")
	t.Cleanup(tg.Close)
	s := &tgSystem{t: t, f: f, tg: tg}
	// Registered before the processes start, so it runs after each has
	// stopped (cleanups run last first): their logs are complete and no
	// longer written.
	t.Cleanup(func() {
		for _, p := range s.procs {
			if strings.Contains(p.logs.String(), tgToken) || strings.Contains(p.logs.String(), strings.Split(tgToken, ":")[1]) {
				t.Errorf("%s logged the Telegram token", p.name)
			}
		}
	})
	common := []string{"DATABASE_URL=" + f.dbURL, "REDIS_URL=" + f.redisURL, "PERSONA_HANDLE=" + persona, "PLATFORM=x",
		"LOG_LEVEL=debug", "PUBLIC_URL=https://infernal.example"}
	for i := range workers {
		s.procs = append(s.procs, startProc(t, fmt.Sprint("worker", i+1), f.worker, append(common,
			"METRICS_ADDR=127.0.0.1:0", "X_API_BASE_URL="+f.fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
			"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret, "X_MAX_RESULTS=100",
			"WRITER=offline", "SEARCH_TOPICS="+liveSearchTopic,
			"TELEGRAM_BOT_TOKEN="+tgToken, "TELEGRAM_ADMIN_USER_ID="+strconv.FormatInt(tgAdmin, 10), "TELEGRAM_API_BASE_URL="+tg.BaseURL())...))
	}
	schedules := []string{"SCHEDULE_CONVERSATIONS=@every 1h", "SCHEDULE_TARGETED=@every 1h",
		"SCHEDULE_PROFILE=@every 1h", "SCHEDULE_METRICS=@every 1h", "SCHEDULE_RECONCILE=@every 3s"}
	if mentionsEvery != "" {
		schedules = append(schedules, "SCHEDULE_MENTIONS="+mentionsEvery)
	}
	s.procs = append(s.procs, startProc(t, "scheduler", scheduler, append(common, schedules...)...))
	addr := freeAddr(t)
	s.procs = append(s.procs, startProc(t, "web", web, append(common, "HTTP_ADDR="+addr, "ADMIN_PASSWORD=hellfire666", "STATIC_DIR="+t.TempDir())...))
	s.web = &webClient{t: t, base: "http://" + addr}
	s.waitFor("the web binary", func() bool { return s.web.readyz() == http.StatusOK })
	status, body := s.web.request("POST", "/api/auth/login", `{"username":"admin","password":"hellfire666"}`)
	var login struct{ Token string }
	if err := json.Unmarshal(body, &login); status != http.StatusOK || err != nil || login.Token == "" {
		t.Fatalf("login: %d %s (%v)", status, body, err)
	}
	s.web.token = login.Token
	// The channel starts, and drafts from then on reach Telegram.
	s.waitFor("the Telegram link", func() bool {
		st, err := f.st.Telegram(t.Context())
		return err == nil && st != nil
	})
	return s
}

func (s *tgSystem) waitFor(what string, ok func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(tgWait)
	for !ok() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mention posts a mention of the persona by a new user and returns its id.
func (s *tgSystem) mention(user, text string) string {
	u := s.f.fx.addUser(user, user)
	return s.f.fx.postAs(u, "@"+persona+" "+text)
}

// card waits for the newest card of the draft answering originalID, at
// draft version version, and returns it with the post's id.
func (s *tgSystem) card(originalID string, version int) (telegramtest.Message, int64) {
	s.t.Helper()
	var id int64
	s.waitFor("the draft of "+originalID, func() bool {
		err := s.f.st.Pool().QueryRow(s.t.Context(), `SELECT id FROM posts WHERE original_post_id = $1 AND status <> 'drafting'`, originalID).Scan(&id)
		return err == nil
	})
	var card telegramtest.Message
	want := fmt.Sprintf("a:%d:%d", id, version)
	s.waitFor(fmt.Sprintf("the card of post %d v%d", id, version), func() bool {
		for _, m := range s.tg.Messages() {
			if buttonData(m, "Approve") == want {
				card = m
				return true
			}
		}
		return false
	})
	return card, id
}

func (s *tgSystem) message(id int64) telegramtest.Message {
	for _, m := range s.tg.Messages() {
		if m.ID == id {
			return m
		}
	}
	s.t.Fatalf("no message %d", id)
	return telegramtest.Message{}
}

func buttonData(m telegramtest.Message, text string) string {
	for _, row := range m.Buttons {
		for _, b := range row {
			if b.Text == text {
				return b.Data
			}
		}
	}
	return ""
}

func (s *tgSystem) post(id int64) post.Post {
	s.t.Helper()
	p, err := s.f.st.Post(s.t.Context(), id)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// explainUnsent logs, for a failing test, what the relay had to go on:
// the link's start, each unsent draft, what reached Telegram, and the
// database's sessions that were not idle.
func (s *tgSystem) explainUnsent(unsent []post.Post) {
	s.t.Helper()
	ctx := s.t.Context()
	if st, err := s.f.st.Telegram(ctx); err != nil || st == nil {
		s.t.Logf("telegram state: %+v (%v)", st, err)
	} else {
		s.t.Logf("telegram link since %s", st.Since.Format(time.RFC3339Nano))
	}
	for _, p := range unsent {
		var marked []string
		rows, err := s.f.st.Pool().Query(ctx, `SELECT format('v%s %s at %s', draft_version, how, at) FROM telegram_drafts WHERE post_id = $1`, p.ID)
		if err == nil {
			for rows.Next() {
				var m string
				if rows.Scan(&m) == nil {
					marked = append(marked, m)
				}
			}
			rows.Close()
		}
		s.t.Logf("unsent: post %d %s %s v%d updated %s; marked sent: %q", p.ID, p.Source, p.Status, p.DraftVersion, p.UpdatedAt.Format(time.RFC3339Nano), marked)
	}
	s.t.Logf("%d messages reached the stand-in of Telegram", len(s.tg.Messages()))
	rows, err := s.f.st.Pool().Query(ctx, `SELECT post_id, draft_version, how FROM telegram_drafts ORDER BY at DESC LIMIT 10`)
	if err == nil {
		for rows.Next() {
			var id int64
			var version int
			var how string
			if err := rows.Scan(&id, &version, &how); err == nil {
				s.t.Logf("telegram_drafts: post %d v%d %s", id, version, how)
			}
		}
		rows.Close()
	}
	rows, err = s.f.st.Pool().Query(ctx, `SELECT state, coalesce(wait_event, ''), left(query, 200) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`)
	if err == nil {
		for rows.Next() {
			var state, wait, query string
			if err := rows.Scan(&state, &wait, &query); err == nil {
				s.t.Logf("session %s (waiting on %q): %s", state, wait, query)
			}
		}
		rows.Close()
	}
}

// One mention's life in Telegram: a stranger's press is refused, a double
// tap posts one reply; an edit posts the edited text; a stale version is a
// 409 on the web, in bulk and in Telegram; a decision in the web admin
// closes the Telegram card; two workers consume updates without a 409.
func TestTelegramReview(t *testing.T) {
	t.Parallel()
	s := startTelegramSystem(t, 2, "@every 3s")
	fx := s.f.fx

	// A stranger's press changes nothing; the administrator's double tap posts once.
	first := s.mention("mortal_one", "is coffee a sin?")
	card, id := s.card(first, 1)
	s.tg.Press(tgStranger, card.ID, buttonData(card, "Approve"))
	approve := buttonData(card, "Approve")
	s.waitFor("the stranger's refusal", func() bool {
		for _, a := range s.tg.Answers() {
			if a.Text == telegram.TextNotAllowed {
				return true
			}
		}
		return false
	})
	if p := s.post(id); p.Status != post.StatusPending {
		t.Fatalf("a stranger's press moved the post to %s", p.Status)
	}
	s.tg.Press(tgAdmin, card.ID, approve)
	s.tg.Press(tgAdmin, card.ID, approve)
	s.waitFor("the reply on X", func() bool { return s.post(id).Status == post.StatusPosted })
	drafted := s.post(id).ProposedResponse
	if pubs := fx.publishesTo(first); len(pubs) != 1 || pubs[0].Text != drafted {
		t.Fatalf("X got %+v, want one reply with the text shown", pubs)
	}
	s.waitFor("the card showing the posted reply", func() bool {
		m := s.message(card.ID)
		return len(m.Buttons) == 0 && strings.Contains(m.Text, "Approved: posted https://x.com/"+persona+"/status/")
	})

	// An edit posts the edited text, and nothing before its approval.
	second := s.mention("mortal_two", "should I quit my job?")
	card, id = s.card(second, 1)
	s.tg.Press(tgAdmin, card.ID, buttonData(card, "Edit"))
	var prompt telegramtest.Message
	s.waitFor("the edit prompt", func() bool {
		for _, m := range s.tg.Messages() {
			if m.Text == telegram.EditPrompt(id) {
				prompt = m
				return true
			}
		}
		return false
	})
	edited := "Quit, mortal. The abyss pays better."
	s.tg.SendText(tgAdmin, tgAdmin, prompt.ID, edited)
	editedCard, _ := s.card(second, 2)
	if p := s.post(id); p.Status != post.StatusPending || len(fx.publishesTo(second)) != 0 {
		t.Fatalf("the edit was posted before its approval: %s", p.Status)
	}
	s.tg.Press(tgAdmin, editedCard.ID, buttonData(editedCard, "Approve"))
	s.waitFor("the edited reply on X", func() bool { return s.post(id).Status == post.StatusPosted })
	if pubs := fx.publishesTo(second); len(pubs) != 1 || pubs[0].Text != edited {
		t.Fatalf("X got %+v, want the edited text", pubs)
	}

	// A stale version: the web, bulk and Telegram all refuse it.
	third := s.mention("mortal_three", "what is the meaning of mondays?")
	card, id = s.card(third, 1)
	status, body := s.web.request("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/regenerate", `{"instruction":"crueler","draft_version":1}`)
	if status != http.StatusOK && status != http.StatusAccepted {
		t.Fatalf("regenerate: %d %s", status, body)
	}
	s.waitFor("the regenerated draft", func() bool { return s.post(id).DraftVersion == 2 })
	status, body = s.web.request("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", `{"draft_version":1}`)
	if status != http.StatusConflict || !strings.Contains(string(body), `"draft_version":2`) || !strings.Contains(string(body), "the draft changed since it was shown") {
		t.Errorf("web approve of version 1: %d %s", status, body)
	}
	status, body = s.web.request("POST", "/api/posts/bulk", fmt.Sprintf(`{"action":"approve","items":[{"id":%d,"draft_version":1}]}`, id))
	if status != http.StatusOK || !strings.Contains(string(body), `"status":409`) {
		t.Errorf("bulk approve of version 1: %d %s", status, body)
	}
	answers := len(s.tg.Answers())
	s.tg.Press(tgAdmin, card.ID, buttonData(card, "Approve"))
	s.waitFor("the stale press answered", func() bool { return len(s.tg.Answers()) > answers })
	if a := s.tg.Answers()[answers]; a.Text != telegram.TextStale {
		t.Errorf("a stale press was answered %q", a.Text)
	}
	if p := s.post(id); p.Status != post.StatusPending || len(fx.publishesTo(third)) != 0 {
		t.Fatalf("a stale approval posted: %s", p.Status)
	}

	// A decision in the web admin closes the Telegram card.
	current, _ := s.card(third, 2)
	decided := time.Now()
	status, body = s.web.request("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/reject", `{"draft_version":2}`)
	if status != http.StatusOK {
		t.Fatalf("web reject: %d %s", status, body)
	}
	s.waitFor("the card closed by the web's decision", func() bool {
		m := s.message(current.ID)
		return len(m.Buttons) == 0 && strings.HasSuffix(m.Text, telegram.TextDecidedInWeb)
	})
	t.Logf("a web decision reached the Telegram card in %s", time.Since(decided).Round(10*time.Millisecond))

	// The history names each decision's channel.
	status, body = s.web.request("GET", "/api/posts/"+strconv.FormatInt(id, 10)+"/history", "")
	if status != http.StatusOK || !strings.Contains(string(body), `"by":"web"`) {
		t.Errorf("history: %d %s", status, body)
	}
	if n := s.tg.Conflicts(); n != 0 {
		t.Errorf("%d getUpdates conflicts between the two workers", n)
	}
}

// A burst of 100 mentions sends at most 12 messages: digests and the top
// cards, not a card each.
func TestTelegramBurst(t *testing.T) {
	t.Parallel()
	s := startTelegramSystem(t, 1, "@every 3s")
	before := len(s.tg.Messages())
	var ids []string
	for i := range 100 {
		ids = append(ids, s.mention(fmt.Sprintf("crowd_%03d", i), fmt.Sprintf("hot take number %d about mondays", i)))
	}
	s.waitFor("100 drafts", func() bool {
		n := 0
		for page := 1; page <= 10; page++ {
			status, body := s.web.request("GET", fmt.Sprintf("/api/posts/mentions?page=%d", page), "")
			var list struct{ Posts []liveView }
			if err := json.Unmarshal(body, &list); status != http.StatusOK || err != nil {
				t.Fatalf("mentions: %d %s", status, body)
			}
			n += len(list.Posts)
		}
		return n == len(ids)
	})
	// Every draft reaches Telegram, as a card or in a digest, within two minutes.
	deadline := time.Now().Add(2*time.Minute + 10*time.Second)
	for {
		unsent, err := s.f.st.UnsentDrafts(t.Context(), time.Time{}, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(unsent) == 0 {
			break
		}
		if time.Now().After(deadline) {
			s.explainUnsent(unsent)
			t.Fatalf("%d drafts never reached Telegram", len(unsent))
		}
		time.Sleep(time.Second)
	}
	msgs := s.tg.Messages()[before:]
	digests := 0
	for _, m := range msgs {
		if strings.Contains(m.Text, "new drafts; the top") {
			digests++
		}
	}
	if len(msgs) > 12 || digests == 0 {
		t.Errorf("the burst sent %d messages (%d digests), want at most 12 with a digest", len(msgs), digests)
	}
	t.Logf("100 mentions: %d messages, %d digests", len(msgs), digests)
}

// TestMentionToTelegramLatency measures, at the shipped default schedules,
// the time from a mention on X to its card in Telegram: 20 mentions at
// random moments over three minutes, one worker, the offline writer. It is
// make bench's figure (INFERNAL_BENCH_LATENCY=1), skipped otherwise: speed
// is measured there, never asserted by a test.
func TestMentionToTelegramLatency(t *testing.T) {
	if os.Getenv("INFERNAL_BENCH_LATENCY") != "1" {
		t.Skip("make bench's latency leg; set INFERNAL_BENCH_LATENCY=1 to run it")
	}
	s := startTelegramSystem(t, 1, "")
	const n = 20
	posted := map[string]time.Time{}
	var order []string
	for i := range n {
		time.Sleep(time.Duration(rand.IntN(18000)) * time.Millisecond)
		id := s.mention(fmt.Sprintf("latency_%02d", i), fmt.Sprintf("a question about mondays, number %d", i))
		posted[id], order = time.Now(), append(order, id)
	}
	var lat []time.Duration
	for _, id := range order {
		card, _ := s.card(id, 1)
		lat = append(lat, card.SentAt.Sub(posted[id]))
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration {
		return lat[int(q*float64(len(lat)-1)+0.5)].Round(100 * time.Millisecond)
	}
	fmt.Printf("mention to Telegram card, %d mentions at the default schedules: p50 %s, p95 %s, max %s\n", n, p(0.5), p(0.95), lat[len(lat)-1].Round(100*time.Millisecond))
}
