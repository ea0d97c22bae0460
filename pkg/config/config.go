// Package config reads the processes' settings from the environment, once, at
// start. A bad value stops the process with a message that names the variable.
package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"infernal/pkg/atproto"
	"infernal/pkg/post"
	"infernal/pkg/spend"
)

// Writer choices. The platforms' names are the descriptors' of pkg/post
// (post.Descriptors), the one list of them.
const (
	WriterOffline = "offline"
	WriterOpenAI  = "openai"
)

// Process names the command that loads the configuration. Each reads and
// requires only what it uses, so that a secret lives only in the process
// that needs it: the admin password and the metrics token in the web tier,
// the X and model credentials in the worker.
type Process string

// The three commands.
const (
	Web       Process = "web"
	Worker    Process = "worker"
	Scheduler Process = "scheduler"
)

// The values of MODEL_VISION.
const (
	// VisionAuto sends images until the model refuses them, then drafts
	// without them (remembered per model); the default.
	VisionAuto = "auto"
	// VisionOn always sends images.
	VisionOn = "true"
	// VisionOff never sends images; their descriptions still go in the prompt.
	VisionOff = "false"
)

// Config is every setting of the web, worker and scheduler processes.
type Config struct {
	DatabaseURL string
	// DatabaseMaxConns is how many PostgreSQL connections one process may
	// hold. The web tier gives a fixed share of them to the public read path
	// and keeps the rest for the admin API and the health checks.
	DatabaseMaxConns int
	RedisURL         string
	HTTPAddr         string
	// MetricsAddr is where Prometheus /metrics is served without login, on a
	// listener of its own: the worker's task metrics (default
	// 127.0.0.1:9091), the web tier's queue metrics when set (unset, the
	// web tier serves them at /metrics behind the admin login or
	// MetricsToken). Empty in the scheduler.
	MetricsAddr string
	StaticDir   string
	LogLevel    string

	AdminUsername string
	AdminPassword string
	SessionTTL    time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed when telling clients apart for login throttling.
	TrustedProxies []netip.Prefix

	// AdminPasswordFile is where a generated admin password is written
	// (owner-only), so that it never enters the log.
	AdminPasswordFile string
	// PublicURL is the site's origin as browsers see it (scheme://host[:port],
	// no trailing slash); with https, the session cookie is Secure and
	// __Host- prefixed and answers carry HSTS. Empty when unset.
	PublicURL string

	PersonaHandle string
	// Platforms are the platforms the persona answers on (PLATFORM, a
	// comma-separated list: sandbox alone, or x and bluesky in any
	// combination), in the order given; every process reads the same list.
	Platforms []string
	// Platform is the first of Platforms: the one the web tier names where
	// an answer concerns a single platform (a hand-made profile draft, a
	// lookup of a post id without a platform).
	Platform      string
	XAPIBaseURL   string
	XAPIKey       string
	XAPISecret    string
	XAccessToken  string
	XAccessSecret string
	// BlueskyHandle is the persona's Bluesky handle (a domain) or DID (read
	// by every process: the web tier and Telegram's cards tell the
	// persona's posts by it), BlueskyAppPassword an app password of that
	// account, BlueskyPDSURL its PDS (worker only, PLATFORM names bluesky).
	BlueskyHandle      string
	BlueskyAppPassword string
	BlueskyPDSURL      string
	// MastodonServer is the persona's Mastodon server (https; http only on
	// loopback), MastodonAccessToken a token of the persona's account with
	// the read and write:statuses scopes (worker only, PLATFORM names
	// mastodon). Whether a direct mention is answered is the admin's
	// setting platforms.mastodon.reply_to_direct, not the environment's.
	MastodonServer      string
	MastodonAccessToken string
	// SandboxPace is how often the sandbox's mortals post something new.
	SandboxPace time.Duration

	// Writer (WRITER) is the worker's writer; the web tier reads it, with
	// OpenAIBaseURL and OpenAIAPIKey, only when EmbeddingsModel is set, to
	// rank as the worker does (see Embeddings).
	Writer string
	// Telegram is the review channel in Telegram; worker only.
	Telegram      Telegram
	OpenAIBaseURL string
	OpenAIAPIKey  string
	// OpenAIModel is the chat model; worker only.
	OpenAIModel string
	// EmbeddingsModel (EMBEDDINGS_MODEL), when set with WRITER=openai,
	// re-ranks the learned examples and the knowledge base's facts by the
	// provider's /v1/embeddings on OPENAI_BASE_URL, in the worker's drafts
	// and the web tier's knowledge search; "" ranks them by PostgreSQL's
	// text search and trigram similarity alone. Worker and web.
	EmbeddingsModel string
	// LearningPromptChars (LEARNING_PROMPT_CHARS) bounds the learned
	// examples and lessons of one prompt, in characters. Worker only.
	LearningPromptChars int

	// TargetUsernames, SearchTopics, BlockedAuthors, BlockedPhrases and
	// Caps seed the administrator's settings (worker only): the first
	// worker to start stores them in PostgreSQL, where the admin edits them
	// afterwards; later starts change nothing.
	TargetUsernames []string
	SearchTopics    []string
	BlockedAuthors  []string
	BlockedPhrases  []string
	Caps            Caps

	Schedules Schedules

	// Deployment settings, read by the process that uses them only.

	// Process is the command that loaded this configuration.
	Process Process
	// MetricsToken, when set (web only), lets a bearer of it read the web
	// tier's /metrics without an admin session, for Prometheus.
	MetricsToken string
	// AsynqmonReadOnly (ASYNQMON_READ_ONLY, web only) mounts the queue
	// dashboard view-only: no task can be deleted, run or archived from it
	// unless the operator writes "false".
	AsynqmonReadOnly bool
	// MediaHosts are the hosts the admin's pages may load images from
	// (avatars, media previews), over https; the content security policy
	// allows no other.
	MediaHosts []string
	// ModelVision (MODEL_VISION: true, false or auto) says whether drafts
	// send the images of the posts they answer to the model: the worker
	// sends them, the web tier shows it on the Spend page.
	ModelVision string
	// ReplyPolicy is X_REPLY_POLICY: ReplySummoned (X's 2026 self-serve
	// rule: the API answers only posts that mention or quote the persona)
	// or ReplyOpen (Enterprise apps). The sandbox follows it too.
	ReplyPolicy string
	// HandPosting lists the sources (HAND_POSTING_SOURCES) whose posts the
	// API may not answer are still drafted, to be posted by hand.
	HandPosting []string
	// HandPostedInterval (HAND_POSTED_INTERVAL) is the least time between
	// two looks for hand-posted replies on the persona's timeline, across
	// every worker.
	HandPostedInterval time.Duration
	// RateLimitMargin is how many calls of an X rate-limit window are left
	// unused: a window with this many remaining counts as closed.
	RateLimitMargin int
	// WorkerConcurrency (WORKER_CONCURRENCY) is how many tasks one worker
	// process runs at once.
	WorkerConcurrency int
	// ModelConcurrency (MODEL_CONCURRENCY) is how many model calls one
	// worker process has in flight at once; the rest of its drafts wait
	// for a slot, holding no database connection.
	ModelConcurrency int
	// XMaxResults is max_results of X's timeline and search reads.
	XMaxResults int
	// Prices are the unit prices of X's pay-per-use billing and of the model.
	Prices spend.Prices
	// Budgets are the spending ceilings (0 means none), DefaultBudgets
	// unless set.
	Budgets spend.Budgets
	// Unbounded names the budget variables set to "none" (or 0): each
	// process logs a warning for each at start (see WarnUnbounded).
	Unbounded []string
	// BenchCeiling serves the benchmark's ceiling route (see pkg/api); only
	// `make bench` turns it on.
	BenchCeiling bool
}

