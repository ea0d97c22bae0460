// Package pipeline is what the worker does with each task of pkg/tasks: one
// stage per file (scan, profile, draft, send, maintain), each a small type
// holding only the dependencies it uses. New wires them all and Register
// routes every task type to its stage.
package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/platform"
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
	// Persona is the persona's handle, without the @.
	Persona string
	// SearchQuery finds the conversations to join.
	SearchQuery string
	// Targets are the handles whose recent posts are answered.
	Targets []string
	// Budget decides the gap reads of the search and targeted scans; nil
	// allows them all.
	Budget ReadBudget
}

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
	return &Pipeline{
		Scanner: &Scanner{Store: cfg.Store, Platform: cfg.Platform, Queue: cfg.Queue, Log: cfg.Log, Self: self,
			SearchQuery: cfg.SearchQuery, Targets: cfg.Targets, Budget: cfg.Budget},
		Profiler:   &Profiler{Store: cfg.Store, PlatformName: cfg.Platform.Name(), Queue: cfg.Queue, Log: cfg.Log, Persona: cfg.Persona},
		Drafter:    &Drafter{Store: cfg.Store, Writer: cfg.Writer, Log: cfg.Log, Persona: cfg.Persona},
		Sender:     &Sender{Store: cfg.Store, Platform: cfg.Platform, Log: cfg.Log, Now: cfg.Now, Self: self},
		Maintainer: &Maintainer{Store: cfg.Store, Platform: cfg.Platform, Queue: cfg.Queue, Log: cfg.Log, Now: cfg.Now},
	}
}

// Register routes every task type to its handler.
func (p *Pipeline) Register(mux *asynq.ServeMux) {
	mux.HandleFunc(tasks.TypeScanMentions, p.Scanner.ScanMentions)
	mux.HandleFunc(tasks.TypeScanConversations, p.Scanner.ScanConversations)
	mux.HandleFunc(tasks.TypeScanTargeted, p.Scanner.ScanTargeted)
	mux.HandleFunc(tasks.TypeGenerateProfile, p.Profiler.GenerateProfile)
	mux.HandleFunc(tasks.TypeDraftPost, p.Drafter.DraftPost)
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

// lastAttempt reports whether asynq will not retry the running task again.
func lastAttempt(ctx context.Context) bool {
	n, ok1 := asynq.GetRetryCount(ctx)
	max, ok2 := asynq.GetMaxRetry(ctx)
	return ok1 && ok2 && n >= max
}
