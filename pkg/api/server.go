// Package api is the web tier: the JSON API under /api, the admin's ops
// pages, and the built frontend, on one chi router (see routes.go).
package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"infernal/pkg/conversation"
	"infernal/pkg/decision"
	"infernal/pkg/guard"
	"infernal/pkg/knowledge"
	"infernal/pkg/learning"
	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/ratelimit"
	"infernal/pkg/retrieval"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// Store is what the web tier reads and changes in the database; *store.Store
// is one. Its errors are the store's: ErrNotFound, and ErrConflict or
// ErrInvalid carrying a *post.StateError or *post.LengthError.
type Store interface {
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Post returns one post by id.
	Post(ctx context.Context, id int64) (post.Post, error)
	// ListPendingOn returns one page of the posts of a source awaiting
	// review on a platform ("" for every one), and their total.
	ListPendingOn(ctx context.Context, source post.Source, platform string, sort post.Sort, page, pageSize int) ([]post.Post, int, error)
	// Store carries out the administrator's decisions.
	decision.Store
	// Decisions returns every decision on a post, oldest first.
	Decisions(ctx context.Context, id int64) ([]post.Decision, error)
	// Telegram returns the Telegram link's state, nil when it never ran.
	Telegram(ctx context.Context) (*store.TelegramState, error)
	// ListSkippedOn returns one page of the posts the guards skipped on a
	// platform ("" for every one), and their total.
	ListSkippedOn(ctx context.Context, platform string, sort post.Sort, page, pageSize int) ([]post.Post, int, error)
	// ListQueuedOn returns one page of the approvals of a platform ("" for
	// every one) waiting for their first send, with the send times the
	// caps decide on.
	ListQueuedOn(ctx context.Context, platform string, page, pageSize int, caps guard.SendCaps) (store.QueuedPage, error)
	// CreateProfileDraft makes a new profile post to be drafted.
	CreateProfileDraft(ctx context.Context, platform, persona string) (int64, error)
	// History returns every version of a post's draft, oldest first.
	History(ctx context.Context, id int64) ([]post.Version, error)
	// LatestVersionID returns the id of a post's newest version, zero when none.
	LatestVersionID(ctx context.Context, id int64) (int64, error)
	// DeleteDraft removes a post still in drafting.
	DeleteDraft(ctx context.Context, id int64) error
	// AdminStatsOn counts what the dashboard shows, of one platform or
	// of every platform ("").
	AdminStatsOn(ctx context.Context, platform string) (store.AdminStats, error)
	// HomeStats gathers the home page's figures as of now.
	HomeStats(ctx context.Context, now time.Time) (store.HomeStats, error)
	// MemorableQuotes returns up to n of the best posted responses.
	MemorableQuotes(ctx context.Context, n int) ([]string, error)
	// LatestPosted returns the most recently posted response.
	LatestPosted(ctx context.Context) (post.Post, error)
	// Logs returns a page of the public log and whether more follow.
	Logs(ctx context.Context, offset, limit int) ([]store.Thread, bool, error)
	// ActivePauses lists the pauses of scanning and sending in force at
	// now, the every-platform one first, then by platform.
	ActivePauses(ctx context.Context, now time.Time) ([]store.Pause, error)
	// TimelinePauses lists the timelines whose scans are paused at now.
	TimelinePauses(ctx context.Context, now time.Time) ([]store.TimelinePause, error)
	// SetPause pauses scanning and sending (Platform "" for every platform).
	SetPause(ctx context.Context, p store.Pause) error
	// Resume lifts every pause of scanning and sending.
	Resume(ctx context.Context) (bool, error)
	// SpendTotals sums what X and the model cost from since, by endpoint and model.
	SpendTotals(ctx context.Context, since time.Time) (spend.Sums, error)
	// AllScanSkips tells, per timeline, what the scans left for later or gave up.
	AllScanSkips(ctx context.Context) ([]store.ScanSkips, error)
	// DecisionEvents returns the drafts and decisions of a range's posts.
	DecisionEvents(ctx context.Context, from, to time.Time, source string) ([]store.DecisionEvent, error)
	// Cases returns a page of the case memory, newest first, searched by q.
	Cases(ctx context.Context, q string, page int) ([]learning.Case, int, error)
	// CasesByID returns the cases of ids still in the memory, in order.
	CasesByID(ctx context.Context, ids []int64) ([]learning.Case, error)
	// DeleteCase takes a case out of the memory.
	DeleteCase(ctx context.Context, id int64) error
	// ImportCases stores checked past replies as approved cases.
	ImportCases(ctx context.Context, cases []store.ImportedCase) (int64, error)
	// LatestMaxLength is the limit in force on platform at its latest
	// draft (its server's own), zero for the platform's default.
	LatestMaxLength(ctx context.Context, platform string) (int, error)
	// Lessons returns every lesson, the most confirmed first.
	Lessons(ctx context.Context) ([]learning.Lesson, error)
	// LessonsByID returns the lessons of ids still stored, in order.
	LessonsByID(ctx context.Context, ids []int64) ([]learning.Lesson, error)
	// Lesson returns one lesson.
	Lesson(ctx context.Context, id int64) (learning.Lesson, error)
	// AddLesson stores a lesson, or raises a near-duplicate's count.
	AddLesson(ctx context.Context, text string, kind learning.LessonKind, source int64) (learning.Lesson, bool, error)
	// UpdateLesson changes a lesson's text or enabled flag.
	UpdateLesson(ctx context.Context, id int64, text *string, enabled *bool) (learning.Lesson, error)
	// DeleteLesson removes a lesson.
	DeleteLesson(ctx context.Context, id int64) error
	// ChunkCandidates returns the knowledge chunks like a text (knowledge.Store).
	knowledge.Store
	// AddDocument stores a knowledge document and its chunks, all or nothing.
	AddDocument(ctx context.Context, title string, bytes int, pieces []knowledge.Piece) (knowledge.Document, error)
	// Documents returns every knowledge document, the newest first.
	Documents(ctx context.Context) ([]knowledge.Document, error)
	// SetDocumentEnabled enables or disables a knowledge document.
	SetDocumentEnabled(ctx context.Context, id int64, enabled bool) (knowledge.Document, error)
	// DeleteDocument removes a knowledge document and its chunks.
	DeleteDocument(ctx context.Context, id int64) error
	// FactsByChunk returns knowledge chunks by id with their documents' titles.
	FactsByChunk(ctx context.Context, ids []int64) ([]knowledge.Fact, error)
	// Settings returns the administrator's settings, the defaults before any were stored.
	Settings(ctx context.Context) (settings.Settings, error)
	// CachedInsights returns the insights of a range computed lately, ok false when none is that fresh.
	CachedInsights(ctx context.Context, k store.InsightsKey, freshAfter time.Time) (store.CachedInsights, bool, error)
	// ComputeInsights computes the insights of a range now, and keeps them.
	ComputeInsights(ctx context.Context, k store.InsightsKey, now time.Time) (store.CachedInsights, error)
	// LookupPost returns what became of a platform post a scan returned.
	LookupPost(ctx context.Context, platform, platformID string) (store.Fate, error)
	// LastScanOf returns the last scan of a timeline.
	LastScanOf(ctx context.Context, platform, name string) (store.LastScan, error)
	// PutSettings replaces the settings with normalised ones.
	PutSettings(ctx context.Context, v settings.Settings) error
	// TargetsNotFound lists the targeted usernames the platform does not know.
	TargetsNotFound(ctx context.Context, platform string) ([]string, error)
	// SettingsAccounts tells the handle and id of each blocked author and target.
	SettingsAccounts(ctx context.Context, targets []string) (blocked, targeted []settings.Account, err error)
	// DraftCounts tells the first drafts written since since and the posts waiting in drafting.
	DraftCounts(ctx context.Context, since time.Time) (drafted, waiting int, err error)
	// SendQueueOf reads the latest send starts and the approvals ahead of
	// post id that caps decide on.
	SendQueueOf(ctx context.Context, id int64, caps guard.SendCaps) (store.SendQueue, error)
	// SendCounts tells how the send caps stand now.
	SendCounts(ctx context.Context) (store.SendCounts, error)
	// Persona returns the persona in use, its newest version.
	Persona(ctx context.Context) (persona.Persona, error)
	// PersonaVersions returns every version of the persona, newest first.
	PersonaVersions(ctx context.Context) ([]persona.Persona, error)
	// PutPersona stores a normalised persona as the newest version.
	PutPersona(ctx context.Context, p persona.Persona) (persona.Persona, error)
	// Store keeps the context posts the card's conversation is read from.
	conversation.Store
}

