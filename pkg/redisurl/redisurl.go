// Package redisurl reads REDIS_URL, the one address every process shares,
// into the connection options of asynq and of the product's own go-redis
// clients, so that a single Redis and a Redis behind Sentinel are named the
// same way everywhere.
//
// Three forms are accepted:
//
//	redis://[[user]:password@]host[:port][/db][?options]
//	rediss://... (the same, over TLS)
//	redis-sentinel://[[user]:password@]host1[:port1][,host2[:port2]...][/db]?master=NAME[&sentinel_password=P][&sentinel_username=U]
//
// The first two take every option go-redis's ParseURL knows (timeouts,
// pool sizes). In the Sentinel form the hosts are the sentinels (port 26379
// when none is given), master names the monitored primary, and the user and
// password are the primary's, as in the other two forms; a sentinel that
// wants a password of its own takes it from sentinel_password. (asynq's own
// parser gives the password to the sentinels only, which leaves a primary
// with a password unreachable.)
package redisurl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// DefaultSentinelPort is the port of a sentinel named without one.
const DefaultSentinelPort = "26379"

// Timeouts of the Sentinel form. A failover makes the old primary's
// address unanswerable; short dials and reads let a call give up on it and
// ask the sentinels again within seconds instead of hanging.
const (
	sentinelDialTimeout = 2 * time.Second
	sentinelReadTimeout = 3 * time.Second
)

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid redis url")

// Conn is a parsed REDIS_URL.
type Conn struct {
	opt asynq.RedisConnOpt
}

// Parse reads raw in one of the three forms of the package comment.
func Parse(raw string) (Conn, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	switch {
	case !ok:
		return Conn{}, fmt.Errorf("%w: not a URL like redis://host:port/0", ErrInvalid)
	case scheme == "redis" || scheme == "rediss":
		o, err := redis.ParseURL(raw)
		if err != nil {
			// go-redis's own messages; a URL it cannot parse is quoted whole, password included.
			var uerr *url.Error
			if errors.As(err, &uerr) {
				return Conn{}, fmt.Errorf("%w: not a URL", ErrInvalid)
			}
			return Conn{}, fmt.Errorf("%w: %s", ErrInvalid, strings.TrimPrefix(err.Error(), "redis: "))
		}
		return Conn{opt: clientOpt(o)}, nil
	case scheme == "redis-sentinel":
		o, err := parseSentinel(rest)
		if err != nil {
			return Conn{}, err
		}
		return Conn{opt: o}, nil
	default:
		return Conn{}, fmt.Errorf("%w: scheme must be redis, rediss or redis-sentinel, got %q", ErrInvalid, scheme)
	}
}

// clientOpt carries go-redis's options of one server over to asynq's.
func clientOpt(o *redis.Options) asynq.RedisClientOpt {
	return asynq.RedisClientOpt{
		Network: o.Network, Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout,
		PoolSize: o.PoolSize, TLSConfig: o.TLSConfig,
	}
}

// sentinelParams are the query parameters the Sentinel form knows.
var sentinelParams = map[string]bool{"master": true, "sentinel_password": true, "sentinel_username": true}

// parseSentinel reads the redis-sentinel form after its "://". The
// sentinels are cut out by hand: net/url checks only the port after the
// last colon of a host, so it refuses a list whose last sentinel has none.
func parseSentinel(rest string) (asynq.RedisFailoverClientOpt, error) {
	o := asynq.RedisFailoverClientOpt{DialTimeout: sentinelDialTimeout, ReadTimeout: sentinelReadTimeout}
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	hosts := authority
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		hosts = authority[i+1:]
		// Only the user information goes through net/url, with a host of its own.
		u, err := url.Parse("redis://" + authority[:i+1] + "sentinel")
		if err != nil {
			return o, fmt.Errorf("%w: bad user or password", ErrInvalid)
		}
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	u, err := url.Parse("redis://sentinel" + tail)
	if err != nil {
		return o, fmt.Errorf("%w: bad path or query", ErrInvalid)
	}
	q := u.Query()
	for k := range q {
		if !sentinelParams[k] {
			return o, fmt.Errorf("%w: unknown option %q (redis-sentinel takes master, sentinel_username and sentinel_password)", ErrInvalid, k)
		}
	}
	o.MasterName = q.Get("master")
	if o.MasterName == "" {
		return o, fmt.Errorf("%w: redis-sentinel needs ?master=NAME, the name the sentinels monitor", ErrInvalid)
	}
	o.SentinelUsername, o.SentinelPassword = q.Get("sentinel_username"), q.Get("sentinel_password")
	if hosts == "" {
		return o, fmt.Errorf("%w: redis-sentinel needs at least one sentinel host", ErrInvalid)
	}
	for _, h := range strings.Split(hosts, ",") {
		addr, err := sentinelAddr(h)
		if err != nil {
			return o, err
		}
		o.SentinelAddrs = append(o.SentinelAddrs, addr)
	}
	db, err := dbNumber(u.Path)
	if err != nil {
		return o, err
	}
	o.DB = db
	return o, nil
}

// sentinelAddr is h as host:port, with the default port when h has none.
func sentinelAddr(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("%w: an empty sentinel host", ErrInvalid)
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		// No port: the whole of h is the host (an IPv6 literal keeps its brackets).
		host, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), DefaultSentinelPort
	}
	if host == "" {
		return "", fmt.Errorf("%w: sentinel %q has no host", ErrInvalid, h)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%w: sentinel %q has a bad port", ErrInvalid, h)
	}
	return net.JoinHostPort(host, port), nil
}

// dbNumber reads the database of path ("", "/" or "/N").
func dbNumber(path string) (int, error) {
	p := strings.TrimPrefix(path, "/")
	if p == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: database %q is not a number from 0", ErrInvalid, p)
	}
	return n, nil
}

// Asynq returns the options for asynq's client, server, scheduler,
// inspector and asynqmon.
func (c Conn) Asynq() asynq.RedisConnOpt { return c.opt }

// Client returns a new go-redis client, as asynq makes its own: one
// server's client, or, behind Sentinel, a failover client that asks the
// sentinels for the primary and follows it when they promote another. The
// caller closes it. It panics on a Conn that Parse did not make.
func (c Conn) Client() redis.UniversalClient {
	// Both kinds of options Parse makes build a *redis.Client.
	return c.opt.MakeRedisClient().(redis.UniversalClient)
}

// Logger carries go-redis's own messages (a failover client's "sentinel:
// new master", a failed sentinel query) into the process's structured
// log, in place of go-redis's plain lines on stderr.
type Logger struct {
	// Log receives the messages, with library=go-redis.
	Log *slog.Logger
}

// Printf implements go-redis's logging interface: a message that reports a
// failure is a warning, any other one information.
func (l Logger) Printf(ctx context.Context, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	level := slog.LevelInfo
	if strings.Contains(msg, "fail") || strings.Contains(msg, "error") {
		level = slog.LevelWarn
	}
	l.Log.Log(ctx, level, msg, "library", "go-redis")
}

// SetLogger makes log receive go-redis's messages. go-redis keeps one
// logger for the whole process: only a main package calls this, once.
func SetLogger(log *slog.Logger) {
	redis.SetLogger(Logger{Log: log})
}
