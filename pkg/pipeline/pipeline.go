// Package pipeline is what the worker does with each task of pkg/tasks: one
// stage per file (scan, profile, draft, send, maintain), each a small type
// holding only the dependencies it uses. New wires them all and Register
// routes every task type to its stage.
package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/conversation"
	"infernal/pkg/decision"
	"infernal/pkg/knowledge"
	"infernal/pkg/learning/shaper"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/retrieval"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Config is everything the stages draw from.
type Config struct {
	Store *store.Store
	// Accounts are the platforms the persona answers on, each with its own
	// scans, cursors and sends; the first takes the runs asked for without
	// a platform and the previews. When empty, the one account of Platform,
	// ReplyPolicy and HandPosting.
	Accounts []Account
	// Platform, ReplyPolicy and HandPosting are the one account when
	// Accounts is empty.
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
	// LearningChars bounds the learned text of one prompt
	// (LEARNING_PROMPT_CHARS); 0 takes the default.
	LearningChars int
	// Embedder re-ranks the learned examples by embeddings
	// (EMBEDDINGS_MODEL); nil ranks them by text alone.
	Embedder retrieval.Embedder
}

// Account is one platform the persona answers on, with the rules that
// differ from one platform to the next.
type Account struct {
	Platform platform.Platform
	// ReplyPolicy says which posts the API may answer there.
	ReplyPolicy platform.ReplyPolicy
	// HandPosting are the sources drafted for hand-posting when the API may
	// not answer them.
	HandPosting []post.Source
	// Handle is the persona's handle there, without the @ (a domain on
	// Bluesky): its own posts in a thread, the mentions of it, the name
	// the writer writes as. Config.Handle when empty.
	Handle string
	// MaxLength is the limit the platform's server announced (Mastodon's
	// max_characters); zero keeps the descriptor's.
	MaxLength int
}

// recentTextsRefresh is how often a worker reads the persona's recent
// texts again for the near-duplicate guard, besides adding its own drafts.
const recentTextsRefresh = time.Second

// Stages are the worker's stages for one platform.
type Stages struct {
	Scanner    *Scanner
	Profiler   *Profiler
	Drafter    *Drafter
	Sender     *Sender
	Maintainer *Maintainer
}

// Pipeline holds the worker's stages for each of its platforms; the
// embedded Stages are the first platform's.
type Pipeline struct {
	*Stages
	store *store.Store
	// byPlatform are every platform's stages by platform name.
	byPlatform map[string]*Stages
}

// New wires every stage from cfg, once per account. What is not a
// platform's own is shared: the budget, the settings cache, the recent
// texts of the near-duplicate guard, the autopilot and the judge. The
// stages of a platform that need the persona's account share one Self,
// so the platform is asked for it once.
func New(cfg Config) *Pipeline {
	accounts := cfg.Accounts
	if len(accounts) == 0 {
		accounts = []Account{{Platform: cfg.Platform, ReplyPolicy: cfg.ReplyPolicy, HandPosting: cfg.HandPosting}}
	}
	budget := &spend.Gate{Meter: cfg.Spend, Budgets: cfg.Budgets}
	set := &store.SettingsCache{}
	recent := NewRecentTexts(recentTextsRefresh)
	var reads ReadBudget = budget
	if cfg.Reads != nil {
		reads = cfg.Reads
	}
	running := make([]string, 0, len(accounts))
	for _, a := range accounts {
		running = append(running, a.Platform.Name())
	}
	var pilot *Autopilot
	if cfg.Queue != nil {
		pilot = &Autopilot{Store: cfg.Store, Decider: decision.New(cfg.Store, cfg.Queue, cfg.Handle, cfg.Log, decision.Running(running)),
			Log: cfg.Log, Now: cfg.Now, Budget: budget, Prices: pricesOf(cfg.Spend)}
	}
	judge := cfg.Judge
	if judge == nil {
		judge, _ = cfg.Writer.(writer.Judge)
	}
	distiller, _ := cfg.Writer.(writer.Distiller)
	learner := &shaper.Shaper{Store: cfg.Store, Persona: cfg.Handle, Chars: cfg.LearningChars, Embedder: cfg.Embedder,
		Distiller: distiller, Now: cfg.Now, Log: cfg.Log}
	facts := &knowledge.Retriever{Store: cfg.Store, Embedder: cfg.Embedder, Log: cfg.Log}
	p := &Pipeline{store: cfg.Store, byPlatform: make(map[string]*Stages, len(accounts))}
	for i, a := range accounts {
		self := NewSelf(a.Platform)
		name := a.Platform.Name()
		handle := cmp.Or(a.Handle, cfg.Handle)
		log := cfg.Log
		if len(accounts) > 1 {
			log = log.With("platform", name)
		}
		st := &Stages{
			Scanner: &Scanner{Store: cfg.Store, Platform: a.Platform, Queue: cfg.Queue, Log: log, Self: self,
				Policy: a.ReplyPolicy, HandPosting: a.HandPosting, Now: cfg.Now,
				Budget: budget, Reads: reads},
			Profiler: &Profiler{Store: cfg.Store, PlatformName: name, Queue: cfg.Queue, Log: log, Handle: handle},
			Drafter: &Drafter{Store: cfg.Store, Writer: cfg.Writer, Log: log, Handle: handle, Budget: budget,
				Settings: set, Recent: recent, Judge: judge, Now: cfg.Now, Autopilot: pilot, Learning: learner, Knowledge: facts, MaxLength: a.MaxLength,
				Users: a.Platform,
				Context: &conversation.Gatherer{Store: cfg.Store, Fetch: lookupFetcher{platform: a.Platform}, PlatformName: name,
					Reads: budget, Handle: handle}},
			Sender: &Sender{Store: cfg.Store, Platform: a.Platform, Log: log, Now: cfg.Now, Self: self,
				Budget: budget, Prices: pricesOf(cfg.Spend), Settings: set, Handle: handle},
			Maintainer: &Maintainer{Store: cfg.Store, Platform: a.Platform, Queue: cfg.Queue, Log: log, Now: cfg.Now, Self: self,
				HandPostedEvery: cfg.HandPostedEvery, Budget: budget,
				// The insights are the persona's, not a platform's: the first platform computes them.
				SkipInsights: i > 0},
		}
		if i == 0 {
			p.Stages = st
			// Lessons are the persona's too: the first platform's reconcile distils them.
			st.Maintainer.Learning = learner
		}
		p.byPlatform[name] = st
	}
	return p
}