// BlindModels reads the models found to take no image input, which every
// worker keeps (*tasks.Client is one).
type BlindModels interface {
	// ModelsWithoutImages lists them, with when each was found.
	ModelsWithoutImages(ctx context.Context) (map[string]time.Time, error)
}

// Windows reads the rate-limit windows every process shares.
type Windows interface {
	// Windows lists the windows known, by endpoint.
	Windows(ctx context.Context) ([]ratelimit.Window, error)
	// Margin is how many calls of a window are left unused.
	Margin() int
}

// Auth signs the administrator in and out and checks tokens; *auth.Service
// is one.
type Auth interface {
	// Login exchanges a name and password, from address, for a token.
	Login(ctx context.Context, username, password, address string) (token string, expiresAt time.Time, err error)
	// Logout revokes a token.
	Logout(ctx context.Context, token string) error
	// LogoutAll revokes every session of the admin whose token this is.
	LogoutAll(ctx context.Context, token string) error
	// Authenticate checks that a token is live.
	Authenticate(ctx context.Context, token string) error
}

// Queue is the work the web tier hands to the workers.
type Queue interface {
	// Queue hands the work of the administrator's decisions to the workers.
	decision.Queue
	// EnqueueDraft asks for a post of platform to be drafted.
	EnqueueDraft(ctx context.Context, id int64, platform string) error
	// EnqueuePreview asks a worker for a preview draft, returning the
	// task id its answer is read by.
	EnqueuePreview(ctx context.Context, p tasks.PreviewPayload) (string, error)
	// PreviewResult reads a preview's answer; done is false until a
	// worker has written it.
	PreviewResult(ctx context.Context, id string) (r tasks.PreviewResult, done bool, err error)
	// DropPreview removes a preview nobody waits for any more, unless a
	// worker is writing it.
	DropPreview(ctx context.Context, id string) error
	// EnqueuePeriodicOn runs one of the periodic tasks now, on a platform.
	EnqueuePeriodicOn(ctx context.Context, typ, platform string) error
	// Ping checks that Redis answers.
	Ping(ctx context.Context) error
}

