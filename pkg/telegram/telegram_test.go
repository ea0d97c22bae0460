package telegram_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/ratelimit"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/telegram"
	"infernal/pkg/telegram/telegramtest"
)

const (
	token    = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	admin    = int64(4242)
	stranger = int64(666)
)

// syncBuffer is a log sink safe for the service's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type env struct {
	t      *testing.T
	store  *store.Store
	queue  *tasks.Client
	tg     *telegramtest.Server
	svc    *telegram.Service
	cfg    telegram.Config
	logs   *syncBuffer
	since  time.Time
	nextID int
}

func setup(t *testing.T, burst int) *env {
	t.Helper()
	st := storetest.New(t)
	redisURL := taskstest.RedisURL(t)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	windows, err := ratelimit.Open(redisURL, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Close() })
	tg := telegramtest.New(token, "infernal_review_bot")
	t.Cleanup(tg.Close)
	client, err := telegram.NewClient(token, tg.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := telegram.Config{Messenger: client, Store: st, Decider: decision.New(st, queue, "devil", log), Leases: queue, Windows: windows,
		Admin: admin, Burst: burst, PublicURL: "https://infernal.example", Handle: "devil", Prices: spend.DefaultPrices(), Log: log,
		// A few seconds ahead, so a relay pass finds every draft settled.
		Now: func() time.Time { return time.Now().Add(3 * time.Second) }}
	e := &env{t: t, store: st, queue: queue, tg: tg, svc: telegram.New(cfg), cfg: cfg, logs: logs, since: time.Now().Add(-time.Minute)}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), token) || strings.Contains(logs.String(), strings.Split(token, ":")[1]) {
			t.Errorf("the token is in the log:\n%s", logs.String())
		}
	})
	return e
}

// pending makes a pending mention drafted with response and an optional review score.
func (e *env) pending(response string, score int) int64 {
	e.t.Helper()
	return e.pendingOn("sandbox", response, score)
}

// pendingOn makes a pending draft of a mention found on platform.
func (e *env) pendingOn(platform, response string, score int) int64 {
	e.t.Helper()
	e.nextID++
	ctx := context.Background()
	n := fmt.Sprint(time.Now().UnixNano(), e.nextID)
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: platform, Source: post.SourceMention, OriginalPostID: n,
		ConversationID: "c" + n, OriginalPostText: "@devil what now " + n, OriginalPostUser: "Mortal", AuthorUsername: "mortal" + fmt.Sprint(e.nextID),
		CreatedAt: time.Now().Add(-time.Minute)})
	if err != nil {
		e.t.Fatal(err)
	}
	d := store.Draft{Response: response, Category: "wrath"}
	if score > 0 {
		d.Review = &post.Review{Score: score, Reason: "fine", By: "offline"}
	}
	if err := e.store.SaveDraft(ctx, id, d); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// relay runs one relay pass; the service's clock is ahead, so the burst
