// Package ratelimit keeps the platform's rate-limit windows in Redis, so
// that every process (each worker, the web tier) sees a window another one
// was told about, and none calls an endpoint inside a closed window; and
// the model provider's windows likewise (model.go), for every worker's
// drafts.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/redisurl"
)

// keyPrefix starts every key of a window; indexKey lists the windows known.
const (
	keyPrefix = "infernal:ratelimit:"
	indexKey  = keyPrefix + "index"
)

// The families of headers X announces windows with: the per-endpoint
// 15-minute window, and the 24-hour caps seen on POST /2/tweets.
var families = []struct{ suffix, header string }{
	{"", "x-rate-limit"},
	{" (24h user)", "x-user-limit-24hour"},
	{" (24h app)", "x-app-limit-24hour"},
}

// Window is what the platform last said of one endpoint's window.
type Window struct {
	// Endpoint names the window: a method and path template, like
	// "GET /2/tweets/search/recent", with " (24h user)" or " (24h app)"
	// for a daily cap.
	Endpoint  string
	Limit     int
	Remaining int
	ResetAt   time.Time
}

// Open reports whether a call may be made at now, leaving margin calls unused.
func (w Window) Open(margin int, now time.Time) bool {
	return !now.Before(w.ResetAt) || w.Remaining > margin
}

// Windows records and checks the windows in Redis. It is safe for
// concurrent use by any number of processes.
type Windows struct {
	rdb    redis.UniversalClient
	margin int
	now    func() time.Time
}

// New returns Windows kept in rdb that close with margin calls left
// (config X_RATE_LIMIT_MARGIN; 1 stops at the last call).
func New(rdb redis.UniversalClient, margin int, now func() time.Time) *Windows {
	if now == nil {
		now = time.Now
	}
	return &Windows{rdb: rdb, margin: margin, now: now}
}

// Open connects to the Redis at url (the REDIS_URL every process shares,
// in any form redisurl reads). Close releases the connection.
func Open(url string, margin int) (*Windows, error) {
	conn, err := redisurl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: redis url: %w", err)
	}
	return New(conn.Client(), margin, nil), nil
}

// Close releases the Redis connection.
func (w *Windows) Close() error {
	if err := w.rdb.Close(); err != nil {
		return fmt.Errorf("ratelimit: close: %w", err)
	}
	return nil
}

// reserve takes one call of a window when it is open: it answers 0 and
// counts the call down, or, when the window is closed, its reset (unix
// seconds). Atomic, so that concurrent processes cannot all take the last call.
var reserve = redis.NewScript(`
local reset = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if reset <= tonumber(ARGV[1]) then return 0 end
local remaining = tonumber(redis.call('HGET', KEYS[1], 'remaining') or '0')
if remaining <= tonumber(ARGV[2]) then return reset end
redis.call('HINCRBY', KEYS[1], 'remaining', -1)
return 0
`)

// record keeps a window as an answer announced it. Within the same window
// (same reset) the remaining count only goes down: answers arrive out of
// order, and a late one must not reopen calls the others have taken. The
// key outlives the reset by an hour, so the admin still sees when it opened.
var record = redis.NewScript(`
local remaining = tonumber(ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], 'reset') or '0') == tonumber(ARGV[3]) then
  local known = tonumber(redis.call('HGET', KEYS[1], 'remaining') or ARGV[2])
  if known < remaining then remaining = known end
end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'remaining', remaining, 'reset', ARGV[3])
redis.call('EXPIREAT', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[5])
return remaining
`)

// Reserve takes a call of endpoint's windows. closedUntil is zero when the
// call may be made, else the latest reset of its closed windows: the call
// must not be sent before then.
func (w *Windows) Reserve(ctx context.Context, endpoint string) (closedUntil time.Time, err error) {
	now := w.now().Unix()
	for _, f := range families {
		reset, err := reserve.Run(ctx, w.rdb, []string{keyPrefix + endpoint + f.suffix}, now, w.margin).Int64()
		if err != nil {
			return time.Time{}, fmt.Errorf("ratelimit: reserve %s: %w", endpoint, err)
		}
		if at := time.Unix(reset, 0).UTC(); reset > 0 && at.After(closedUntil) {
			closedUntil = at
		}
	}
	return closedUntil, nil
}