// Config holds the Server's dependencies and settings.
type Config struct {
	Store Store
	Auth  Auth
	Queue Queue
	Log   *slog.Logger
	Now   func() time.Time
	// Handle is the persona's handle, without the @.
	Handle string
	// Handles are the persona's handles where they differ from Handle, by
	// platform (its domain on Bluesky): a thread shows its posts as the
	// persona's by them.
	Handles post.Handles
	// Platform names the platform new profile posts are made for.
	Platform string
	// Platforms are the platforms the persona answers on, in order
	// (config.Platforms); empty means Platform alone. The admin shows its
	// platform filter when there are several.
	Platforms []string
	// StaticDir holds the built frontend; empty or missing serves the API only.
	StaticDir string
	// Ops is mounted at OpsPath behind the admin login (asynqmon); may be nil.
	Ops http.Handler
	// Metrics is served at /metrics behind the admin login or MetricsToken;
	// may be nil.
	Metrics http.Handler
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// GenerateWait is how long a profile generation waits for its draft
	// before answering 202; zero means 8 seconds.
	GenerateWait time.Duration
	// RegenerateWait is how long a regenerate request waits for the new
	// draft before answering 202; zero means DefaultRegenerateWait, and it
	// is kept under RequestTimeout.
	RegenerateWait time.Duration
	// PreviewWait is how long a persona preview waits for a worker's draft
	// before answering 503; zero means DefaultPreviewWait, and it is kept
	// under RequestTimeout.
	PreviewWait time.Duration
	// PublicTTL is how long a public answer is served from memory; zero
	// means DefaultPublicTTL.
	PublicTTL time.Duration
	// BenchCeiling serves GET /api/bench/ceiling/{size}: a constant body
	// of size bytes through the same router and middleware, the ceiling the
	// benchmark compares the public pages with. Off in production.
	BenchCeiling bool
	// PublicURL is the site's origin as browsers see it (config.PublicURL);
	// may be empty. With https, the session cookie is Secure and __Host-
	// prefixed, and answers carry HSTS.
	PublicURL string
	// MetricsToken, when set, is a bearer token that reads /metrics without
	// an admin session (config.MetricsToken).
	MetricsToken string
	// MediaHosts are the only hosts, besides the site, that pages may load
	// images from, over https (config.MediaHosts).
	MediaHosts []string
	// Prices price the cards' sends and the spend report; zero means
	// spend.DefaultPrices.
	Prices spend.Prices
	// Budgets are the spending ceilings the spend report measures against.
	Budgets spend.Budgets
	// Windows are the shared rate-limit windows; nil shows none.
	Windows Windows
	// ModelVision is MODEL_VISION (true, false or auto), shown on the Spend page.
	ModelVision string
	// Blind reads the models found to take no image input; nil shows none.
	Blind BlindModels
	// ModelCalls bounds the model calls of each session (persona previews
	// and regenerations); nil bounds none. The web tier gives it
	// ratelimit.Windows.Sessions: one in flight, 10 a minute.
	ModelCalls ModelCalls
	// Embedder re-ranks the knowledge search's candidates by the
	// provider's embeddings, as the worker's drafts are (EMBEDDINGS_MODEL);
	// nil ranks them by text alone. Its calls count in the model spend
	// (cmd/web gives it the spend meter), and none is made while a model
	// budget is spent.
	Embedder retrieval.Embedder
}

