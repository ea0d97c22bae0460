package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The model provider's windows, as OpenAI announces them: one of requests
// and one of tokens, each with its remaining count and the time until it
// is full again.
const (
	modelRequests = " (requests)"
	modelTokens   = " (tokens)"
)

// ModelCall is a reservation of one model call, made by ReserveModel and
// given back to RecordModel with the answer's headers.
type ModelCall struct {
	name   string
	tokens int64
	// spent is what the windows had reserved before this call, in requests
	// and tokens: an answer's remaining counts are older than the calls
	// reserved after it, which RecordModel takes off them.
	spent [2]int64
	// reserved is when the call was reserved: the provider cannot have
	// counted it earlier.
	reserved time.Time
}

// modelTTL keeps a model window's counters without an announced reset, and
// the mark that its provider answered.
const modelTTL = 3600

// refillPoll is how long a call waits for an answer to tell more of a
// window spent past its reset whose refill is unknown.
const refillPoll = 100 * time.Millisecond

// ProbeHold is the longest the first call to a provider that has not
// answered yet holds the others back.
const ProbeHold = 2 * time.Second

// reserveModel takes a call of the requests window (KEYS[1]) and the
// tokens window (KEYS[2]) when both have room for it. A window holds what
// its last answer said, read as OpenAI means it: base left at at_ms,
// refilling evenly (rate a millisecond) up to its limit at reset_ms; the
// calls reserved since that answer (spent - spent_rec) are taken off. A
// call goes when the window keeps margin calls beyond it; else it waits
// until the window has refilled that far, or until its reset when the
// refill is unknown, so that the workers slow down to the provider's
// pace instead of spending the window. A 429 closes the requests window
// until closed_ms. A provider that has not answered yet (no 'answered'
// mark) is probed: one call at a time, each holding the others for up to
// ARGV[5] ms (probe_ms), so that a cold start learns the windows before it
// fills them. It answers {0, spent requests, spent tokens} when the call
// may go, else {the millisecond before which no call may go, 0, 0}.
var reserveModel = redis.NewScript(`
local now = tonumber(ARGV[1])
local margin = tonumber(ARGV[2])
local costs = {1, tonumber(ARGV[3])}
local closed = tonumber(redis.call('HGET', KEYS[1], 'closed_ms') or '0')
if closed > now then return {closed, 0, 0} end
local wait = 0
local probing = false
local spent = {}
for i = 1, 2 do
  local h = redis.call('HMGET', KEYS[i], 'reset_ms', 'base', 'rate', 'at_ms', 'spent', 'spent_rec', 'limit', 'answered', 'probe_ms')
  local reset, base, rate, at = tonumber(h[1] or '0'), tonumber(h[2] or '0'), tonumber(h[3] or '0'), tonumber(h[4] or '0')
  local limit = tonumber(h[7] or '-1')
  spent[i] = tonumber(h[5] or '0')
  if at > 0 and (limit > 0 or reset > now) then
    local avail = base + rate * (now - at)
    if limit > 0 and avail > limit then avail = limit end
    avail = avail - (spent[i] - tonumber(h[6] or '0'))
    local need = costs[i] * (margin + 1)
    if avail < need then
      local untilMs = reset
      if rate > 0 then
        untilMs = now + math.ceil((need - avail) / rate - 1e-6)
      elseif reset <= now then
        untilMs = now + tonumber(ARGV[6])
      end
      if untilMs > wait then wait = untilMs end
    end
  elseif i == 1 and not h[8] then
    local probe = tonumber(h[9] or '0')
    if probe > now then wait = probe else probing = true end
  end
end
if wait > 0 then return {wait, 0, 0} end
if probing then redis.call('HSET', KEYS[1], 'probe_ms', now + tonumber(ARGV[5])) end
for i = 1, 2 do
  redis.call('HINCRBY', KEYS[i], 'spent', costs[i])
  if redis.call('TTL', KEYS[i]) < 0 then redis.call('EXPIRE', KEYS[i], ARGV[4]) end
end
return {0, spent[1], spent[2]}
`)