// Record keeps what an answer's headers say of endpoint's windows. Headers
// without a complete window are ignored.
func (w *Windows) Record(ctx context.Context, endpoint string, h http.Header) error {
	var errs []error
	for _, f := range families {
		limit, okL := intHeader(h, f.header+"-limit")
		remaining, okR := intHeader(h, f.header+"-remaining")
		reset, okT := intHeader(h, f.header+"-reset")
		if !okR || !okT || reset <= 0 {
			continue
		}
		if !okL {
			limit = -1
		}
		key := keyPrefix + endpoint + f.suffix
		expireAt := time.Unix(int64(reset), 0).Add(time.Hour).Unix()
		err := record.Run(ctx, w.rdb, []string{key, indexKey}, limit, remaining, reset, expireAt, endpoint+f.suffix).Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			errs = append(errs, fmt.Errorf("ratelimit: record %s: %w", endpoint+f.suffix, err))
		}
	}
	return errors.Join(errs...)
}

// DefaultClose is how long a 429 that announces no reset (neither
// x-rate-limit-reset nor Retry-After) closes its window.
const DefaultClose = time.Minute

// Refused is what a 429's headers say of the window it closed: whatever
// x-rate-limit-remaining claims, none is left until x-rate-limit-reset, or
// else until Retry-After (seconds or an HTTP date), or else for
// DefaultClose from now. The daily caps' headers are kept as they came.
// Record it instead of the 429's own headers, so that no call is sent
// before the window opens again.
func Refused(h http.Header, now time.Time) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set("x-rate-limit-remaining", "0")
	if reset, ok := intHeader(h, "x-rate-limit-reset"); ok && reset > 0 {
		return out
	}
	until := now.Add(DefaultClose)
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if sec, err := strconv.Atoi(v); err == nil && sec >= 0 {
			until = now.Add(time.Duration(sec) * time.Second)
		} else if t, err := http.ParseTime(v); err == nil {
			until = t
		}
	}
	// Rounded up: a reset in unix seconds must not open the window early.
	out.Set("x-rate-limit-reset", strconv.FormatInt(until.Add(time.Second-1).Unix(), 10))
	return out
}

// Windows lists the windows known, by endpoint.
func (w *Windows) Windows(ctx context.Context) ([]Window, error) {
	names, err := w.rdb.SMembers(ctx, indexKey).Result()
	if err != nil {
		return nil, fmt.Errorf("ratelimit: windows: %w", err)
	}
	slices.Sort(names)
	out := []Window{}
	for _, name := range names {
		m, err := w.rdb.HGetAll(ctx, keyPrefix+name).Result()
		if err != nil {
			return nil, fmt.Errorf("ratelimit: window %s: %w", name, err)
		}
		if len(m) == 0 {
			// Expired: forget it.
			if err := w.rdb.SRem(ctx, indexKey, name).Err(); err != nil {
				return nil, fmt.Errorf("ratelimit: forget %s: %w", name, err)
			}
			continue
		}
		// The fields were written by Record as numbers; a damaged one reads as 0.
		limit, _ := strconv.Atoi(m["limit"])
		remaining, _ := strconv.Atoi(m["remaining"])
		reset, _ := strconv.ParseInt(m["reset"], 10, 64)
		out = append(out, Window{Endpoint: name, Limit: limit, Remaining: remaining, ResetAt: time.Unix(reset, 0).UTC()})
	}
	return out, nil
}

// Margin is how many calls of a window are left unused.
func (w *Windows) Margin() int { return w.margin }

// intHeader reads a header holding a whole number.
func intHeader(h http.Header, name string) (int, bool) {
	v := strings.TrimSpace(h.Get(name))
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
