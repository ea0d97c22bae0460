// Package telegram is the review channel in Telegram: every new pending
// draft reaches the administrator's chat as a card with Approve, Reject,
// Regenerate and Edit; a press decides on the draft version the card
// shows, through the same decision package as the web admin; cards are
// edited to show the outcome of every decision, wherever it was made.
//
// One worker at a time runs the channel, under a Redis lease: it alone
// long-polls getUpdates (Telegram answers a second consumer 409), keeping
// the offset of the last update applied in PostgreSQL, and it alone sends,
// honouring a 429's retry_after through the rate-limit windows every
// process shares.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"infernal/pkg/conversation"
	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/upstream"
)

// DefaultBurst is TELEGRAM_BURST's default: more new drafts than this in a
// minute are summed up in one digest.
const DefaultBurst = 10

// digestTop is how many drafts of a digest follow it as cards.
const digestTop = 5

// Timings of the relay.
const (
	// tick is how often the relay looks for new drafts and decided cards.
	tick = time.Second
	// settle is how long the relay waits for a burst to finish arriving
	// before it sends, unless the oldest waiting draft is settleMax old.
	settle    = 2 * time.Second
	settleMax = 10 * time.Second
	// burstWindow is the minute TELEGRAM_BURST counts drafts over.
	burstWindow = time.Minute
	// pace is the least time between two messages sent or edited: about
	// one a second per chat, as Telegram allows.
	pace = time.Second
	// leaseRetry is how often a worker without the lease asks for it again.
	leaseRetry = 5 * time.Second
	// leaseName is the Redis lease of the one worker that runs the channel.
	leaseName = "telegram"
	// windowName is the rate-limit window a 429 closes for every process.
	windowName = "telegram sendMessage"
)

// Leaser hands out the lease that makes one worker the channel's runner;
// *tasks.Client is one.
type Leaser interface {
	Hold(ctx context.Context, name string) (leased context.Context, release func() error, held bool, err error)
}

// Windows keeps the rate-limit windows every process shares;
// *ratelimit.Windows is one.
type Windows interface {
	Reserve(ctx context.Context, endpoint string) (closedUntil time.Time, err error)
	Record(ctx context.Context, endpoint string, h http.Header) error
}

// Messenger is what the channel needs of a chat: send and edit messages,
// answer button presses, and read what the administrator did. *Client is
// the Telegram one; another chat can follow behind the same methods.
type Messenger interface {
	Me(ctx context.Context) (string, error)
	Send(ctx context.Context, chat int64, m Message) (int64, error)
	Edit(ctx context.Context, chat, id int64, m Message) error
	Answer(ctx context.Context, callbackID, text string) error
	Updates(ctx context.Context, offset int64, wait time.Duration) ([]Update, error)
}

// Config is what the channel draws from.
type Config struct {
	Messenger Messenger
	Store     *store.Store
	Decider   *decision.Decider
	Leases    Leaser
	Windows   Windows
	// Admin is the one Telegram user allowed to act (TELEGRAM_ADMIN_USER_ID).
	Admin int64
	// Chat is where messages go (TELEGRAM_CHAT_ID; the admin's private chat by default).
	Chat int64
	// Burst is TELEGRAM_BURST; DefaultBurst when zero.
	Burst int
	// PublicURL is the site's origin, for the cards' links; "" for none.
	PublicURL string
	// Handle is the persona's handle, for the links of posted replies.
	Handle string
	// Handles are the persona's handles where they differ from Handle, by
	// platform (its domain on Bluesky): a card's thread tells the persona's
	// posts by them.
	Handles post.Handles
	Prices  spend.Prices
	Log     *slog.Logger
	Now     func() time.Time
	// Started is when the worker began taking tasks, for the link's first
	// run: drafts made since then are sent even if they became pending
	// before the channel ran. Zero counts from the channel's first run.
	Started time.Time
}

// Service runs the channel.
type Service struct {
	cfg Config
	log *slog.Logger
	now func() time.Time

	// mu orders the calls that send or edit, paced and behind the shared window.
	mu       sync.Mutex
	lastSent time.Time
}