// has settled.
func (e *env) relay() {
	e.t.Helper()
	if err := e.svc.Relay(context.Background(), e.since); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) sync() {
	e.t.Helper()
	if err := e.svc.Sync(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// apply reads the updates queued in the stand-in and applies them.
func (e *env) apply() {
	e.t.Helper()
	ups, err := e.cfg.Messenger.Updates(context.Background(), 0, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, u := range ups {
		e.svc.Apply(context.Background(), u)
	}
}

// cardOf is the newest message about post id that has buttons.
func (e *env) cardOf(id int64) telegramtest.Message {
	e.t.Helper()
	ms := e.tg.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if strings.Contains(ms[i].Text, fmt.Sprintf("#%d ", id)) && len(ms[i].Buttons) > 0 {
			return ms[i]
		}
	}
	e.t.Fatalf("no card with buttons for post %d among %d messages", id, len(ms))
	return telegramtest.Message{}
}

func (e *env) messageByID(id int64) telegramtest.Message {
	for _, m := range e.tg.Messages() {
		if m.ID == id {
			return m
		}
	}
	e.t.Fatalf("no message %d", id)
	return telegramtest.Message{}
}

func button(m telegramtest.Message, text string) string {
	for _, row := range m.Buttons {
		for _, b := range row {
			if b.Text == text {
				return b.Data
			}
		}
	}
	return ""
}

func (e *env) post(id int64) post.Post {
	e.t.Helper()
	p, err := e.store.Post(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) lastAnswer() string {
	as := e.tg.Answers()
	if len(as) == 0 {
		return ""
	}
	return as[len(as)-1].Text
}

func (e *env) lastMessage() telegramtest.Message {
	ms := e.tg.Messages()
	return ms[len(ms)-1]
}

func TestCardShowsTheDraft(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("burn, mortal", 4)
	e.relay()
	c := e.cardOf(id)
	for _, want := range []string{"New draft #", "Sandbox", "@mortal1", "what now", "Response (12 / 280):", "burn, mortal",
		"Review: 4/5 · fine", "Estimated cost: $0.010", "https://infernal.example/diaries666op/dashboard#post-"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("card lacks %q:\n%s", want, c.Text)
		}
	}
	for _, b := range []string{"Approve", "Reject", "Regenerate", "Edit"} {
		if button(c, b) == "" {
			t.Errorf("card lacks the %s button", b)
		}
	}
	if c.ChatID != admin {
		t.Errorf("card went to chat %d, want the admin's private chat %d", c.ChatID, admin)
	}
	// A second pass sends nothing new.
	before := len(e.tg.Messages())
	e.relay()
	if n := len(e.tg.Messages()); n != before {
		t.Errorf("a second relay sent %d more messages", n-before)
	}
}

// A card counts the draft by its platform's rule, against its limit:
// graphemes out of 300 on Bluesky, weighted characters out of 280 on X.
func TestCardCountsByPlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		platform, response string
		want               []string
	}{
		{platform: "bluesky", response: "日本👩‍👩‍👧 burn", want: []string{"Bluesky", "Response (8 / 300):"}},
		{platform: "x", response: "日本 burn", want: []string{"Response (9 / 280):"}},
	}
	for _, tt := range tests {
		t.Run(tt.platform, func(t *testing.T) {
			e := setup(t, 10)
			id := e.pendingOn(tt.platform, tt.response, 4)
			e.relay()
			c := e.cardOf(id)
			for _, want := range tt.want {
				if !strings.Contains(c.Text, want) {
					t.Errorf("card lacks %q:\n%s", want, c.Text)
				}
			}
		})
	}
}

// A Bluesky card's thread leaves out the persona's own post there, told by
// its domain handle.
func TestCardThreadKnowsThePersonaByPlatform(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	e.cfg.Handles = map[string]string{"bluesky": "devil.test"}
	e.svc = telegram.New(e.cfg)
	ctx := context.Background()
	if err := e.store.SaveContextPosts(ctx, []store.ContextPost{
		{Platform: "bluesky", PlatformPostID: "at://r/1", AuthorUsername: "root.test", Text: "is coffee a sin?"},
		{Platform: "bluesky", PlatformPostID: "at://p/2", InReplyToID: "at://r/1", AuthorUsername: "devil.test", Text: "only the decaf"},
	}); err != nil {
		t.Fatal(err)
	}
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "bluesky", Source: post.SourceMention, OriginalPostID: "at://m/3",
		ConversationID: "at://r/1", InReplyToID: "at://p/2", OriginalPostText: "@devil.test thoughts?", AuthorUsername: "mortal.test",
		CreatedAt: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "burn", Category: "wrath"}); err != nil {
		t.Fatal(err)
	}
	e.relay()
	c := e.cardOf(id)
	if !strings.Contains(c.Text, "↳ @root.test: is coffee a sin?") || strings.Contains(c.Text, "↳ @devil.test") {
		t.Errorf("the card's thread should show the mortal's post and leave out the persona's:\n%s", c.Text)
	}
}