// Register routes every task type to its handler: a periodic task to the
// stages of the platform its payload names (the first platform's when it
// names none), a post's task to the stages of the post's platform.
func (p *Pipeline) Register(mux *asynq.ServeMux) {
	mux.HandleFunc(tasks.TypeScanMentions, p.byTask(func(s *Stages) asynq.HandlerFunc { return s.Scanner.ScanMentions }))
	mux.HandleFunc(tasks.TypeScanConversations, p.byTask(func(s *Stages) asynq.HandlerFunc { return s.Scanner.ScanConversations }))
	mux.HandleFunc(tasks.TypeScanTargeted, p.byTask(func(s *Stages) asynq.HandlerFunc { return s.Scanner.ScanTargeted }))
	mux.HandleFunc(tasks.TypeGenerateProfile, p.byTask(func(s *Stages) asynq.HandlerFunc { return s.Profiler.GenerateProfile }))
	mux.HandleFunc(tasks.TypeDraftPost, p.byDraft(func(s *Stages) asynq.HandlerFunc { return s.Drafter.DraftPost }))
	mux.HandleFunc(tasks.TypeRegeneratePost, p.byPost(func(s *Stages) asynq.HandlerFunc { return s.Drafter.Regenerate }))
	// A preview answers a text given by the administrator: no platform is read.
	mux.HandleFunc(tasks.TypePreviewPersona, p.Drafter.Preview)
	mux.HandleFunc(tasks.TypeSendPost, p.byPost(func(s *Stages) asynq.HandlerFunc { return s.Sender.SendPost }))
	mux.HandleFunc(tasks.TypeRefreshMetrics, p.byTask(func(s *Stages) asynq.HandlerFunc { return s.Maintainer.RefreshMetrics }))
	// Reconcile queues lost work of every platform again, from the database alone.
	mux.HandleFunc(tasks.TypeReconcile, p.Maintainer.Reconcile)
}

// ErrOtherPlatform is the error of a task for a platform this worker does
// not run (PLATFORM changed while it waited): it is archived, not retried.
var ErrOtherPlatform = errors.New("task for a platform this worker does not run")

// stagesOf returns the stages of the platform named, the first
// platform's (the embedded Stages) when name is empty or names it.
func (p *Pipeline) stagesOf(name string) (*Stages, error) {
	if name == "" || name == p.Scanner.Platform.Name() {
		return p.Stages, nil
	}
	s, ok := p.byPlatform[name]
	if !ok {
		return nil, fmt.Errorf("pipeline: %w: %q: %w", ErrOtherPlatform, name, asynq.SkipRetry)
	}
	return s, nil
}

// byTask routes a periodic task by the platform its payload names.
func (p *Pipeline) byTask(h func(*Stages) asynq.HandlerFunc) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		name, err := tasks.DecodePeriodic(t)
		if err != nil {
			return err
		}
		s, err := p.stagesOf(name)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Type(), err)
		}
		return h(s)(ctx, t)
	}
}

// byPost routes a post's task (regenerate, send, or a draft queued
// without its platform) by the post's platform, read from its row. With one platform nothing is read; a payload that names no
// post, or a post that is gone, goes to the first platform's stage, which
// answers it as it answers any.
func (p *Pipeline) byPost(h func(*Stages) asynq.HandlerFunc) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		if len(p.byPlatform) == 1 {
			return h(p.Stages)(ctx, t)
		}
		var payload struct {
			PostID int64 `json:"post_id"`
		}
		if json.Unmarshal(t.Payload(), &payload) != nil || payload.PostID <= 0 {
			return h(p.Stages)(ctx, t)
		}
		name, err := p.store.PostPlatform(ctx, payload.PostID)
		if errors.Is(err, store.ErrNotFound) {
			return h(p.Stages)(ctx, t)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.Type(), err)
		}
		s, err := p.stagesOf(name)
		if err != nil {
			return fmt.Errorf("%s %d: %w", t.Type(), payload.PostID, err)
		}
		return h(s)(ctx, t)
	}
}

// byDraft routes a draft task by the platform its payload names
// (tasks.DecodePost), reading nothing from the database. A draft task
// queued before payloads named the platform is routed by the post's row,
// as byPost routes any post's task; a payload DecodePost refuses goes to
// the first platform's stage, which refuses it the same way.
func (p *Pipeline) byDraft(h func(*Stages) asynq.HandlerFunc) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		if len(p.byPlatform) == 1 {
			return h(p.Stages)(ctx, t)
		}
		payload, err := tasks.DecodePost(t)
		if err != nil {
			return h(p.Stages)(ctx, t)
		}
		if payload.Platform == "" {
			return p.byPost(h)(ctx, t)
		}
		s, err := p.stagesOf(payload.Platform)
		if err != nil {
			return fmt.Errorf("%s %d: %w", t.Type(), payload.PostID, err)
		}
		return h(s)(ctx, t)
	}
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