// New returns the channel; Run starts it.
func New(cfg Config) *Service {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.Chat == 0 {
		cfg.Chat = cfg.Admin
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{cfg: cfg, log: cfg.Log.With("channel", "telegram"), now: cfg.Now}
}

// Run runs the channel until ctx ends: it waits for the lease, then
// relays drafts and applies updates while it holds it.
func (s *Service) Run(ctx context.Context) {
	for ctx.Err() == nil {
		leased, release, held, err := s.cfg.Leases.Hold(ctx, leaseName)
		switch {
		case err != nil:
			s.log.WarnContext(ctx, "telegram: lease not taken", "error", err)
		case held:
			s.runLeased(leased)
			if err := release(); err != nil {
				s.log.WarnContext(ctx, "telegram: lease not given back", "error", err)
			}
			continue
		}
		sleep(ctx, leaseRetry)
	}
}

// runLeased runs the relay and the update loop until the lease ends.
func (s *Service) runLeased(ctx context.Context) {
	bot, err := s.cfg.Messenger.Me(ctx)
	if err != nil {
		s.noteError(ctx, "getMe failed", err)
		sleep(ctx, leaseRetry)
		return
	}
	state, err := s.cfg.Store.StartTelegram(ctx, bot, s.cfg.Started)
	if err != nil {
		s.log.ErrorContext(ctx, "telegram: state not kept", "error", err)
		sleep(ctx, leaseRetry)
		return
	}
	s.log.InfoContext(ctx, "telegram: review channel running", "bot", bot, "offset", state.Offset)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.safely(ctx, "relay", func() { s.relayLoop(ctx, state.Since) }) }()
	go func() { defer wg.Done(); s.safely(ctx, "updates", func() { s.updateLoop(ctx, state.Offset) }) }()
	wg.Wait()
}

// safely runs f, logging a panic (never its value, which might hold the
// token) instead of ending the worker.
func (s *Service) safely(ctx context.Context, what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(ctx, "telegram: loop panicked; it stops until the lease is taken again", "loop", what)
		}
	}()
	f()
}

