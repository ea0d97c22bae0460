// Package pipeline is what the worker does with each task of pkg/tasks: one
// stage per file (scan, profile, draft, send, maintain), each a small type
// holding only the dependencies it uses. New wires them all and Register
// routes every task type to its stage.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/conversation"
	"infernal/pkg/decision"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Config is everything the stages draw from.
type Config struct {
	Store    *store.Store
	Platform platform.Platform
	Writer   writer.Writer
	Queue    *tasks.Client
	Log      *slog.Logger
	Now      func() time.Time
	// Handle is the persona's handle, without the @.
	Handle string
	// Reads decides the gap reads of the search and targeted scans; nil
	// leaves them to the X budget (Spend and Budgets).
	Reads ReadBudget
	// ReplyPolicy says which posts the API may answer (X_REPLY_POLICY).
	ReplyPolicy platform.ReplyPolicy
	// HandPosting are the sources drafted for hand-posting when the API may
	// not answer them (HAND_POSTING_SOURCES).
	HandPosting []post.Source
	// HandPostedEvery is the least time between two looks for hand-posted
	// replies (HAND_POSTED_INTERVAL); DefaultHandPostedEvery when zero.
	HandPostedEvery time.Duration
	// Spend, when set, measures spending against Budgets: scans pause at an
	// X ceiling, sends go on only while they fit, drafts wait at a model ceiling.
	Spend   *spend.Meter
	Budgets spend.Budgets
	// Judge gives the second opinion on every draft; nil takes the
	// Writer's own judge when it has one (both writers do).
	Judge writer.Judge
}

// recentTextsRefresh is how often a worker reads the persona's recent
// texts again for the near-duplicate guard, besides adding its own drafts.
const recentTextsRefresh = time.Second

// Pipeline holds the worker's stages.
type Pipeline struct {
	Scanner    *Scanner
	Profiler   *Profiler
	Drafter    *Drafter
	Sender     *Sender
	Maintainer *Maintainer
}

// New wires every stage from cfg; the stages that need the persona's account
// share one Self, so the platform is asked for it once.
func New(cfg Config) *Pipeline {
	self := NewSelf(cfg.Platform)
	budget := &spend.Gate{Meter: cfg.Spend, Budgets: cfg.Budgets}
	set := &store.SettingsCache{}
	var reads ReadBudget = budget
	if cfg.Reads != nil {
		reads = cfg.Reads
	}
	var pilot *Autopilot
	if cfg.Queue != nil {
		pilot = &Autopilot{Store: cfg.Store, Decider: decision.New(cfg.Store, cfg.Queue, cfg.Handle, cfg.Log),
			Log: cfg.Log, Now: cfg.Now, Budget: budget, Prices: pricesOf(cfg.Spend)}
	}
	judge := cfg.Judge
	if judge == nil {
		judge, _ = cfg.Writer.(writer.Judge)
	}
	return &Pipeline{
		Scanner: &Scanner{Store: cfg.Store, Platform: cfg.Platform, Queue: cfg.Queue, Log: cfg.Log, Self: self,
			Policy: cfg.ReplyPolicy, HandPosting: cfg.HandPosting, Now: cfg.Now,
			Budget: budget, Reads: reads},
		Profiler: &Profiler{Store: cfg.Store, PlatformName: cfg.Platform.Name(), Queue: cfg.Queue, Log: cfg.Log, Handle: cfg.Handle},
		Drafter: &Drafter{Store: cfg.Store, Writer: cfg.Writer, Log: cfg.Log, Handle: cfg.Handle, Budget: budget,
			Settings: set, Recent: NewRecentTexts(recentTextsRefresh), Judge: judge, Now: cfg.Now, Autopilot: pilot,
			Context: &conversation.Gatherer{Store: cfg.Store, Fetch: lookupFetcher{platform: cfg.Platform}, PlatformName: cfg.Platform.Name(),
				Reads: budget, Handle: cfg.Handle}},
		Sender: &Sender{Store: cfg.Store, Platform: cfg.Platform, Log: cfg.Log, Now: cfg.Now, Self: self,
			Budget: budget, Prices: pricesOf(cfg.Spend), Settings: set, Handle: cfg.Handle},
		Maintainer: &Maintainer{Store: cfg.Store, Platform: cfg.Platform, Queue: cfg.Queue, Log: cfg.Log, Now: cfg.Now, Self: self,
			HandPostedEvery: cfg.HandPostedEvery, Budget: budget},
	}
}

// Register routes every task type to its handler.
func (p *Pipeline) Register(mux *asynq.ServeMux) {
	mux.HandleFunc(tasks.TypeScanMentions, p.Scanner.ScanMentions)
	mux.HandleFunc(tasks.TypeScanConversations, p.Scanner.ScanConversations)
	mux.HandleFunc(tasks.TypeScanTargeted, p.Scanner.ScanTargeted)
	mux.HandleFunc(tasks.TypeGenerateProfile, p.Profiler.GenerateProfile)
	mux.HandleFunc(tasks.TypeDraftPost, p.Drafter.DraftPost)
	mux.HandleFunc(tasks.TypeRegeneratePost, p.Drafter.Regenerate)
	mux.HandleFunc(tasks.TypePreviewPersona, p.Drafter.Preview)
	mux.HandleFunc(tasks.TypeSendPost, p.Sender.SendPost)
	mux.HandleFunc(tasks.TypeRefreshMetrics, p.Maintainer.RefreshMetrics)
	mux.HandleFunc(tasks.TypeReconcile, p.Maintainer.Reconcile)
}

// Self is the persona's account on the platform, asked for once and then
// remembered.
type Self struct {
	platform platform.Platform
	mu       sync.Mutex
	me       *platform.User
}

// NewSelf returns a Self that asks p who the persona is.
func NewSelf(p platform.Platform) *Self { return &Self{platform: p} }

// User returns the persona's account, asked of the platform the first time.
func (s *Self) User(ctx context.Context) (platform.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.me != nil {
		return *s.me, nil
	}
	me, err := s.platform.Me(ctx)
	if err != nil {
		return platform.User{}, fmt.Errorf("who am I: %w", err)
	}
	s.me = &me
	return me, nil
}

// pricesOf is the meter's prices, the defaults without one.
func pricesOf(m *spend.Meter) spend.Prices {
	if m == nil {
		return spend.DefaultPrices()
	}
	return m.Prices
}

// pauseFor records a pause of scanning and sending on the platform named
// platformName after the refusal r (err), which concerns its whole account,
// so every process stops calling that platform until the admin resumes; the
// other platforms go on. The task itself ends without a retry.
func pauseFor(ctx context.Context, st *store.Store, log *slog.Logger, platformName string, r platform.Refusal, err error) error {
	p := store.Pause{Platform: platformName, Refusal: string(r), Reason: r.Reason()}
	var pe *platform.Error
	if errors.As(err, &pe) && !pe.RetryAt.IsZero() && r == platform.RefusalUsageCapped {
		// The cap lifts at the reset X announced; the pause with it.
		until := pe.RetryAt
		p.Until = &until
	}
	if perr := st.SetPause(ctx, p); perr != nil {
		return errors.Join(err, perr)
	}
	log.ErrorContext(ctx, "account-wide refusal: scanning and sending paused", "platform", platformName, "refusal", r, "error", err)
	return nil
}

// lastAttempt reports whether asynq will not retry the running task again.
func lastAttempt(ctx context.Context) bool {
	n, ok1 := asynq.GetRetryCount(ctx)
	max, ok2 := asynq.GetMaxRetry(ctx)
	return ok1 && ok2 && n >= max
}