// DefaultBudgets are the ceilings of a process given no budget: $2 a
// day and $40 a month of X (400 post reads a day), $1 a day and $20 a month
// of the model (some 2,000 gpt-4o-mini drafts a day). The monthly ceilings
// are 20 days of the daily ones, so that a month of days at the ceiling is
// stopped before it ends.
func DefaultBudgets() spend.Budgets {
	return spend.Budgets{XDaily: 2, XMonthly: 40, ModelDaily: 1, ModelMonthly: 20}
}

// Caps seed the reply, send and near-duplicate caps; 0 takes the
// settings' default (see settings.DefaultCaps).
type Caps struct {
	PerConversation int
	PerAuthorPerDay int
	SendsPer3Hours  int
	SendsPerDay     int
	NearDuplicate   float64
	DraftsPerHour   int
}

// maxDraftsPerHour bounds DRAFT_CAP_PER_HOUR (settings.MaxDraftsPerHour).
const maxDraftsPerHour = 100000

// DefaultSearchTopics are SEARCH_TOPICS' default, the topics of the search
// the conversation scan made before topics were managed.
const DefaultSearchTopics = "monday,coffee,deadline,gym"

// maxTopicLength is the longest search topic (settings.MaxTopicLength).
const maxTopicLength = 100

// DATABASE_MAX_CONNS' default for the web tier and the scheduler, and its
// bound.
const (
	defaultMaxConns = 10
	maxConns        = 500
)

