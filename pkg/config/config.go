// Package config reads the processes' settings from the environment, once, at
// start. A bad value stops the process with a message that names the variable.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Platform and writer choices.
const (
	PlatformSandbox = "sandbox"
	PlatformX       = "x"
	WriterOffline   = "offline"
	WriterOpenAI    = "openai"
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
	// MetricsAddr, when set, serves Prometheus /metrics on its own address;
	// otherwise /metrics is served by the web tier behind the admin login.
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
	Platform      string
	XAPIBaseURL   string
	XAPIKey       string
	XAPISecret    string
	XAccessToken  string
	XAccessSecret string
	// SandboxPace is how often the sandbox's mortals post something new.
	SandboxPace time.Duration

	Writer        string
	OpenAIBaseURL string
	OpenAIAPIKey  string
	OpenAIModel   string

	SearchQuery     string
	TargetUsernames []string

	Schedules Schedules

	// BenchCeiling serves the benchmark's ceiling route (see pkg/api); only
	// `make bench` turns it on.
	BenchCeiling bool
}

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

// Load reads the configuration through getenv (os.Getenv in production) and
// validates it. The error lists every bad variable by name.
func Load(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	c := Config{
		DatabaseURL:      r.url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/infernal?sslmode=disable", "postgres", "postgresql"),
		DatabaseMaxConns: r.intRange("DATABASE_MAX_CONNS", 10, 3, 500),
		RedisURL:         r.url("REDIS_URL", "redis://127.0.0.1:6379/0", "redis", "rediss"),
		HTTPAddr:         r.addr("HTTP_ADDR", ":8080"),
		MetricsAddr:      r.addr("METRICS_ADDR", ""),
		StaticDir:        r.str("STATIC_DIR", "frontend/dist"),
		LogLevel:         r.oneOf("LOG_LEVEL", "info", "debug", "info", "warn", "error"),
		AdminUsername:    r.str("ADMIN_USERNAME", "admin"),
		AdminPassword:    r.str("ADMIN_PASSWORD", ""),
		SessionTTL:       r.duration("SESSION_TTL", 12*time.Hour, time.Minute),
		PersonaHandle:    r.handle("PERSONA_HANDLE", "infernal_ai"),
		XAPIBaseURL:      r.url("X_API_BASE_URL", "https://api.x.com", "http", "https"),
		XAPIKey:          r.str("X_API_KEY", ""),
		XAPISecret:       r.str("X_API_SECRET", ""),
		XAccessToken:     r.str("X_ACCESS_TOKEN", ""),
		XAccessSecret:    r.str("X_ACCESS_SECRET", ""),
		SandboxPace:      r.duration("SANDBOX_PACE", 20*time.Second, time.Second),
		OpenAIBaseURL:    r.url("OPENAI_BASE_URL", "", "http", "https"),
		OpenAIAPIKey:     r.str("OPENAI_API_KEY", ""),
		OpenAIModel:      r.str("OPENAI_MODEL", "gpt-4o-mini"),
		SearchQuery:      r.str("SEARCH_QUERY", "(monday OR coffee OR deadline OR gym) -is:retweet"),
		Schedules: Schedules{
			Mentions:      r.cron("SCHEDULE_MENTIONS", "@every 2m"),
			Conversations: r.cron("SCHEDULE_CONVERSATIONS", "@every 10m"),
			Targeted:      r.cron("SCHEDULE_TARGETED", "@every 15m"),
			Profile:       r.cron("SCHEDULE_PROFILE", "@every 6h"),
			Metrics:       r.cron("SCHEDULE_METRICS", "@every 10m"),
			Reconcile:     r.cron("SCHEDULE_RECONCILE", "@every 1m"),
		},
	}
	c.TargetUsernames = r.handles("TARGET_USERNAMES")
	c.TrustedProxies = r.prefixes("TRUSTED_PROXIES")
	c.AdminPasswordFile = r.str("ADMIN_PASSWORD_FILE", "admin-password")
	c.PublicURL = r.origin("PUBLIC_URL")
	c.BenchCeiling = r.oneOf("BENCH_CEILING", "off", "off", "on") == "on"

	xCreds := c.XAPIKey != "" || c.XAPISecret != "" || c.XAccessToken != "" || c.XAccessSecret != ""
	c.Platform = r.oneOf("PLATFORM", pick(xCreds, PlatformX, PlatformSandbox), PlatformSandbox, PlatformX)
	if c.Platform == PlatformX {
		for name, v := range map[string]string{"X_API_KEY": c.XAPIKey, "X_API_SECRET": c.XAPISecret, "X_ACCESS_TOKEN": c.XAccessToken, "X_ACCESS_SECRET": c.XAccessSecret} {
			if v == "" {
				r.fail(name, "is required when PLATFORM=x")
			}
		}
	}
	modelSet := c.OpenAIAPIKey != "" || c.OpenAIBaseURL != ""
	c.Writer = r.oneOf("WRITER", pick(modelSet, WriterOpenAI, WriterOffline), WriterOffline, WriterOpenAI)
	if c.Writer == WriterOpenAI && c.OpenAIBaseURL == "" {
		c.OpenAIBaseURL = "https://api.openai.com/v1"
	}
	if c.AdminUsername == "" {
		r.fail("ADMIN_USERNAME", "must not be empty")
	}
	if c.AdminPassword != "" && len(c.AdminPassword) < 8 {
		r.fail("ADMIN_PASSWORD", "must be at least 8 characters")
	}
	if err := errors.Join(r.errs...); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// reader reads variables and collects what is wrong with them.
type reader struct {
	getenv func(string) string
	errs   []error
}

func (r *reader) fail(name, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s %s", name, fmt.Sprintf(format, args...)))
}

func (r *reader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

func (r *reader) oneOf(name, def string, allowed ...string) string {
	v := r.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(name, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
	return def
}

func (r *reader) url(name, def string, schemes ...string) string {
	v := r.str(name, def)
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		r.fail(name, "must be a URL like %s://host/..., got %q", schemes[0], redact(v))
		return v
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return v
		}
	}
	r.fail(name, "must use scheme %s, got %q", strings.Join(schemes, " or "), u.Scheme)
	return v
}

// origin reads an absolute http or https URL naming a site: scheme, host and
// port only (a trailing slash is dropped). Empty stays empty.
func (r *reader) origin(name string) string {
	v := r.str(name, "")
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		r.fail(name, "must be an absolute http or https URL like https://example.com, got %q", v)
		return ""
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		r.fail(name, "must name the site only (scheme://host[:port]), without user, path, query or fragment, got %q", v)
		return ""
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			r.fail(name, "has a bad port %q", port)
			return ""
		}
	}
	return u.Scheme + "://" + strings.ToLower(u.Host)
}