func TestOnlyTheAdminActs(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("burn", 0)
	e.relay()
	c := e.cardOf(id)
	e.tg.Press(stranger, c.ID, button(c, "Approve"))
	e.tg.SendText(stranger, stranger, 0, "/pause")
	e.apply()
	if p := e.post(id); p.Status != post.StatusPending {
		t.Fatalf("a stranger's press moved the post to %s", p.Status)
	}
	if a := e.lastAnswer(); a != telegram.TextNotAllowed {
		t.Errorf("the stranger's press was answered %q", a)
	}
	if m := e.lastMessage(); m.Text != telegram.TextNotAllowed || m.ChatID != stranger {
		t.Errorf("the stranger's text was answered %+v", m)
	}
	if pause, err := e.store.ActivePause(context.Background(), "x", time.Now()); err != nil || pause != nil {
		t.Errorf("a stranger paused the account: %+v %v", pause, err)
	}
	if !strings.Contains(e.logs.String(), `"user_id":666`) || strings.Contains(e.logs.String(), "/pause") {
		t.Errorf("the refusals are not logged by user id alone:\n%s", e.logs.String())
	}
}

func TestDoubleTapApprovesOnce(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("burn", 5)
	e.relay()
	c := e.cardOf(id)
	data := button(c, "Approve")
	e.tg.Press(admin, c.ID, data)
	e.tg.Press(admin, c.ID, data)
	e.apply()
	p := e.post(id)
	if p.Status != post.StatusApproved || p.ProposedResponse != "burn" {
		t.Fatalf("post %s %q, want approved burn", p.Status, p.ProposedResponse)
	}
	ds, err := e.store.Decisions(context.Background(), id)
	if err != nil || len(ds) != 1 || ds[0].By != post.ByTelegram || ds[0].DraftVersion != 1 {
		t.Fatalf("decisions %+v %v, want one approval by telegram on version 1", ds, err)
	}
	as := e.tg.Answers()
	if len(as) != 2 || as[0].Text != telegram.TextApproved || as[1].Text != telegram.TextAlreadyDecided {
		t.Errorf("answers %+v", as)
	}
	// The card shows the outcome and loses its buttons.
	e.sync()
	if m := e.messageByID(c.ID); len(m.Buttons) != 0 || !strings.HasSuffix(m.Text, "Approved: sending…") {
		t.Errorf("card after approval: %q buttons %v", m.Text, m.Buttons)
	}
}

func TestStalePressPostsNothing(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("old words", 3)
	e.relay()
	c := e.cardOf(id)
	if _, err := e.store.SaveRegenerated(context.Background(), id, store.Draft{Response: "new words", Category: "wrath"}, "", nil); err != nil {
		t.Fatal(err)
	}
	e.tg.Press(admin, c.ID, button(c, "Approve"))
	e.apply()
	if p := e.post(id); p.Status != post.StatusPending || p.ProposedResponse != "new words" {
		t.Fatalf("post %s %q after a stale press", p.Status, p.ProposedResponse)
	}
	if a := e.lastAnswer(); a != telegram.TextStale {
		t.Errorf("answer %q, want %q", a, telegram.TextStale)
	}
	now := e.cardOf(id)
	if now.ID == c.ID || !strings.Contains(now.Text, "new words") || button(now, "Approve") != fmt.Sprintf("a:%d:2", id) {
		t.Errorf("the current draft was not sent as a card: %+v", now)
	}
	// The old card is marked replaced.
	e.sync()
	if m := e.messageByID(c.ID); len(m.Buttons) != 0 || !strings.HasSuffix(m.Text, telegram.TextReplaced) {
		t.Errorf("old card: %q", m.Text)
	}
	// A reject on the old card is stale too.
	e.tg.Press(admin, c.ID, button(c, "Reject"))
	e.apply()
	if p := e.post(id); p.Status != post.StatusPending {
		t.Errorf("a stale reject moved the post to %s", p.Status)
	}
}