// recordModel keeps a window as an answer announced it (ARGV[2] left of
// ARGV[1], full in ARGV[3] ms), as of when the answer came back (ARGV[9]),
// less what was reserved after the answered call (ARGV[4] spent before
// it, ARGV[5] its own cost): those calls are taken not to be in the
// answer's count yet. Its refill rate is what it lacks over the time until
// it is full, less one: a provider that refills evenly announces its
// remaining count rounded down (a window holding 0.9 of a call says 0, and
// the time until it holds its 10), so the rate read from the whole count
// would be up to a call a period too fast. The refill is counted from
// ARGV[9], the latest moment the provider can have counted the call
// (RecordModel), never earlier, so that no room is credited that the
// provider has not given.
var recordModel = redis.NewScript(`
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local since = spent - tonumber(ARGV[4]) - tonumber(ARGV[5])
if since < 0 then since = 0 end
local limit, left, full, at, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[9]), tonumber(ARGV[10])
local base = left - since
local rate = 0
if limit > 0 and full > 0 and limit > left + 1 then rate = (limit - left - 1) / full end
local shown = base
if shown < 0 then shown = 0 end
redis.call('HSET', KEYS[1], 'limit', limit, 'base', base, 'rate', tostring(rate), 'at_ms', at, 'reset_ms', now + full,
  'spent_rec', spent, 'remaining', shown, 'reset', ARGV[8])
redis.call('EXPIREAT', KEYS[1], ARGV[6])
redis.call('SADD', KEYS[2], ARGV[7])
return shown
`)

// answeredModel marks the provider as having answered, which ends its
// probing.
var answeredModel = redis.NewScript(`
redis.call('HSET', KEYS[1], 'answered', 1)
redis.call('HDEL', KEYS[1], 'probe_ms')
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1
`)

// closeModel closes the requests window (KEYS[1]) until ARGV[1] (ms) after
// a 429, whatever a later answer of an earlier call says of it.
var closeModel = redis.NewScript(`
local closed = tonumber(redis.call('HGET', KEYS[1], 'closed_ms') or '0')
if tonumber(ARGV[1]) > closed then closed = tonumber(ARGV[1]) end
redis.call('HSET', KEYS[1], 'closed_ms', closed, 'remaining', 0, 'reset', ARGV[4])
redis.call('EXPIREAT', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return closed
`)

// ReserveModel takes a call of the model windows named name (the provider
// and model, like "api.openai.com gpt-4o-mini") that is expected to use
// tokens tokens. notBefore is zero when the call may be made now; else no
// call may be sent before it: the end of a window a 429 closed, the time
// a spent window will have refilled enough, or the end of another
// worker's probe.
func (w *Windows) ReserveModel(ctx context.Context, name string, tokens int) (call ModelCall, notBefore time.Time, err error) {
	cost := max(int64(tokens), 1)
	keys := []string{keyPrefix + "model " + name + modelRequests, keyPrefix + "model " + name + modelTokens}
	now := w.now()
	res, err := reserveModel.Run(ctx, w.rdb, keys, now.UnixMilli(), w.margin, cost, modelTTL, ProbeHold.Milliseconds(), refillPoll.Milliseconds()).Int64Slice()
	if err != nil {
		return ModelCall{}, time.Time{}, fmt.Errorf("ratelimit: reserve model %s: %w", name, err)
	}
	if len(res) != 3 {
		return ModelCall{}, time.Time{}, fmt.Errorf("ratelimit: reserve model %s: %d values answered", name, len(res))
	}
	if res[0] > 0 {
		return ModelCall{}, time.UnixMilli(res[0]).UTC(), nil
	}
	return ModelCall{name: name, tokens: cost, spent: [2]int64{res[1], res[2]}, reserved: now}, time.Time{}, nil
}