// maxCap bounds every count cap, as the settings do.
const maxCap = 1000

// Reply policies (X_REPLY_POLICY).
const (
	ReplySummoned = "summoned"
	ReplyOpen     = "open"
)

// Schedules holds one cron spec per periodic task.
type Schedules struct {
	Mentions      string
	Conversations string
	Targeted      string
	Profile       string
	Metrics       string
	Reconcile     string
}

// handlePattern is what the platform allows in a handle.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)

// Load reads the configuration of the process proc through getenv
// (os.Getenv in production) and validates it. The error lists every bad
// variable by name.
func Load(proc Process, getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	// On X every read is billed: the schedules and page sizes default to the
	// economical ones (README's configuration table gives their cost).
	onX := slices.Contains(platformChoices(getenv), post.XPlatform)
	c := Config{
		DatabaseURL:      r.url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/infernal?sslmode=disable", "postgres", "postgresql"),
		DatabaseMaxConns: r.integer("DATABASE_MAX_CONNS", defaultMaxConns, 3, maxConns),
		RedisURL:         r.redisURL("REDIS_URL", "redis://127.0.0.1:6379/0"),
		HTTPAddr:         r.addr("HTTP_ADDR", ":8080"),
		StaticDir:        r.str("STATIC_DIR", "frontend/dist"),
		LogLevel:         r.oneOf("LOG_LEVEL", "info", "debug", "info", "warn", "error"),
		AdminUsername:    r.str("ADMIN_USERNAME", "admin"),
		SessionTTL:       r.duration("SESSION_TTL", 12*time.Hour, time.Minute),
		PersonaHandle:    r.handle("PERSONA_HANDLE", "infernal_ai"),
		XAPIBaseURL:      r.url("X_API_BASE_URL", "https://api.x.com", "http", "https"),
		SandboxPace:      r.duration("SANDBOX_PACE", 20*time.Second, time.Second),
		Schedules: Schedules{
			// Every 20 s: a poll with since_id that finds nothing costs nothing on
			// X, and 45 polls in 15 minutes stay well inside the 300 allowed;
			// a new mention reaches the review within a minute.
			Mentions:      r.cron("SCHEDULE_MENTIONS", "@every 20s"),
			Conversations: r.cron("SCHEDULE_CONVERSATIONS", pick(onX, "@every 1h", "@every 10m")),
			Targeted:      r.cron("SCHEDULE_TARGETED", pick(onX, "@every 2h", "@every 15m")),
			Profile:       r.cron("SCHEDULE_PROFILE", "@every 6h"),
			Metrics:       r.cron("SCHEDULE_METRICS", "@every 10m"),
			Reconcile:     r.cron("SCHEDULE_RECONCILE", "@every 1m"),
		},
	}
	c.XMaxResults = r.integer("X_MAX_RESULTS", pickInt(onX, 10, 100), 10, 100)
	c.TrustedProxies = r.prefixes("TRUSTED_PROXIES")
	c.AdminPasswordFile = r.str("ADMIN_PASSWORD_FILE", "admin-password")
	c.PublicURL = r.origin("PUBLIC_URL")
	c.BenchCeiling = r.oneOf("BENCH_CEILING", "off", "off", "on") == "on"
	c.ReplyPolicy = r.oneOf("X_REPLY_POLICY", ReplySummoned, ReplySummoned, ReplyOpen)
	c.ModelVision = r.oneOf("MODEL_VISION", VisionAuto, VisionAuto, VisionOn, VisionOff)
	c.HandPosting = r.sources("HAND_POSTING_SOURCES", "conversation,targeted")
	c.HandPostedInterval = r.duration("HAND_POSTED_INTERVAL", 5*time.Minute, time.Second)
	c.RateLimitMargin = r.integer("X_RATE_LIMIT_MARGIN", 1, 0, 1000)
	c.Prices = spend.Prices{
		PostRead:           r.money("X_PRICE_POST_READ", 0.005),
		UserRead:           r.money("X_PRICE_USER_READ", 0.010),
		OwnedRead:          r.money("X_PRICE_OWNED_READ", 0.001),
		MediaRead:          r.money("X_PRICE_MEDIA_READ", 0.005),
		PostCreate:         r.money("X_PRICE_POST_CREATE", 0.015),
		PostCreateSummoned: r.money("X_PRICE_POST_CREATE_SUMMONED", 0.010),
		PostCreateURL:      r.money("X_PRICE_POST_CREATE_URL", 0.20),
		PromptPerM:         r.money("OPENAI_PROMPT_USD_PER_MILLION", 0.15),
		CompletionPerM:     r.money("OPENAI_COMPLETION_USD_PER_MILLION", 0.60),
		RepliesSummon:      c.ReplyPolicy == ReplySummoned,
	}
	def := DefaultBudgets()
	c.Budgets = spend.Budgets{
		XDaily:       r.budget("X_DAILY_BUDGET_USD", def.XDaily, &c.Unbounded),
		XMonthly:     r.budget("X_MONTHLY_BUDGET_USD", def.XMonthly, &c.Unbounded),
		ModelDaily:   r.budget("MODEL_DAILY_BUDGET_USD", def.ModelDaily, &c.Unbounded),
		ModelMonthly: r.budget("MODEL_MONTHLY_BUDGET_USD", def.ModelMonthly, &c.Unbounded),
	}

	// Every process agrees on the platform: it is named, never guessed from
	// credentials that only the worker is given.
	c.Platforms = r.platforms("PLATFORM")
	c.Platform = c.Platforms[0]
	c.BlueskyHandle = strings.TrimPrefix(r.str("BLUESKY_HANDLE", ""), "@")
	if c.BlueskyHandle != "" {
		if err := atproto.ValidateHandle(c.BlueskyHandle); err != nil {
			r.fail("BLUESKY_HANDLE", "must be a handle (a domain) or a DID: %q is neither", c.BlueskyHandle)
		}
	}
	c.loadDeployment(proc, &r)
	if c.AdminUsername == "" {
		r.fail("ADMIN_USERNAME", "must not be empty")
	}
	if err := errors.Join(r.errs...); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// loadDeployment reads what only one process uses: the web tier's admin
// password, metrics token and media hosts, the worker's credentials and
// writer. Another process's secrets are not read at all.
func (c *Config) loadDeployment(proc Process, r *reader) {
	c.Process = proc
	switch proc {
	case Web:
		c.AdminPassword = r.str("ADMIN_PASSWORD", "")
		if c.AdminPassword != "" && len(c.AdminPassword) < 8 {
			r.fail("ADMIN_PASSWORD", "must be at least 8 characters")
		}
		c.MetricsAddr = r.addr("METRICS_ADDR", "")
		c.MetricsToken = r.str("METRICS_TOKEN", "")
		if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
			r.fail("METRICS_TOKEN", "must be at least 16 characters")
		}
		// Unset, the admin may load the images of the platforms it runs
		// (each descriptor's MediaHosts).
		var def []string
		for _, name := range c.Platforms {
			def = append(def, post.DescriptorOf(name).MediaHosts...)
		}
		c.MediaHosts = r.hosts("MEDIA_HOSTS", def)
		c.AsynqmonReadOnly = r.oneOf("ASYNQMON_READ_ONLY", "true", "true", "false") == "true"
		// The model's address and key only for the knowledge search's
		// embeddings: without EMBEDDINGS_MODEL the web tier reads neither.
		c.EmbeddingsModel = r.str("EMBEDDINGS_MODEL", "")
		if c.EmbeddingsModel != "" {
			c.loadProvider(r)
		}
	case Worker:
		c.loadSeeds(r)
		c.loadConcurrency(r)
		c.MetricsAddr = r.addr("METRICS_ADDR", "127.0.0.1:9091")
		c.XAPIKey = r.str("X_API_KEY", "")
		c.XAPISecret = r.str("X_API_SECRET", "")
		c.XAccessToken = r.str("X_ACCESS_TOKEN", "")
		c.XAccessSecret = r.str("X_ACCESS_SECRET", "")
		xCreds := c.XAPIKey != "" || c.XAPISecret != "" || c.XAccessToken != "" || c.XAccessSecret != ""
		if xCreds && r.str("PLATFORM", "") == "" {
			r.fail("PLATFORM", "must be set (x or sandbox) when X credentials are given; the web tier is told the platform by name too")
		}
		if c.Runs(post.XPlatform) {
			for _, v := range []struct{ name, value string }{{"X_API_KEY", c.XAPIKey}, {"X_API_SECRET", c.XAPISecret}, {"X_ACCESS_TOKEN", c.XAccessToken}, {"X_ACCESS_SECRET", c.XAccessSecret}} {
				if v.value == "" {
					r.fail(v.name, "is required when PLATFORM names x")
				}
			}
		}
		c.loadBluesky(r)
		c.loadMastodon(r)
		c.loadProvider(r)
		c.OpenAIModel = r.str("OPENAI_MODEL", "gpt-4o-mini")
		c.EmbeddingsModel = r.str("EMBEDDINGS_MODEL", "")
		c.LearningPromptChars = r.integer("LEARNING_PROMPT_CHARS", DefaultLearningPromptChars, 200, 20000)
		c.loadTelegram(r)
	case Scheduler:
	default:
		r.fail("process", "%q is not one of web, worker, scheduler", string(proc))
	}
}