// ModelCalls bounds the model calls a session asks for
// (*ratelimit.Sessions is one).
type ModelCalls interface {
	// Begin takes a call for session, or answers how long until the
	// session may ask again (release nil).
	Begin(ctx context.Context, session string) (release func(context.Context) error, retryAfter time.Duration, err error)
}

// Server answers every HTTP request of the web tier.
type Server struct {
	store Store
	auth  Auth
	queue Queue
	// decide carries out the administrator's decisions, as every channel does.
	decide *decision.Decider
	log    *slog.Logger
	now    func() time.Time
	// personaHandle is the persona's handle, without the @.
	personaHandle string
	// handles are the persona's handles that differ, by platform.
	handles      post.Handles
	platform     string
	prices       spend.Prices
	budgets      spend.Budgets
	windows      Windows
	modelVision  string
	mediaHosts   []string
	blind        BlindModels
	modelCalls   ModelCalls
	embedder     retrieval.Embedder
	generateWait time.Duration
	// regenerateWait bounds the wait for a regenerated draft.
	regenerateWait time.Duration
	// previewWait bounds the wait for a preview draft.
	previewWait time.Duration
	// trustedProxies are the proxies whose X-Forwarded-For names the client.
	trustedProxies []netip.Prefix
	router         http.Handler
	// public caches the public answers (see cache.go).
	public *publicCache
	// ceiling is the constant body of the benchmark's ceiling route; nil
	// when the route is off.
	ceiling []byte

	// publicURL is the site's own origin; httpsPublic is set when it is https.
	publicURL   string
	httpsPublic bool
	// csp is the content security policy every answer carries.
	csp string
	// securityHeaderValues are the headers every answer carries, csp among them.
	securityHeaderValues []headerValue
	// metricsToken is the SHA-256 of the metrics bearer token; nil when unset.
	metricsToken []byte
	// platforms are the platforms configured, Platform's alone by default.
	platforms []string
}