func TestEditThenApprove(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("drafted words", 4)
	e.relay()
	c := e.cardOf(id)
	e.tg.Press(admin, c.ID, button(c, "Edit"))
	e.apply()
	prompt := e.lastMessage()
	if prompt.Text != telegram.EditPrompt(id) || !prompt.ForceReply {
		t.Fatalf("edit prompt %+v", prompt)
	}
	e.tg.SendText(admin, admin, prompt.ID, strings.Repeat("x", 281))
	e.apply()
	if m := e.lastMessage(); m.Text != telegram.TooLong(281, 280) {
		t.Errorf("too long answered %q", m.Text)
	}
	if p := e.post(id); p.ProposedResponse != "drafted words" || p.DraftVersion != 1 {
		t.Fatalf("a too-long edit changed the draft: %q v%d", p.ProposedResponse, p.DraftVersion)
	}
	e.tg.SendText(admin, admin, prompt.ID, "my own words")
	e.apply()
	p := e.post(id)
	if p.Status != post.StatusPending || p.ProposedResponse != "my own words" || p.DraftVersion != 2 {
		t.Fatalf("after the edit: %s %q v%d; nothing is posted before approval", p.Status, p.ProposedResponse, p.DraftVersion)
	}
	e.sync()
	e.relay()
	edited := e.cardOf(id)
	if !strings.Contains(edited.Text, "Edited draft") || button(edited, "Regenerate") != "" || button(edited, "Edit") != "" {
		t.Errorf("the edited card: %q %v", edited.Text, edited.Buttons)
	}
	e.tg.Press(admin, edited.ID, button(edited, "Approve"))
	e.apply()
	if p := e.post(id); p.Status != post.StatusApproved || p.ProposedResponse != "my own words" {
		t.Errorf("approved %s %q, want the edited text", p.Status, p.ProposedResponse)
	}
}

func TestReplyToACardRedrafts(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("words", 4)
	e.relay()
	c := e.cardOf(id)
	e.tg.SendText(admin, admin, c.ID, "shorter, and crueler")
	e.apply()
	infos, err := e.queue.Inspector().ListPendingTasks(tasks.QueueHigh)
	if err != nil || len(infos) != 1 || infos[0].Type != tasks.TypeRegeneratePost || !strings.Contains(string(infos[0].Payload), "shorter, and crueler") {
		t.Fatalf("regenerate tasks %+v %v", infos, err)
	}
	ds, err := e.store.Decisions(context.Background(), id)
	if err != nil || len(ds) != 1 || ds[0].Action != post.ActionRegenerate || ds[0].By != post.ByTelegram {
		t.Errorf("decisions %+v %v", ds, err)
	}
}

