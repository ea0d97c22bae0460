package ratelimit

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sessions bounds the model calls an administrator's session asks for
// (persona previews and regenerations, a model call each): one in flight
// at a time and at most Limit in any rolling Per, across every web process,
// through Redis.
type Sessions struct {
	rdb redis.UniversalClient
	// limit calls per rolling per; hold bounds how long a call counts as
	// in flight when its release is lost (a process that died).
	limit int
	per   time.Duration
	hold  time.Duration
	now   func() time.Time
}

// DefaultSessionLimit and DefaultSessionPer are the bound of
// NewSessions' callers: 10 model calls a minute per session.
const (
	DefaultSessionLimit = 10
	DefaultSessionPer   = time.Minute
)

// NewSessions bounds each session to one call in flight (counted so for at
// most hold) and limit calls in any rolling per.
func NewSessions(rdb redis.UniversalClient, limit int, per, hold time.Duration, now func() time.Time) *Sessions {
	if now == nil {
		now = time.Now
	}
	return &Sessions{rdb: rdb, limit: limit, per: per, hold: hold, now: now}
}

// Sessions bounds the model calls of each session through w's Redis (see
// the Sessions type), 10 a minute, a call counting as in flight for at
// most hold.
func (w *Windows) Sessions(hold time.Duration) *Sessions {
	return NewSessions(w.rdb, DefaultSessionLimit, DefaultSessionPer, hold, w.now)
}

// beginScript takes a call of a session: {1, ms} when one is in flight
// (for at most ms more), {2, ms} when the rolling window is full (until ms
// from now), else {0, 0} with the call in flight and counted.
// KEYS: the in-flight key, the window's sorted set (one hash slot: both
// carry the session's hash tag). ARGV: now (ms), the window (ms), the
// limit, the hold (ms), this call's member.
var beginScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {1, redis.call('PTTL', KEYS[1])}
end
local now, per = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - per)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {2, tonumber(oldest[2]) + per - now}
end
redis.call('ZADD', KEYS[2], now, ARGV[5])
redis.call('PEXPIRE', KEYS[2], per)
redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[4])
return {0, 0}
`)

// releaseScript ends the call in flight when it is still this one.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// Begin takes a model call for session (its bearer token, kept only
// hashed). When the session has a call in flight or has made its limit in
// the rolling window, it answers how long until it may ask again (at least
// a second) and a nil release; otherwise a release that ends the call.
func (s *Sessions) Begin(ctx context.Context, session string) (release func(context.Context) error, retryAfter time.Duration, err error) {
	sum := sha256.Sum256([]byte(session))
	tag := "{" + hex.EncodeToString(sum[:16]) + "}"
	inflight, window := "infernal:modelcalls:"+tag+":inflight", "infernal:modelcalls:"+tag+":window"
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, 0, fmt.Errorf("ratelimit: session call id: %w", err)
	}
	member := hex.EncodeToString(b[:])
	now := s.now().UnixMilli()
	res, err := beginScript.Run(ctx, s.rdb, []string{inflight, window},
		now, s.per.Milliseconds(), s.limit, s.hold.Milliseconds(), member).Int64Slice()
	if err != nil {
		return nil, 0, fmt.Errorf("ratelimit: session call: %w", err)
	}
	if len(res) != 2 {
		return nil, 0, fmt.Errorf("ratelimit: session call: unexpected answer %v", res)
	}
	if res[0] != 0 {
		// A whole second at least: Retry-After counts in seconds.
		return nil, max(time.Second, time.Duration(res[1])*time.Millisecond), nil
	}
	return func(ctx context.Context) error {
		if err := releaseScript.Run(ctx, s.rdb, []string{inflight}, member).Err(); err != nil {
			return fmt.Errorf("ratelimit: end session call: %w", err)
		}
		return nil
	}, 0, nil
}