// redact hides a password in a URL that is about to be printed.
func redact(v string) string {
	if u, err := url.Parse(v); err == nil && u.User != nil {
		return u.Redacted()
	}
	return "(unparseable)"
}

func (r *reader) addr(name, def string) string {
	v := r.str(name, def)
	if v == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		r.fail(name, "must be host:port or :port, got %q", v)
		return v
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		r.fail(name, "has a bad port %q", port)
	}
	return v
}

func (r *reader) duration(name string, def, min time.Duration) time.Duration {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.fail(name, "must be a duration like 30s or 12h, got %q", v)
		return def
	}
	if d < min {
		r.fail(name, "must be at least %s, got %s", min, d)
		return def
	}
	return d
}

// intRange reads a whole number between min and max inclusive.
func (r *reader) intRange(name string, def, min, max int) int {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(name, "must be a whole number, got %q", v)
		return def
	}
	if n < min || n > max {
		r.fail(name, "must be between %d and %d, got %d", min, max, n)
		return def
	}
	return n
}

func (r *reader) handle(name, def string) string {
	v := strings.TrimPrefix(r.str(name, def), "@")
	if !handlePattern.MatchString(v) {
		r.fail(name, "must be a handle of 1 to 15 letters, digits or underscores, got %q", v)
	}
	return v
}

func (r *reader) handles(name string) []string {
	var out []string
	for _, f := range strings.Split(r.str(name, ""), ",") {
		f = strings.TrimPrefix(strings.TrimSpace(f), "@")
		if f == "" {
			continue
		}
		if !handlePattern.MatchString(f) {
			r.fail(name, "holds %q, which is not a handle (1 to 15 letters, digits or underscores)", f)
			continue
		}
		out = append(out, f)
	}
	return out
}

// prefixes reads comma-separated IP addresses or CIDR ranges.
func (r *reader) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for _, f := range strings.Split(r.str(name, ""), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(f); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		r.fail(name, "holds %q, which is neither an IP address nor a CIDR range", f)
	}
	return out
}

// cron checks a spec the way asynq's scheduler parses it.
func (r *reader) cron(name, def string) string {
	v := r.str(name, def)
	if _, err := cron.ParseStandard(v); err != nil {
		r.fail(name, "is not a cron spec (like \"*/5 * * * *\" or \"@every 30s\"): %v", err)
	}
	return v
}