func TestWebDecisionClosesTheCard(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	a := e.pending("one", 4)
	b := e.pending("two", 4)
	e.relay()
	ca, cb := e.cardOf(a), e.cardOf(b)
	d := decision.New(e.store, e.queue, "devil", nil)
	if _, err := d.Approve(context.Background(), a, decision.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Reject(context.Background(), b, nil, post.ByBulk); err != nil {
		t.Fatal(err)
	}
	e.sync()
	for _, id := range []int64{ca.ID, cb.ID} {
		if m := e.messageByID(id); len(m.Buttons) != 0 || !strings.HasSuffix(m.Text, telegram.TextDecidedInWeb) {
			t.Errorf("card %d after a web decision: %q %v", id, m.Text, m.Buttons)
		}
	}
	edits := e.messageByID(ca.ID).Edits
	e.sync()
	if n := e.messageByID(ca.ID).Edits; n != edits {
		t.Errorf("a closed card was edited again")
	}
}

func TestBurstBecomesADigest(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	for i := range 30 {
		e.pending(fmt.Sprint("draft ", i), 1+i%5)
	}
	e.relay()
	ms := e.tg.Messages()
	if len(ms) != 6 || ms[0].Text != telegram.DigestText(30, 5) {
		t.Fatalf("%d messages, first %q; want the digest and 5 cards", len(ms), ms[0].Text)
	}
	for _, m := range ms[1:] {
		if !strings.Contains(m.Text, "Review: 5/5") {
			t.Errorf("a card of the digest is not among the top by score: %q", m.Text)
		}
	}
	// More drafts within the minute wait for the next digest.
	for range 20 {
		e.pending("late", 3)
	}
	e.relay()
	if n := len(e.tg.Messages()); n != 6 {
		t.Errorf("%d messages after a second wave within the minute, want 6", n)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	// The real clock: the window a 429 closes is kept in Redis by it.
	e.cfg.Now = nil
	e.svc = telegram.New(e.cfg)
	e.tg.TooMany(1, 2)
	id := e.pending("burn", 4)
	time.Sleep(2100 * time.Millisecond)
	e.relay()
	e.cardOf(id)
	if n := e.tg.EarlyAfter429(); n != 0 {
		t.Errorf("%d messages sent before the 429's retry_after passed", n)
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	e.tg.SendText(admin, admin, 0, "/queue")
	e.apply()
	if m := e.lastMessage(); m.Text != "No drafts wait for review." {
		t.Errorf("/queue on an empty queue: %q", m.Text)
	}
	e.pending("burn", 4)
	e.tg.SendText(admin, admin, 0, "/queue")
	e.apply()
	if m := e.lastMessage(); !strings.HasPrefix(m.Text, "1 drafts wait for review (1 mentions). Oldest: #") {
		t.Errorf("/queue: %q", m.Text)
	}
	e.tg.SendText(admin, admin, 0, "/pause")
	e.apply()
	// The operator's pause stops every platform.
	for _, platform := range []string{"x", "bluesky"} {
		if pause, err := e.store.ActivePause(context.Background(), platform, time.Now()); err != nil || pause == nil || pause.Platform != "" {
			t.Fatalf("/pause, on %s: %+v %v; want the every-platform pause", platform, pause, err)
		}
	}
	e.tg.SendText(admin, admin, 0, "/resume")
	e.apply()
	if pause, err := e.store.ActivePause(context.Background(), "x", time.Now()); err != nil || pause != nil {
		t.Errorf("/resume: %+v %v", pause, err)
	}
	if m := e.lastMessage(); m.Text != "Resumed." {
		t.Errorf("/resume answered %q", m.Text)
	}
	e.tg.SendText(admin, admin, 0, "hello")
	e.apply()
	if m := e.lastMessage(); !strings.Contains(m.Text, "/queue") {
		t.Errorf("plain text answered %q", m.Text)
	}
}

// Garbage in a button's data changes nothing.
func TestGarbageButtonData(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	id := e.pending("burn", 4)
	e.relay()
	c := e.cardOf(id)
	for _, data := range []string{"", "a", "a:1", "x:1:1", "a:-1:1", "a:abc:1", fmt.Sprintf("a:%d:0", id), fmt.Sprintf("a:%d:1:9", id), "a:99999999:1"} {
		e.tg.Press(admin, c.ID, data)
	}
	e.apply()
	if p := e.post(id); p.Status != post.StatusPending {
		t.Errorf("garbage data moved the post to %s", p.Status)
	}
	for _, a := range e.tg.Answers() {
		if a.Text == telegram.TextApproved {
			t.Errorf("garbage data was answered %q", a.Text)
		}
	}
}

// Two workers run the channel: one lease, one consumer, no 409, and every
// update applied once.
func TestTwoWorkersOneConsumer(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		svc := telegram.New(e.cfg)
		wg.Add(1)
		go func() { defer wg.Done(); svc.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	// Drafts pending before the channel first ran are not sent.
	defer func() {
		if t.Failed() {
			t.Log(e.logs.String())
		}
	}()
	waitFor(t, "the channel to start", func() bool {
		st, err := e.store.Telegram(context.Background())
		return err == nil && st != nil
	})
	id := e.pending("burn", 4)
	var c telegramtest.Message
	waitFor(t, "the card", func() bool {
		for _, m := range e.tg.Messages() {
			if strings.Contains(m.Text, fmt.Sprintf("#%d ", id)) {
				c = m
				return true
			}
		}
		return false
	})
	e.tg.Press(admin, c.ID, button(c, "Approve"))
	e.tg.Press(admin, c.ID, button(c, "Approve"))
	waitFor(t, "both presses answered", func() bool { return len(e.tg.Answers()) == 2 })
	waitFor(t, "the card closed", func() bool { return len(e.messageByID(c.ID).Buttons) == 0 })
	if n := e.tg.Conflicts(); n != 0 {
		t.Errorf("%d getUpdates conflicts between the two workers", n)
	}
	ds, err := e.store.Decisions(context.Background(), id)
	if err != nil || len(ds) != 1 {
		t.Errorf("decisions %+v %v, want one", ds, err)
	}
	st, err := e.store.Telegram(context.Background())
	if err != nil || st == nil || st.Bot != "infernal_review_bot" || st.LastUpdateAt == nil || st.Offset == 0 {
		t.Errorf("state %+v %v", st, err)
	}
}

// A draft the worker made while it was starting (after it began taking
// tasks, before the channel first ran) reaches Telegram; one made before
// the worker started, the backlog from before the link, does not.
func TestDraftOfTheStartingWorkerIsSent(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	backlog := e.pending("from before the link", 0)
	cfg := e.cfg
	cfg.Started = time.Now()
	starting := e.pending("made while the channel starts", 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); telegram.New(cfg).Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	cardOf := func(id int64) bool {
		for _, m := range e.tg.Messages() {
			if strings.Contains(m.Text, fmt.Sprintf("#%d ", id)) {
				return true
			}
		}
		return false
	}
	waitFor(t, "the card of the draft made while the channel started", func() bool { return cardOf(starting) })
	// The relay sends oldest first, in one pass: the backlog's card would be out by now.
	if cardOf(backlog) {
		t.Errorf("the draft from before the worker started reached Telegram")
	}
	// The card is marked sent just after Telegram took it: wait for the mark.
	var unsent []post.Post
	var err error
	onlyBacklog := func() bool {
		unsent, err = e.store.UnsentDrafts(context.Background(), time.Time{}, 10)
		return err == nil && len(unsent) == 1 && unsent[0].ID == backlog
	}
	deadline := time.Now().Add(30 * time.Second)
	for !onlyBacklog() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !onlyBacklog() {
		t.Errorf("unsent drafts %+v (%v), want the backlog's alone", unsent, err)
	}
}

// A failing Bot API's errors are logged and kept without the token.
func TestTokenNeverLogged(t *testing.T) {
	t.Parallel()
	e := setup(t, 10)
	dead, err := telegram.NewClient(token, "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.cfg
	cfg.Messenger = dead
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := dead.Send(ctx, admin, telegram.Message{Text: "x"}); err == nil || strings.Contains(err.Error(), token) {
		t.Errorf("a failed send's error: %v", err)
	}
	if _, err := dead.Updates(ctx, 0, 0); err == nil || strings.Contains(err.Error(), token) {
		t.Errorf("a failed poll's error: %v", err)
	}
	telegram.New(cfg).Run(ctx)
	if !strings.Contains(e.logs.String(), "getMe failed") {
		t.Errorf("the failure was not logged:\n%s", e.logs.String())
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Telegram answers a second concurrent getUpdates consumer 409; the client
// names it ErrConflict (the lease keeps the product from ever causing it).
func TestSecondConsumerIsAConflict(t *testing.T) {
	t.Parallel()
	tg := telegramtest.New(token, "infernal_review_bot")
	defer tg.Close()
	a, err := telegram.NewClient(token, tg.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := a.Updates(context.Background(), 0, 3*time.Second)
		done <- err
	}()
	waitFor(t, "the first long poll", func() bool { return tg.Calls("getUpdates") == 1 })
	_, err = a.Updates(context.Background(), 0, time.Second)
	if !errors.Is(err, telegram.ErrConflict) {
		t.Errorf("a second consumer got %v, want ErrConflict", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the first consumer: %v", err)
	}
	if tg.Conflicts() != 1 {
		t.Errorf("conflicts %d, want 1", tg.Conflicts())
	}
}