// loadProvider reads the model provider's address and key and the writer
// they choose: openai when either is set, unless WRITER says otherwise,
// on OpenAI's API when no address is given.
func (c *Config) loadProvider(r *reader) {
	c.OpenAIBaseURL = r.url("OPENAI_BASE_URL", "", "http", "https")
	c.OpenAIAPIKey = r.str("OPENAI_API_KEY", "")
	modelSet := c.OpenAIAPIKey != "" || c.OpenAIBaseURL != ""
	c.Writer = r.oneOf("WRITER", pick(modelSet, WriterOpenAI, WriterOffline), WriterOffline, WriterOpenAI)
	if c.Writer == WriterOpenAI && c.OpenAIBaseURL == "" {
		c.OpenAIBaseURL = "https://api.openai.com/v1"
	}
}

// Embeddings reports whether the provider's embeddings re-rank the
// learned examples and the knowledge base's facts: EMBEDDINGS_MODEL set
// with the openai writer, the same in the worker and the web tier.
func (c Config) Embeddings() bool {
	return c.EmbeddingsModel != "" && c.Writer == WriterOpenAI
}

// loadMastodon reads the worker's Mastodon settings: required, and
// checked, when PLATFORM names mastodon; a token without PLATFORM stops
// the start, as X's and Bluesky's credentials do.
func (c *Config) loadMastodon(r *reader) {
	c.MastodonServer = strings.TrimRight(r.str("MASTODON_SERVER", ""), "/")
	c.MastodonAccessToken = r.str("MASTODON_ACCESS_TOKEN", "")
	if r.str("MASTODON_REPLY_TO_DIRECT", "") != "" {
		// A value set by hand would silently stop mattering: say so, and where it went.
		r.fail("MASTODON_REPLY_TO_DIRECT", "is no longer read: whether a direct mention is answered is the admin's setting platforms.mastodon.reply_to_direct (Settings, or PUT /api/settings), read at every scan and send; set it there, then unset MASTODON_REPLY_TO_DIRECT")
	}
	if c.MastodonAccessToken != "" && r.str("PLATFORM", "") == "" {
		r.fail("PLATFORM", "must be set (mastodon, or a list naming it) when a Mastodon token is given; the web tier is told the platform by name too")
	}
	if c.MastodonServer != "" {
		if u, err := url.Parse(c.MastodonServer); err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" ||
			(u.Scheme != "https" && (u.Scheme != "http" || !loopbackHost(u.Hostname()))) {
			r.fail("MASTODON_SERVER", "must be the server's https address (https://mastodon.example; http only on a loopback address), got %q", redact(c.MastodonServer))
		}
	}
	if !c.Runs(post.MastodonPlatform) {
		return
	}
	if c.MastodonServer == "" {
		r.fail("MASTODON_SERVER", "is required when PLATFORM names mastodon (the persona's server, like https://mastodon.social)")
	}
	if strings.TrimSpace(c.MastodonAccessToken) == "" {
		r.fail("MASTODON_ACCESS_TOKEN", "is required when PLATFORM names mastodon (a token with the read and write:statuses scopes)")
	} else if strings.ContainsAny(c.MastodonAccessToken, " \t\r\n") {
		// The value itself is never repeated: it is a secret.
		r.fail("MASTODON_ACCESS_TOKEN", "must be one token, without spaces")
	}
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// loadBluesky reads the worker's Bluesky settings: required, and checked,
// when PLATFORM=bluesky; credentials without PLATFORM stop the start, as X's do.
func (c *Config) loadBluesky(r *reader) {
	c.BlueskyAppPassword = r.str("BLUESKY_APP_PASSWORD", "")
	c.BlueskyPDSURL = strings.TrimRight(r.str("BLUESKY_PDS_URL", atproto.DefaultPDSURL), "/")
	if (c.BlueskyHandle != "" || c.BlueskyAppPassword != "") && r.str("PLATFORM", "") == "" {
		r.fail("PLATFORM", "must be set (bluesky, x or sandbox) when Bluesky credentials are given; the web tier is told the platform by name too")
	}
	if err := atproto.ValidatePDSURL(c.BlueskyPDSURL); err != nil {
		r.fail("BLUESKY_PDS_URL", "must be the PDS's address: %v", err)
	}
	if !c.Runs(post.BlueskyPlatform) {
		return
	}
	if c.BlueskyHandle == "" {
		r.fail("BLUESKY_HANDLE", "is required when PLATFORM names bluesky (the persona's handle, like infernal.bsky.social)")
	}
	if c.BlueskyAppPassword == "" {
		r.fail("BLUESKY_APP_PASSWORD", "is required when PLATFORM names bluesky (an app password, never the account password)")
	} else if err := atproto.ValidateAppPassword(c.BlueskyAppPassword); err != nil {
		// The value itself is never repeated: it is a secret.
		r.fail("BLUESKY_APP_PASSWORD", "%v", err)
	}
}

// platforms reads PLATFORM: sandbox (the default), or a comma-separated
// list of the table's real platforms ("x,bluesky"), each named once. The
// sandbox (a Simulated descriptor) is a platform of its own and is never
// combined with a real one.
func (r *reader) platforms(name string) []string {
	v := r.str(name, post.SandboxPlatform)
	var out []string
	for _, part := range strings.Split(v, ",") {
		p := strings.ToLower(strings.TrimSpace(part))
		switch {
		case !post.ValidPlatform(p):
			r.fail(name, "must be %s or a list of %s (comma-separated), got %q", strings.Join(post.Platforms(), ", "), strings.Join(realPlatforms(), ", "), v)
			return []string{post.SandboxPlatform}
		case slices.Contains(out, p):
			r.fail(name, "names %s twice in %q", p, v)
			return []string{post.SandboxPlatform}
		}
		out = append(out, p)
	}
	if len(out) > 1 && slices.ContainsFunc(out, func(p string) bool { return post.DescriptorOf(p).Simulated }) {
		r.fail(name, "cannot combine the sandbox with a real platform (%q): run sandbox alone, or a list of %s", v, strings.Join(realPlatforms(), ", "))
		return []string{post.SandboxPlatform}
	}
	return out
}

// realPlatforms are the names of the table's platforms that are not
// simulated, in its order.
func realPlatforms() []string {
	var out []string
	for _, d := range post.Descriptors() {
		if !d.Simulated {
			out = append(out, d.Name)
		}
	}
	return out
}

// Handles are the persona's handles where they differ from PersonaHandle,
// by platform: on Bluesky, BLUESKY_HANDLE when it is a handle (a domain).
// Given as a DID, PersonaHandle stands in for it.
func (c Config) Handles() post.Handles {
	out := post.Handles{}
	if c.BlueskyHandle != "" && !strings.HasPrefix(c.BlueskyHandle, "did:") {
		out[post.BlueskyPlatform] = c.BlueskyHandle
	}
	return out
}

// Runs reports whether the persona answers on the platform named.
func (c Config) Runs(name string) bool { return slices.Contains(c.Platforms, name) }

// Worker concurrency bounds.
const (
	// DefaultWorkerConcurrency is WORKER_CONCURRENCY's default.
	DefaultWorkerConcurrency = 32
	// DefaultLearningPromptChars is LEARNING_PROMPT_CHARS' default.
	DefaultLearningPromptChars = 2000
	// DefaultModelConcurrency is MODEL_CONCURRENCY's default.
	DefaultModelConcurrency = 16
	// maxConcurrency bounds both.
	maxConcurrency = 1000
	// periodicConns are the worker's connections kept for its periodic
	// work (scans, reconcile, metrics) beside the tasks.
	periodicConns = 2
)

// loadConcurrency reads WORKER_CONCURRENCY and MODEL_CONCURRENCY and,
// when DATABASE_MAX_CONNS is unset, sizes the worker's pool after them:
// the tasks that are not waiting for the model, plus periodicConns, and
// never fewer than the other processes' default of 10. A draft waiting
// for the model holds no connection.
func (c *Config) loadConcurrency(r *reader) {
	c.WorkerConcurrency = r.integer("WORKER_CONCURRENCY", DefaultWorkerConcurrency, 1, maxConcurrency)
	c.ModelConcurrency = r.integer("MODEL_CONCURRENCY", DefaultModelConcurrency, 1, maxConcurrency)
	if c.ModelConcurrency > c.WorkerConcurrency {
		r.fail("MODEL_CONCURRENCY", "(%d) must not be more than WORKER_CONCURRENCY (%d): a task makes one model call at a time", c.ModelConcurrency, c.WorkerConcurrency)
	}
	if r.str("DATABASE_MAX_CONNS", "") == "" {
		c.DatabaseMaxConns = min(max(defaultMaxConns, c.WorkerConcurrency-c.ModelConcurrency+periodicConns), maxConns)
	}
}

// loadSeeds reads the worker's seeds of the administrator's settings.
func (c *Config) loadSeeds(r *reader) {
	if r.str("SEARCH_QUERY", "") != "" {
		// A query set by hand would silently stop mattering: say so, and how to keep it.
		r.fail("SEARCH_QUERY", "is no longer read: the search is built from topics. Set SEARCH_TOPICS to its words or phrases, comma-separated (e.g. monday,coffee,\"cold brew\" without the quotes), or edit the topics in the admin, then unset SEARCH_QUERY")
	}
	c.TargetUsernames = r.accounts("TARGET_USERNAMES")
	c.SearchTopics = r.topics("SEARCH_TOPICS", DefaultSearchTopics)
	c.BlockedAuthors = r.accounts("BLOCKED_AUTHORS")
	c.BlockedPhrases = r.phrases("BLOCKED_PHRASES")
	c.Caps = Caps{
		PerConversation: r.integer("REPLY_CAP_PER_CONVERSATION", 0, 1, maxCap),
		PerAuthorPerDay: r.integer("REPLY_CAP_PER_AUTHOR_PER_DAY", 0, 1, maxCap),
		SendsPer3Hours:  r.integer("SEND_CAP_PER_3H", 0, 1, maxCap),
		SendsPerDay:     r.integer("SEND_CAP_PER_DAY", 0, 1, maxCap),
		NearDuplicate:   r.fraction("NEAR_DUPLICATE_THRESHOLD"),
		DraftsPerHour:   r.integer("DRAFT_CAP_PER_HOUR", 0, 1, maxDraftsPerHour),
	}
	if w, d := c.Caps.SendsPer3Hours, c.Caps.SendsPerDay; w != 0 && d != 0 && w > d {
		r.fail("SEND_CAP_PER_3H", "(%d) must not be more than SEND_CAP_PER_DAY (%d)", w, d)
	}
}

// platformChoices are the platforms PLATFORM names, as Load reads them
// (an invalid PLATFORM is reported there); they are never guessed from
// credentials.
func platformChoices(getenv func(string) string) []string {
	v := strings.TrimSpace(getenv("PLATFORM"))
	if v == "" {
		return []string{post.SandboxPlatform}
	}
	var out []string
	for _, part := range strings.Split(v, ",") {
		out = append(out, strings.ToLower(strings.TrimSpace(part)))
	}
	return out
}

func pickInt(cond bool, yes, no int) int {
	if cond {
		return yes
	}
	return no
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
