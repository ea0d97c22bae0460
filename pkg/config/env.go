package config

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robfig/cron/v3"

	"infernal/pkg/post"
	"infernal/pkg/redisurl"
)

// reader reads variables and collects what is wrong with them; its
// methods parse each kind of value Load reads.
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

// redisURL reads a Redis address in one of redisurl's forms: one server
// (redis, rediss) or the sentinels of one (redis-sentinel).
func (r *reader) redisURL(name, def string) string {
	v := r.str(name, def)
	if _, err := redisurl.Parse(v); err != nil {
		r.fail(name, "%v", err)
	}
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

func (r *reader) handle(name, def string) string {
	v := strings.TrimPrefix(r.str(name, def), "@")
	if !handlePattern.MatchString(v) {
		r.fail(name, "must be a handle of 1 to 15 letters, digits or underscores, got %q", v)
	}
	return v
}

// topics reads comma-separated search topics (unset gives def; "none" no
// topics at all): each one line of at most maxTopicLength characters,
// without double quotes, which X cannot search in a phrase.
func (r *reader) topics(name, def string) []string {
	v := r.str(name, def)
	if v == "none" {
		return []string{}
	}
	out := []string{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case strings.Contains(f, `"`):
			r.fail(name, "holds %q; a topic cannot hold a double quote (a phrase is written as it is, e.g. cold brew)", f)
		case utf8.RuneCountInString(f) > maxTopicLength || !utf8.ValidString(f):
			r.fail(name, "holds a topic that is not valid text of at most %d characters", maxTopicLength)
		default:
			out = append(out, f)
		}
	}
	return out
}

// phrases reads comma-separated phrases: each valid text of at most 200
// characters.
func (r *reader) phrases(name string) []string {
	out := []string{}
	for _, f := range strings.Split(r.str(name, ""), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if utf8.RuneCountInString(f) > 200 || !utf8.ValidString(f) {
			r.fail(name, "holds a phrase that is not valid text of at most 200 characters")
			continue
		}
		out = append(out, f)
	}
	return out
}

// fraction reads a number more than 0 and at most 1; unset gives 0 (the default).
func (r *reader) fraction(name string) float64 {
	v := r.str(name, "")
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1) {
		r.fail(name, "must be a number more than 0 and at most 1, like 0.8, got %q", v)
		return 0
	}
	return f
}

// integer reads a whole number within [min, max].
func (r *reader) integer(name string, def, min, max int) int {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		r.fail(name, "must be a whole number from %d to %d, got %q", min, max, v)
		return def
	}
	return n
}

// money reads an amount of US dollars: a finite number, 0 or more.
func (r *reader) money(name string, def float64) float64 {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e9 {
		r.fail(name, "must be an amount of US dollars like 0.005 (0 or more), got %q", v)
		return def
	}
	return f
}

// sources reads a comma-separated list of mortal post sources
// (conversation, mention, targeted), or "none" for an empty list.
func (r *reader) sources(name, def string) []string {
	v := r.str(name, def)
	if v == "none" {
		return []string{}
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "":
			continue
		case "conversation", "mention", "targeted":
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		default:
			r.fail(name, "holds %q; it lists conversation, mention or targeted, or is none", f)
		}
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

// hostPattern is a DNS name, optionally with a leading wildcard label and a
// port: what a content security policy's host source may hold.
var hostPattern = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[0-9]{1,5})?$`)

// hosts reads comma-separated host names (lower-cased); unset gives def.
func (r *reader) hosts(name string, def []string) []string {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if !hostPattern.MatchString(f) || len(f) > 253 {
			r.fail(name, "holds %q, which is not a host name (like pbs.twimg.com or *.example.com, no scheme or path)", f)
			continue
		}
		out = append(out, f)
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

// budget reads a spending ceiling: an amount of US dollars, def when
// unset, none (0) only when written "none" or 0, which adds name to
// unbounded.
func (r *reader) budget(name string, def float64, unbounded *[]string) float64 {
	if strings.EqualFold(r.str(name, ""), "none") {
		*unbounded = append(*unbounded, name)
		return 0
	}
	v := r.money(name, def)
	if v == 0 {
		*unbounded = append(*unbounded, name)
	}
	return v
}

// accounts reads comma-separated accounts: each an X handle (with or
// without the @), a Bluesky handle (a domain), an X user id or a DID, as
// the admin's settings take them (post.ParseAccount).
func (r *reader) accounts(name string) []string {
	var out []string
	for _, f := range strings.Split(r.str(name, ""), ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		a, _, err := post.ParseAccount(f)
		if err != nil {
			r.fail(name, "holds %v", err)
			continue
		}
		out = append(out, a)
	}
	return out
}