// New returns the web tier's handler.
func New(cfg Config) *Server {
	s := &Server{
		store: cfg.Store, auth: cfg.Auth, queue: cfg.Queue, log: cfg.Log, now: cfg.Now,
		personaHandle: cfg.Handle, handles: cfg.Handles, platform: cfg.Platform, generateWait: cfg.GenerateWait, regenerateWait: cfg.RegenerateWait,
		previewWait:    cfg.PreviewWait,
		trustedProxies: cfg.TrustedProxies, prices: cfg.Prices, budgets: cfg.Budgets, windows: cfg.Windows, modelVision: cfg.ModelVision, blind: cfg.Blind, mediaHosts: cfg.MediaHosts,
		modelCalls: cfg.ModelCalls, embedder: cfg.Embedder,
	}
	s.platforms = cfg.Platforms
	if len(s.platforms) == 0 && cfg.Platform != "" {
		s.platforms = []string{cfg.Platform}
	}
	if s.prices == (spend.Prices{}) {
		s.prices = spend.DefaultPrices()
	}
	s.publicURL, s.httpsPublic = cfg.PublicURL, strings.HasPrefix(cfg.PublicURL, "https://")
	s.csp = contentSecurityPolicy(cfg.MediaHosts)
	s.securityHeaderValues = securityHeaderValues(s.csp)
	if cfg.MetricsToken != "" {
		sum := sha256.Sum256([]byte(cfg.MetricsToken))
		s.metricsToken = sum[:]
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.decide = decision.New(cfg.Store, cfg.Queue, cfg.Handle, s.log, decision.Running(s.platforms))
	ttl := cfg.PublicTTL
	if ttl == 0 {
		ttl = DefaultPublicTTL
	}
	s.public = newPublicCache(ttl, s.now)
	if s.generateWait == 0 {
		s.generateWait = 8 * time.Second
	}
	if s.regenerateWait <= 0 {
		s.regenerateWait = DefaultRegenerateWait
	}
	// The answer must leave before the request's deadline cuts it off.
	s.regenerateWait = min(s.regenerateWait, RequestTimeout-2*time.Second)
	if s.previewWait <= 0 {
		s.previewWait = DefaultPreviewWait
	}
	s.previewWait = min(s.previewWait, RequestTimeout-2*time.Second)
	if cfg.BenchCeiling {
		s.ceiling = bytes.Repeat([]byte{' '}, maxCeiling)
	}
	s.router = s.routes(cfg.StaticDir, cfg.Ops, cfg.Metrics)
	return s
}

// ServeHTTP routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// DefaultRegenerateWait is how long a regenerate request waits for the
// worker's new draft before answering 202, well under RequestTimeout.
const DefaultRegenerateWait = 15 * time.Second

// DefaultPreviewWait is how long a persona preview waits for a worker to
// write its draft before answering 503.
const DefaultPreviewWait = 15 * time.Second

// RequestTimeout is the deadline every request's context carries, below the
// server's WriteTimeout, so that the work of a request whose answer could no
// longer be written is cancelled (and with it its database statements)
// rather than left running.
const RequestTimeout = 20 * time.Second

// writeTimeout is how long the server may take to write an answer.
// Profile generation may wait several seconds for its draft.
const writeTimeout = 30 * time.Second

// NewHTTPServer wraps h in an http.Server with timeouts fit for the API.
func NewHTTPServer(addr string, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