// relayLoop sends new drafts and keeps cards current, every tick.
func (s *Service) relayLoop(ctx context.Context, since time.Time) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
			s.noteError(ctx, "cards not brought up to date", err)
		}
		if err := s.Relay(ctx, since); err != nil && ctx.Err() == nil {
			s.noteError(ctx, "drafts not sent", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// updateLoop applies the administrator's updates in order, keeping the
// offset of each applied one, so none is applied twice or lost.
func (s *Service) updateLoop(ctx context.Context, offset int64) {
	for ctx.Err() == nil {
		ups, err := s.cfg.Messenger.Updates(ctx, offset, pollSeconds*time.Second)
		var retry *RetryError
		switch {
		case ctx.Err() != nil:
			return
		case errors.As(err, &retry):
			sleep(ctx, retry.After)
			continue
		case err != nil:
			s.noteError(ctx, "updates not read", err)
			sleep(ctx, 3*time.Second)
			continue
		}
		for _, u := range ups {
			if u.ID <= offset {
				continue
			}
			s.Apply(ctx, u)
			if err := s.cfg.Store.SetTelegramOffset(context.WithoutCancel(ctx), u.ID); err != nil {
				s.log.ErrorContext(ctx, "telegram: offset not kept; the update may be applied again", "update_id", u.ID, "error", err)
			}
			offset = u.ID
		}
	}
}

// noteError logs err and keeps it for the settings, as a short single
// line whatever it quotes.
func (s *Service) noteError(ctx context.Context, what string, err error) {
	s.log.WarnContext(ctx, "telegram: "+what, "error", err)
	if serr := s.cfg.Store.SetTelegramError(context.WithoutCancel(ctx), upstream.Excerpt(what+": "+err.Error())); serr != nil {
		s.log.WarnContext(ctx, "telegram: error not kept", "error", serr)
	}
}

// Relay sends the drafts that became pending since since and have not
// reached Telegram: each as a card while a minute holds at most Burst of
// them, else one digest followed by the top five by review score. A burst
// still arriving is waited out for a moment, so it goes as one digest.
func (s *Service) Relay(ctx context.Context, since time.Time) error {
	drafts, err := s.cfg.Store.UnsentDrafts(ctx, since, 500)
	if err != nil || len(drafts) == 0 {
		return err
	}
	now := s.now()
	newest, oldest := drafts[0].UpdatedAt, drafts[0].UpdatedAt
	for _, p := range drafts {
		newest, oldest = later(newest, p.UpdatedAt), earlier(oldest, p.UpdatedAt)
	}
	if now.Sub(newest) < settle && now.Sub(oldest) < settleMax {
		s.log.DebugContext(ctx, "telegram: relay waits for the burst to settle", "drafts", len(drafts),
			"newest_age", now.Sub(newest), "oldest_age", now.Sub(oldest))
		return nil
	}
	w, err := s.cfg.Store.TelegramSince(ctx, now.Add(-burstWindow))
	if err != nil {
		return err
	}
	if w.Cards+len(drafts) <= s.cfg.Burst {
		s.log.DebugContext(ctx, "telegram: relay sends cards", "drafts", len(drafts), "cards_in_window", w.Cards,
			"newest_age", now.Sub(newest), "oldest_age", now.Sub(oldest))
		for _, p := range drafts {
			if err := s.sendCard(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}
	if w.LastDigest != nil {
		// One digest a minute: the rest wait for the next one.
		s.log.DebugContext(ctx, "telegram: relay waits for the next digest", "drafts", len(drafts), "cards_in_window", w.Cards,
			"last_digest_age", now.Sub(*w.LastDigest), "oldest_age", now.Sub(oldest))
		return nil
	}
	s.log.DebugContext(ctx, "telegram: relay sends a digest", "drafts", len(drafts), "cards_in_window", w.Cards,
		"newest_age", now.Sub(newest), "oldest_age", now.Sub(oldest))
	slices.SortStableFunc(drafts, func(a, b post.Post) int { return scoreOf(b) - scoreOf(a) })
	top := drafts[:min(digestTop, len(drafts))]
	text := DigestText(len(drafts), len(top))
	id, err := s.send(ctx, Message{Text: text})
	if err != nil {
		return err
	}
	if err := s.cfg.Store.AddTelegramMessage(ctx, store.TelegramMessage{ChatID: s.cfg.Chat, MessageID: id, Kind: "digest", Text: text}); err != nil {
		return err
	}
	rest := make([]store.DraftRef, 0, len(drafts)-len(top))
	for _, p := range drafts[len(top):] {
		rest = append(rest, store.DraftRef{PostID: p.ID, Version: p.DraftVersion})
	}
	if err := s.cfg.Store.MarkDraftsSent(ctx, rest, "digested"); err != nil {
		return err
	}
	s.log.DebugContext(ctx, "telegram: digest sent", "message_id", id, "digested", len(rest), "cards_to_follow", len(top))
	for _, p := range top {
		if err := s.sendCard(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// scoreOf is p's review score, 0 while unjudged.
func scoreOf(p post.Post) int {
	if p.Review == nil {
		return 0
	}
	return p.Review.Score
}

// sendCard sends p's current draft as a card and records it.
func (s *Service) sendCard(ctx context.Context, p post.Post) error {
	card, err := s.card(ctx, p)
	if err != nil {
		return err
	}
	m := card.Render()
	text, outcome := m.Text, ""
	if post.InGrace(p) && p.ApprovedAt != nil {
		// An auto-approval in its grace window: its card offers Cancel alone.
		outcome = AutoPosting(p.SendAfter.Sub(*p.ApprovedAt))
		m = Cancellable(text, outcome, p.ID, p.DraftVersion)
	}
	id, err := s.send(ctx, m)
	if err != nil {
		return err
	}
	if err := s.cfg.Store.AddTelegramMessage(ctx, store.TelegramMessage{ChatID: s.cfg.Chat, MessageID: id, Kind: "card",
		PostID: p.ID, DraftVersion: p.DraftVersion, Open: true, Text: text, Outcome: outcome}); err != nil {
		return err
	}
	if err := s.cfg.Store.MarkDraftsSent(ctx, []store.DraftRef{{PostID: p.ID, Version: p.DraftVersion}}, "card"); err != nil {
		return err
	}
	s.log.DebugContext(ctx, "telegram: card sent", "post_id", p.ID, "draft_version", p.DraftVersion, "message_id", id)
	return nil
}

// card is what p's message shows: its thread as stored (never read from
// the platform), the draft, its review and cost.
func (s *Service) card(ctx context.Context, p post.Post) (Card, error) {
	g := conversation.Gatherer{Store: s.cfg.Store, PlatformName: p.Platform, Handle: s.cfg.Handles.On(p.Platform, s.cfg.Handle)}
	c, err := g.Gather(ctx, p, 2)
	if err != nil {
		return Card{}, err
	}
	var thread []ThreadPost
	for _, it := range c.Items {
		if it.Relation == conversation.Ancestor || it.Relation == conversation.Parent {
			thread = append(thread, ThreadPost{Author: it.AuthorUsername, Text: it.Text})
		}
	}
	if len(thread) > 2 {
		thread = thread[len(thread)-2:]
	}
	vs, err := s.cfg.Store.History(ctx, p.ID)
	if err != nil {
		return Card{}, err
	}
	cost, _ := s.cfg.Prices.SendCost(p.ReplyRoute, p.Source == post.SourceMention, p.ProposedResponse)
	card := Card{PostID: p.ID, Version: p.DraftVersion, Platform: p.Platform, Author: p.AuthorUsername, Post: p.OriginalPostText,
		ContentWarning: p.ContentWarning, Thread: thread, Response: p.ProposedResponse,
		Length: post.LengthFor(p.Platform, p.ProposedResponse), Max: p.Limit(),
		Review: p.Review, CostUSD: cost, Edited: len(vs) > 0 && vs[len(vs)-1].Origin == post.OriginAdmin, Images: len(p.Media),
		Cases: len(p.LearnedFrom.Cases), Lessons: len(p.LearnedFrom.Lessons)}
	if p.Link != nil {
		card.LinkTitle = p.Link.Title
	}
	if s.cfg.PublicURL != "" {
		card.AdminURL = s.cfg.PublicURL + "/diaries666op/dashboard#post-" + strconv.FormatInt(p.ID, 10)
	}
	return card, nil
}

// Sync edits the cards whose post moved on (decided anywhere, or given a
// new draft) to show the outcome, without buttons.
func (s *Service) Sync(ctx context.Context) error {
	cards, err := s.cfg.Store.CardsToSync(ctx, 200)
	if err != nil {
		return err
	}
	for _, c := range cards {
		text, final := Outcome(c.Post, c.By, c.Message.DraftVersion, s.postURL(c.Post))
		if text == "" || (text == c.Message.Outcome && !final) {
			continue
		}
		m := Closed(c.Message.Text, text)
		if !final && c.By == post.ByAutopilot && post.InGrace(c.Post) {
			m = Cancellable(c.Message.Text, text, c.Post.ID, c.Post.DraftVersion)
		}
		if err := s.edit(ctx, c.Message.ChatID, c.Message.MessageID, m); err != nil {
			return err
		}
		if err := s.cfg.Store.SetTelegramOutcome(ctx, c.Message.ChatID, c.Message.MessageID, text, !final); err != nil {
			return err
		}
	}
	return nil
}

// postURL links a posted reply, "" where the platform has no public page.
func (s *Service) postURL(p post.Post) string {
	return post.WebURL(p.Platform, s.cfg.Handle, p.ResponsePostID)
}

// send sends m to the configured chat, paced, after any window a 429 closed.
func (s *Service) send(ctx context.Context, m Message) (int64, error) {
	return s.sendTo(ctx, s.cfg.Chat, m)
}

// sendTo sends m to chat (a stranger's, for "not allowed") and returns its id.
func (s *Service) sendTo(ctx context.Context, chat int64, m Message) (int64, error) {
	var id int64
	err := s.paced(ctx, func() error {
		var err error
		id, err = s.cfg.Messenger.Send(ctx, chat, m)
		return err
	})
	return id, err
}

// edit edits message id in chat, paced like send.
func (s *Service) edit(ctx context.Context, chat, id int64, m Message) error {
	return s.paced(ctx, func() error { return s.cfg.Messenger.Edit(ctx, chat, id, m) })
}

// paced makes call at most once a pace, never while a window a 429 closed
// (in any process) is shut; a 429 closes it for everyone and call waits.
func (s *Service) paced(ctx context.Context, call func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		until, err := s.cfg.Windows.Reserve(ctx, windowName)
		if err != nil {
			return err
		}
		if wait := until.Sub(s.now()); !until.IsZero() && wait > 0 {
			if !sleep(ctx, wait) {
				return ctx.Err()
			}
			continue
		}
		if wait := pace - s.now().Sub(s.lastSent); wait > 0 && !sleep(ctx, wait) {
			return ctx.Err()
		}
		err = call()
		s.lastSent = s.now()
		var retry *RetryError
		if !errors.As(err, &retry) {
			return err
		}
		// Ceil to whole seconds: the window's reset is kept in seconds.
		reset := s.now().Add(retry.After + time.Second).Unix()
		h := http.Header{}
		h.Set("x-rate-limit-limit", "1")
		h.Set("x-rate-limit-remaining", "0")
		h.Set("x-rate-limit-reset", strconv.FormatInt(reset, 10))
		if err := s.cfg.Windows.Record(ctx, windowName, h); err != nil {
			return fmt.Errorf("telegram: keep the 429's window: %w", err)
		}
		s.log.WarnContext(ctx, "telegram: 429, nothing is sent until the window passes", "retry_after_s", retry.After.Seconds())
	}
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