// RecordModel keeps what the answer to call, of the given HTTP status,
// says of its windows: x-ratelimit-limit-, -remaining- and
// -reset-requests and -tokens. A 429 closes the windows until its
// retry-after (or retry-after-ms), else the reset of an exhausted window,
// else for DefaultClose; closedUntil is then that time. Headers without a
// remaining count and a reset are ignored: a server that announces no
// limits is limited by nothing here.
func (w *Windows) RecordModel(ctx context.Context, call ModelCall, status int, h http.Header) (closedUntil time.Time, err error) {
	now := w.now()
	// The answer's counts are taken as of its arrival, less the time the
	// provider says it spent processing the call (openai-processing-ms):
	// the provider counted the call before it began processing it, never
	// after, so a window refilled from then is never credited with room
	// the provider has not given, however late the call reached it (a slow
	// network, a busy machine), and no worker calls inside a window it
	// announced. Without the header the answer's arrival is taken, which
	// credits nothing of the model's working time (a second or more: for a
	// window of a second's calls, all of it).
	counted := now
	if d, ok := processing(h); ok {
		counted = now.Add(-d)
		if !call.reserved.IsZero() && counted.Before(call.reserved) {
			// Never before the call existed: a provider's clock or
			// header cannot credit more than the call's own round trip.
			counted = call.reserved
		}
	}
	type announced struct {
		name                    string
		limit, remaining, index int
		resetAt                 time.Time
	}
	var windows []announced
	var exhausted time.Time
	for i, f := range []struct{ suffix, header string }{{modelRequests, "requests"}, {modelTokens, "tokens"}} {
		remaining, okR := intHeader(h, "x-ratelimit-remaining-"+f.header)
		reset, okT := ResetDuration(h.Get("x-ratelimit-reset-" + f.header))
		if !okR || !okT {
			continue
		}
		limit, okL := intHeader(h, "x-ratelimit-limit-"+f.header)
		if !okL {
			limit = -1
		}
		resetAt := now.Add(reset)
		if remaining == 0 && resetAt.After(exhausted) {
			exhausted = resetAt
		}
		windows = append(windows, announced{name: "model " + call.name + f.suffix, limit: limit, remaining: remaining, index: i, resetAt: resetAt})
	}
	var errs []error
	if status == http.StatusTooManyRequests {
		// Closed first: no other call may slip in once the probe ends below.
		closedUntil = now.Add(DefaultClose)
		if d, ok := RetryAfter(h, now); ok {
			closedUntil = now.Add(d)
		} else if !exhausted.IsZero() {
			closedUntil = exhausted
		}
		closedUntil = time.UnixMilli(ceilMilli(closedUntil)).UTC()
		name := "model " + call.name + modelRequests
		if err := closeModel.Run(ctx, w.rdb, []string{keyPrefix + name, indexKey},
			closedUntil.UnixMilli(), closedUntil.Add(time.Hour).Unix(), name, ceilSecond(closedUntil)).Err(); err != nil {
			errs = append(errs, fmt.Errorf("ratelimit: close %s: %w", name, err))
		}
	}
	for _, a := range windows {
		cost := [2]int64{1, call.tokens}[a.index]
		err := recordModel.Run(ctx, w.rdb, []string{keyPrefix + a.name, indexKey},
			a.limit, a.remaining, ceilMilli(a.resetAt)-now.UnixMilli(), call.spent[a.index], cost, a.resetAt.Add(time.Hour).Unix(),
			a.name, ceilSecond(a.resetAt), ceilMilli(counted), now.UnixMilli()).Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			errs = append(errs, fmt.Errorf("ratelimit: record %s: %w", a.name, err))
		}
	}
	if err := answeredModel.Run(ctx, w.rdb, []string{keyPrefix + "model " + call.name + modelRequests}, modelTTL).Err(); err != nil {
		errs = append(errs, fmt.Errorf("ratelimit: answered %s: %w", call.name, err))
	}
	return closedUntil, errors.Join(errs...)
}

// processing reads openai-processing-ms, the time OpenAI says it took
// to process the call; garbage, negative and absurd values (a day or more)
// are not a duration.
func processing(h http.Header) (time.Duration, bool) {
	d, ok := milliseconds(h.Get("openai-processing-ms"))
	return d, ok && d < 24*time.Hour
}

// milliseconds reads a header's non-negative number of milliseconds
// (whole or not), less than math.MaxInt32; garbage and NaN are not one.
func milliseconds(v string) (time.Duration, bool) {
	ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(ms >= 0 && ms < math.MaxInt32) {
		return 0, false
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// ResetDuration reads an x-ratelimit-reset-* value: OpenAI's durations
// ("1s", "6m0s", "20ms", "1m30.5s"), or a bare number of seconds as other
// providers send. Garbage and negative values are not a duration.
func ResetDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d, d >= 0
	}
	return seconds(v)
}

// RetryAfter reads how long a 429 asks to wait: retry-after-ms, else
// retry-after in seconds (whole or not) or as an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := milliseconds(h.Get("retry-after-ms")); ok {
		return d, true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := seconds(v); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// seconds reads a non-negative number of seconds, less than a year.
func seconds(v string) (time.Duration, bool) {
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || s < 0 || s > 365*24*3600 || math.IsNaN(s) {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// ceilMilli is t in unix milliseconds, rounded up so no window opens early.
func ceilMilli(t time.Time) int64 {
	return t.Add(time.Millisecond - 1).UnixMilli()
}

// ceilSecond is t in unix seconds, rounded up.
func ceilSecond(t time.Time) int64 {
	return t.Add(time.Second - 1).Unix()
}
