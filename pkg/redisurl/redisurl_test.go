package redisurl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"infernal/pkg/redisurl"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want asynq.RedisConnOpt
	}{
		{name: "one server", raw: "redis://127.0.0.1:6379/2",
			want: asynq.RedisClientOpt{Network: "tcp", Addr: "127.0.0.1:6379", DB: 2}},
		{name: "one server with password and timeouts", raw: "redis://:pw@cache:6380/0?dial_timeout=4s&read_timeout=1",
			want: asynq.RedisClientOpt{Network: "tcp", Addr: "cache:6380", Password: "pw", DialTimeout: 4 * time.Second, ReadTimeout: time.Second}},
		{name: "sentinels", raw: "redis-sentinel://10.0.0.1:26379,10.0.0.2:26380,10.0.0.3/1?master=infernal",
			want: asynq.RedisFailoverClientOpt{MasterName: "infernal", SentinelAddrs: []string{"10.0.0.1:26379", "10.0.0.2:26380", "10.0.0.3:26379"},
				DB: 1, DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second}},
		{name: "sentinels with the primary's password", raw: "redis-sentinel://:s3cret@s1,s2?master=m",
			want: asynq.RedisFailoverClientOpt{MasterName: "m", SentinelAddrs: []string{"s1:26379", "s2:26379"},
				Password: "s3cret", DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second}},
		{name: "sentinels with passwords of their own", raw: "redis-sentinel://app:pw@[::1]:5000,[::1]?master=m&sentinel_username=sen&sentinel_password=sp",
			want: asynq.RedisFailoverClientOpt{MasterName: "m", SentinelAddrs: []string{"[::1]:5000", "[::1]:26379"},
				Username: "app", Password: "pw", SentinelUsername: "sen", SentinelPassword: "sp", DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := redisurl.Parse(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Asynq(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.raw, got, tt.want)
			}
		})
	}
}

// Garbage gets an error that says what is wrong and never repeats the password.
func TestParseGarbage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{name: "not a url", raw: "redis://:pw@%zz", want: "not a URL"},
		{name: "other scheme", raw: "http://:pw@host:6379", want: `scheme must be redis, rediss or redis-sentinel, got "http"`},
		{name: "no master", raw: "redis-sentinel://:pw@s1:26379,s2:26379", want: "needs ?master=NAME"},
		{name: "empty master", raw: "redis-sentinel://s1?master=", want: "needs ?master=NAME"},
		{name: "no sentinels", raw: "redis-sentinel://:pw@/0?master=m", want: "at least one sentinel"},
		{name: "empty sentinel", raw: "redis-sentinel://s1,,s2?master=m", want: "an empty sentinel host"},
		{name: "bad sentinel port", raw: "redis-sentinel://s1:99999?master=m", want: `sentinel "s1:99999" has a bad port`},
		{name: "sentinel without host", raw: "redis-sentinel://:26379?master=m", want: "has no host"},
		{name: "bad db", raw: "redis-sentinel://s1/zero?master=m", want: `database "zero" is not a number`},
		{name: "negative db", raw: "redis-sentinel://s1/-1?master=m", want: `database "-1" is not a number`},
		{name: "unknown sentinel option", raw: "redis-sentinel://s1?master=m&master_name=x", want: `unknown option "master_name"`},
		{name: "unknown server option", raw: "redis://:pw@h:6379?bogus=1", want: "unexpected option: bogus"},
		{name: "bad server db", raw: "redis://:pw@h:6379/x", want: "invalid database number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := redisurl.Parse(tt.raw)
			if err == nil {
				t.Fatalf("Parse(%q) = nil error, want %q", tt.raw, tt.want)
			}
			if !errors.Is(err, redisurl.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %v, want ErrInvalid saying %q", tt.raw, err, tt.want)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("the error repeats the password: %v", err)
			}
		})
	}
}

// Client makes the kind of client the URL names: behind Sentinel, a
// failover client, which asks the sentinels (none answer here).
func TestClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{name: "one server", raw: "redis://127.0.0.1:1/3", want: "Redis<127.0.0.1:1 db:3>"},
		{name: "sentinels", raw: "redis-sentinel://127.0.0.1:1?master=m", want: "Redis<FailoverClient db:0>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := redisurl.Parse(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			rc := c.Client()
			defer func() {
				if err := rc.Close(); err != nil {
					t.Error(err)
				}
			}()
			if _, ok := rc.(*redis.Client); !ok {
				t.Fatalf("Client() is a %T, want *redis.Client", rc)
			}
			if got := rc.(*redis.Client).String(); got != tt.want {
				t.Errorf("Client() = %s, want %s", got, tt.want)
			}
		})
	}
}

// go-redis's messages reach the structured log, a failure as a warning.
func TestLogger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		format    string
		args      []any
		wantLevel string
		wantMsg   string
	}{
		{name: "failover", format: "sentinel: new master=%q addr=%q", args: []any{"infernal", "10.0.0.2:6379"},
			wantLevel: "INFO", wantMsg: `sentinel: new master="infernal" addr="10.0.0.2:6379"`},
		{name: "failure", format: "sentinel: GetMasterAddrByName name=%q failed: %s", args: []any{"infernal", "i/o timeout"},
			wantLevel: "WARN", wantMsg: `sentinel: GetMasterAddrByName name="infernal" failed: i/o timeout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := redisurl.Logger{Log: slog.New(slog.NewJSONHandler(&buf, nil))}
			l.Printf(context.Background(), tt.format, tt.args...)
			var got struct{ Level, Msg, Library string }
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("log line %q: %v", buf.String(), err)
			}
			if got.Level != tt.wantLevel || got.Msg != tt.wantMsg || got.Library != "go-redis" {
				t.Errorf("logged %+v, want %s %q from library go-redis", got, tt.wantLevel, tt.wantMsg)
			}
		})
	}
}
