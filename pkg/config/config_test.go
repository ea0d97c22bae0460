package config

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/spend"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(Worker, env(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Platform != post.SandboxPlatform || c.Writer != WriterOffline {
		t.Errorf("defaults: platform %q writer %q, want sandbox/offline", c.Platform, c.Writer)
	}
	if c.HTTPAddr != ":8080" || c.SessionTTL != 12*time.Hour || c.AdminUsername != "admin" {
		t.Errorf("defaults: %+v", c)
	}
	if c.Schedules.Mentions != "@every 20s" || c.Schedules.Reconcile != "@every 1m" {
		t.Errorf("schedules: %+v", c.Schedules)
	}
	if c.ModelVision != VisionAuto {
		t.Errorf("MODEL_VISION defaults to %q, want auto", c.ModelVision)
	}
	for _, v := range []string{VisionOn, VisionOff, VisionAuto} {
		if c, err := Load(Worker, env(map[string]string{"MODEL_VISION": v})); err != nil || c.ModelVision != v {
			t.Errorf("MODEL_VISION=%s: %q, %v", v, c.ModelVision, err)
		}
	}
}

func TestLoadChoices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		env          map[string]string
		wantPlatform string
		wantWriter   string
		// wantPlatforms is the list read; [wantPlatform] when nil.
		wantPlatforms []string
	}{
		{name: "x and bluesky", env: map[string]string{"PLATFORM": " X , bluesky", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a",
			"BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, wantPlatform: post.XPlatform, wantWriter: WriterOffline, wantPlatforms: []string{post.XPlatform, post.BlueskyPlatform}},
		{name: "bluesky and x keep their order", env: map[string]string{"PLATFORM": "bluesky,x", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a",
			"BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, wantPlatform: post.BlueskyPlatform, wantWriter: WriterOffline, wantPlatforms: []string{post.BlueskyPlatform, post.XPlatform}},
		{name: "x named with credentials", env: map[string]string{"PLATFORM": "x", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a"}, wantPlatform: post.XPlatform, wantWriter: WriterOffline},
		{name: "bluesky named with credentials", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "@infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, wantPlatform: post.BlueskyPlatform, wantWriter: WriterOffline},
		{name: "explicit sandbox wins over credentials", env: map[string]string{"PLATFORM": "sandbox", "X_API_KEY": "k"}, wantPlatform: post.SandboxPlatform, wantWriter: WriterOffline},
		{name: "openai key picks openai", env: map[string]string{"OPENAI_API_KEY": "sk"}, wantPlatform: post.SandboxPlatform, wantWriter: WriterOpenAI},
		{name: "base url alone picks openai (ollama)", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, wantPlatform: post.SandboxPlatform, wantWriter: WriterOpenAI},
		{name: "explicit offline wins", env: map[string]string{"WRITER": "offline", "OPENAI_API_KEY": "sk"}, wantPlatform: post.SandboxPlatform, wantWriter: WriterOffline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Platform != tt.wantPlatform || c.Writer != tt.wantWriter {
				t.Errorf("got %s/%s, want %s/%s", c.Platform, c.Writer, tt.wantPlatform, tt.wantWriter)
			}
			want := tt.wantPlatforms
			if want == nil {
				want = []string{tt.wantPlatform}
			}
			if !slices.Equal(c.Platforms, want) {
				t.Errorf("Platforms = %q, want %q", c.Platforms, want)
			}
		})
	}
}

func TestLoadTargets(t *testing.T) {
	t.Parallel()
	c, err := Load(Worker, env(map[string]string{"TARGET_USERNAMES": " @alice, bob_2 ,,", "PERSONA_HANDLE": "@devil"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if strings.Join(c.TargetUsernames, "|") != "alice|bob_2" || c.PersonaHandle != "devil" {
		t.Errorf("got targets %q handle %q", c.TargetUsernames, c.PersonaHandle)
	}
	// Targets and blocked authors are accounts of either platform, by handle or id.
	c, err = Load(Worker, env(map[string]string{"TARGET_USERNAMES": "Alice.BSKY.social, did:plc:abc234, 12345",
		"BLOCKED_AUTHORS": "@Spammer, spam.example.com"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := strings.Join(c.TargetUsernames, "|"); got != "alice.bsky.social|did:plc:abc234|12345" {
		t.Errorf("targets %q", got)
	}
	if got := strings.Join(c.BlockedAuthors, "|"); got != "spammer|spam.example.com" {
		t.Errorf("blocked authors %q", got)
	}
}

func TestLoadSeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		env        map[string]string
		wantTopics []string
		wantCaps   Caps
		wantBlock  []string
	}{
		{name: "defaults", env: nil, wantTopics: []string{"monday", "coffee", "deadline", "gym"}},
		{name: "topics, phrases and caps", env: map[string]string{"SEARCH_TOPICS": " cold brew , gym,,", "BLOCKED_PHRASES": "scam coin, free money ",
			"REPLY_CAP_PER_CONVERSATION": "2", "REPLY_CAP_PER_AUTHOR_PER_DAY": "5", "SEND_CAP_PER_3H": "20", "SEND_CAP_PER_DAY": "100",
			"NEAR_DUPLICATE_THRESHOLD": "0.9"},
			wantTopics: []string{"cold brew", "gym"}, wantBlock: []string{"scam coin", "free money"},
			wantCaps: Caps{PerConversation: 2, PerAuthorPerDay: 5, SendsPer3Hours: 20, SendsPerDay: 100, NearDuplicate: 0.9}},
		{name: "none", env: map[string]string{"SEARCH_TOPICS": "none"}, wantTopics: []string{}},
		{name: "empty search query is unset", env: map[string]string{"SEARCH_QUERY": " "}, wantTopics: []string{"monday", "coffee", "deadline", "gym"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if strings.Join(c.SearchTopics, "|") != strings.Join(tt.wantTopics, "|") || c.SearchTopics == nil || c.Caps != tt.wantCaps ||
				strings.Join(c.BlockedPhrases, "|") != strings.Join(tt.wantBlock, "|") {
				t.Errorf("got topics %q phrases %q caps %+v, want %q %q %+v", c.SearchTopics, c.BlockedPhrases, c.Caps, tt.wantTopics, tt.wantBlock, tt.wantCaps)
			}
		})
	}
}

func TestLoadRejectsGarbage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// proc loads the configuration; empty means the worker.
		proc Process
		env  map[string]string
		want string
	}{
		{name: "database url scheme", env: map[string]string{"DATABASE_URL": "mysql://x/y"}, want: "DATABASE_URL"},
		{name: "database url garbage", env: map[string]string{"DATABASE_URL": "::::"}, want: "DATABASE_URL"},
		{name: "redis url", env: map[string]string{"REDIS_URL": "localhost:6379"}, want: "REDIS_URL"},
		{name: "redis sentinel without master", env: map[string]string{"REDIS_URL": "redis-sentinel://s1:26379,s2:26379"}, want: "REDIS_URL invalid redis url: redis-sentinel needs ?master=NAME"},
		{name: "redis sentinel bad port", env: map[string]string{"REDIS_URL": "redis-sentinel://s1:0?master=m"}, want: "REDIS_URL"},
		{name: "http addr", env: map[string]string{"HTTP_ADDR": "8080"}, want: "HTTP_ADDR"},
		{name: "http port", env: map[string]string{"HTTP_ADDR": ":99999"}, want: "HTTP_ADDR"},
		{name: "platform", env: map[string]string{"PLATFORM": "myspace"}, want: "PLATFORM"},
		{name: "writer", env: map[string]string{"WRITER": "gpt"}, want: "WRITER"},
		{name: "x without credentials", env: map[string]string{"PLATFORM": "x"}, want: "X_API_KEY"},
		{name: "x and bluesky without x credentials", env: map[string]string{"PLATFORM": "x,bluesky", "BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, want: "X_API_KEY is required when PLATFORM names x"},
		{name: "x and bluesky without bluesky credentials", env: map[string]string{"PLATFORM": "x,bluesky", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a"}, want: "BLUESKY_HANDLE is required when PLATFORM names bluesky"},
		{name: "a platform named twice", env: map[string]string{"PLATFORM": "x,x"}, want: "PLATFORM names x twice"},
		{name: "sandbox with a real platform", env: map[string]string{"PLATFORM": "sandbox,bluesky"}, want: "PLATFORM cannot combine the sandbox"},
		{name: "an empty list entry", env: map[string]string{"PLATFORM": "x,,bluesky"}, want: "PLATFORM must be " + strings.Join(post.Platforms(), ", ") + " or a list"},
		{name: "bluesky without handle", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, want: "BLUESKY_HANDLE is required"},
		{name: "bluesky handle not a domain", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "infernal", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, want: "BLUESKY_HANDLE must be"},
		{name: "bluesky without password", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "infernal.bsky.social"}, want: "BLUESKY_APP_PASSWORD is required"},
		{name: "bluesky account password", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "correct horse battery"}, want: "BLUESKY_APP_PASSWORD is not an app password"},
		{name: "bluesky pds url", env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop", "BLUESKY_PDS_URL": "bsky.social"}, want: "BLUESKY_PDS_URL"},
		{name: "bluesky credentials without a platform", env: map[string]string{"BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop"}, want: "PLATFORM must be set (bluesky"},
		{name: "cron", env: map[string]string{"SCHEDULE_MENTIONS": "every two minutes"}, want: "SCHEDULE_MENTIONS"},
		{name: "cron fields", env: map[string]string{"SCHEDULE_RECONCILE": "* * *"}, want: "SCHEDULE_RECONCILE"},
		{name: "ttl", env: map[string]string{"SESSION_TTL": "forever"}, want: "SESSION_TTL"},
		{name: "ttl too short", env: map[string]string{"SESSION_TTL": "1s"}, want: "SESSION_TTL"},
		{name: "pace", env: map[string]string{"SANDBOX_PACE": "-5s"}, want: "SANDBOX_PACE"},
		{name: "handle", env: map[string]string{"PERSONA_HANDLE": "not a handle!"}, want: "PERSONA_HANDLE"},
		{name: "targets", env: map[string]string{"TARGET_USERNAMES": "ok,bad name"}, want: "TARGET_USERNAMES"},
		{name: "target a did of another method", env: map[string]string{"TARGET_USERNAMES": "did:key:z6Mk"}, want: "TARGET_USERNAMES holds \"did:key:z6Mk\" is a DID of method"},
		{name: "short password", proc: Web, env: map[string]string{"ADMIN_PASSWORD": "short"}, want: "ADMIN_PASSWORD"},
		{name: "openai url", env: map[string]string{"OPENAI_BASE_URL": "ftp://x"}, want: "OPENAI_BASE_URL"},
		{name: "log level", env: map[string]string{"LOG_LEVEL": "loud"}, want: "LOG_LEVEL"},
		{name: "trusted proxies", env: map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"}, want: "TRUSTED_PROXIES"},
		{name: "public url relative", env: map[string]string{"PUBLIC_URL": "example.com"}, want: "PUBLIC_URL"},
		{name: "public url scheme", env: map[string]string{"PUBLIC_URL": "ftp://example.com"}, want: "PUBLIC_URL"},
		{name: "public url path", env: map[string]string{"PUBLIC_URL": "https://example.com/app"}, want: "PUBLIC_URL"},
		{name: "public url query", env: map[string]string{"PUBLIC_URL": "https://example.com/?a=1"}, want: "PUBLIC_URL"},
		{name: "public url user", env: map[string]string{"PUBLIC_URL": "https://u:p@example.com"}, want: "PUBLIC_URL"},
		{name: "public url port", env: map[string]string{"PUBLIC_URL": "https://example.com:99999"}, want: "PUBLIC_URL"},
		{name: "x credentials without a platform", env: map[string]string{"X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a"}, want: "PLATFORM"},
		{name: "short metrics token", proc: Web, env: map[string]string{"METRICS_TOKEN": "short"}, want: "METRICS_TOKEN"},
		{name: "web metrics addr", proc: Web, env: map[string]string{"METRICS_ADDR": "9091"}, want: "METRICS_ADDR"},
		{name: "media host with scheme", proc: Web, env: map[string]string{"MEDIA_HOSTS": "https://pbs.twimg.com"}, want: "MEDIA_HOSTS"},
		{name: "media host with path", proc: Web, env: map[string]string{"MEDIA_HOSTS": "pbs.twimg.com/media"}, want: "MEDIA_HOSTS"},
		{name: "media host policy injection", proc: Web, env: map[string]string{"MEDIA_HOSTS": "pbs.twimg.com; script-src *"}, want: "MEDIA_HOSTS"},
		{name: "media host bare wildcard", proc: Web, env: map[string]string{"MEDIA_HOSTS": "*"}, want: "MEDIA_HOSTS"},
		{name: "unknown process", proc: Process("cron"), env: nil, want: "cron"},
		{name: "reply policy", env: map[string]string{"X_REPLY_POLICY": "anyone"}, want: "X_REPLY_POLICY"},
		{name: "reply policy case", env: map[string]string{"X_REPLY_POLICY": "OPEN"}, want: "X_REPLY_POLICY"},
		{name: "hand-posting source", env: map[string]string{"HAND_POSTING_SOURCES": "conversation,profile"}, want: "HAND_POSTING_SOURCES"},
		{name: "hand-posting garbage", env: map[string]string{"HAND_POSTING_SOURCES": "all of them"}, want: "HAND_POSTING_SOURCES"},
		{name: "margin negative", env: map[string]string{"X_RATE_LIMIT_MARGIN": "-1"}, want: "X_RATE_LIMIT_MARGIN"},
		{name: "margin word", env: map[string]string{"X_RATE_LIMIT_MARGIN": "one"}, want: "X_RATE_LIMIT_MARGIN"},
		{name: "max results too small", env: map[string]string{"X_MAX_RESULTS": "5"}, want: "X_MAX_RESULTS"},
		{name: "max results too large", env: map[string]string{"X_MAX_RESULTS": "500"}, want: "X_MAX_RESULTS"},
		{name: "price negative", env: map[string]string{"X_PRICE_POST_READ": "-0.005"}, want: "X_PRICE_POST_READ"},
		{name: "price NaN", env: map[string]string{"X_PRICE_USER_READ": "NaN"}, want: "X_PRICE_USER_READ"},
		{name: "price infinite", env: map[string]string{"X_PRICE_OWNED_READ": "+Inf"}, want: "X_PRICE_OWNED_READ"},
		{name: "price with a dollar", env: map[string]string{"X_PRICE_POST_CREATE": "$0.015"}, want: "X_PRICE_POST_CREATE"},
		{name: "url price", env: map[string]string{"X_PRICE_POST_CREATE_URL": "0,20"}, want: "X_PRICE_POST_CREATE_URL"},
		{name: "prompt price", env: map[string]string{"OPENAI_PROMPT_USD_PER_MILLION": "-1"}, want: "OPENAI_PROMPT_USD_PER_MILLION"},
		{name: "completion price", env: map[string]string{"OPENAI_COMPLETION_USD_PER_MILLION": "x"}, want: "OPENAI_COMPLETION_USD_PER_MILLION"},
		{name: "daily budget", env: map[string]string{"X_DAILY_BUDGET_USD": "-5"}, want: "X_DAILY_BUDGET_USD"},
		{name: "monthly budget", env: map[string]string{"X_MONTHLY_BUDGET_USD": "lots"}, want: "X_MONTHLY_BUDGET_USD"},
		{name: "model daily budget", env: map[string]string{"MODEL_DAILY_BUDGET_USD": "1e99"}, want: "MODEL_DAILY_BUDGET_USD"},
		{name: "model monthly budget", env: map[string]string{"MODEL_MONTHLY_BUDGET_USD": "-0.01"}, want: "MODEL_MONTHLY_BUDGET_USD"},
		{name: "bench ceiling", env: map[string]string{"BENCH_CEILING": "yes"}, want: "BENCH_CEILING"},
		{name: "model vision garbage", env: map[string]string{"MODEL_VISION": "sometimes"}, want: `MODEL_VISION must be one of auto, true, false, got "sometimes"`},
		{name: "model vision on the web tier", proc: Web, env: map[string]string{"MODEL_VISION": "yes"}, want: "MODEL_VISION"},
		{name: "max conns garbage", env: map[string]string{"DATABASE_MAX_CONNS": "many"}, want: "DATABASE_MAX_CONNS"},
		{name: "max conns too few", env: map[string]string{"DATABASE_MAX_CONNS": "2"}, want: "DATABASE_MAX_CONNS"},
		{name: "max conns too many", env: map[string]string{"DATABASE_MAX_CONNS": "501"}, want: "DATABASE_MAX_CONNS"},
		{name: "worker concurrency garbage", env: map[string]string{"WORKER_CONCURRENCY": "lots"}, want: "WORKER_CONCURRENCY"},
		{name: "worker concurrency zero", env: map[string]string{"WORKER_CONCURRENCY": "0"}, want: "WORKER_CONCURRENCY"},
		{name: "worker concurrency too many", env: map[string]string{"WORKER_CONCURRENCY": "1001"}, want: "WORKER_CONCURRENCY"},
		{name: "model concurrency garbage", env: map[string]string{"MODEL_CONCURRENCY": "1.5"}, want: "MODEL_CONCURRENCY"},
		{name: "learning prompt chars garbage", env: map[string]string{"LEARNING_PROMPT_CHARS": "lots"}, want: "LEARNING_PROMPT_CHARS"},
		{name: "learning prompt chars too few", env: map[string]string{"LEARNING_PROMPT_CHARS": "199"}, want: "LEARNING_PROMPT_CHARS"},
		{name: "learning prompt chars too many", env: map[string]string{"LEARNING_PROMPT_CHARS": "20001"}, want: "LEARNING_PROMPT_CHARS"},
		{name: "model concurrency zero", env: map[string]string{"MODEL_CONCURRENCY": "0"}, want: "MODEL_CONCURRENCY"},
		{name: "model concurrency above the tasks", env: map[string]string{"WORKER_CONCURRENCY": "8", "MODEL_CONCURRENCY": "9"}, want: "MODEL_CONCURRENCY"},
		{name: "search query set", env: map[string]string{"SEARCH_QUERY": "(monday OR gym) -is:retweet"}, want: "SEARCH_TOPICS"},
		{name: "topic with a quote", env: map[string]string{"SEARCH_TOPICS": `monday,"cold brew"`}, want: "SEARCH_TOPICS"},
		{name: "topic too long", env: map[string]string{"SEARCH_TOPICS": strings.Repeat("a", 101)}, want: "SEARCH_TOPICS"},
		{name: "topic invalid UTF-8", env: map[string]string{"SEARCH_TOPICS": "\xff"}, want: "SEARCH_TOPICS"},
		{name: "blocked author", env: map[string]string{"BLOCKED_AUTHORS": "spammer,not a handle"}, want: "BLOCKED_AUTHORS"},
		{name: "blocked phrase too long", env: map[string]string{"BLOCKED_PHRASES": strings.Repeat("x", 201)}, want: "BLOCKED_PHRASES"},
		{name: "conversation cap zero", env: map[string]string{"REPLY_CAP_PER_CONVERSATION": "0"}, want: "REPLY_CAP_PER_CONVERSATION"},
		{name: "author cap word", env: map[string]string{"REPLY_CAP_PER_AUTHOR_PER_DAY": "three"}, want: "REPLY_CAP_PER_AUTHOR_PER_DAY"},
		{name: "send cap negative", env: map[string]string{"SEND_CAP_PER_3H": "-1"}, want: "SEND_CAP_PER_3H"},
		{name: "send cap huge", env: map[string]string{"SEND_CAP_PER_DAY": "100000"}, want: "SEND_CAP_PER_DAY"},
		{name: "window cap over day cap", env: map[string]string{"SEND_CAP_PER_3H": "60", "SEND_CAP_PER_DAY": "50"}, want: "SEND_CAP_PER_3H"},
		{name: "threshold above 1", env: map[string]string{"NEAR_DUPLICATE_THRESHOLD": "1.5"}, want: "NEAR_DUPLICATE_THRESHOLD"},
		{name: "threshold zero", env: map[string]string{"NEAR_DUPLICATE_THRESHOLD": "0"}, want: "NEAR_DUPLICATE_THRESHOLD"},
		{name: "threshold NaN", env: map[string]string{"NEAR_DUPLICATE_THRESHOLD": "NaN"}, want: "NEAR_DUPLICATE_THRESHOLD"},
		{name: "threshold percent", env: map[string]string{"NEAR_DUPLICATE_THRESHOLD": "80%"}, want: "NEAR_DUPLICATE_THRESHOLD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proc := tt.proc
			if proc == "" {
				proc = Worker
			}
			_, err := Load(proc, env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

func TestLoadDatabaseMaxConns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		proc Process
		env  map[string]string
		want int
	}{
		{name: "web unset", proc: Web, want: 10},
		{name: "scheduler unset", proc: Scheduler, want: 10},
		{name: "worker unset follows the concurrency", proc: Worker, want: 32 - 16 + 2},
		{name: "worker small concurrency keeps 10", proc: Worker, env: map[string]string{"WORKER_CONCURRENCY": "8", "MODEL_CONCURRENCY": "4"}, want: 10},
		{name: "worker large concurrency", proc: Worker, env: map[string]string{"WORKER_CONCURRENCY": "200", "MODEL_CONCURRENCY": "50"}, want: 152},
		{name: "worker capped", proc: Worker, env: map[string]string{"WORKER_CONCURRENCY": "1000", "MODEL_CONCURRENCY": "1"}, want: 500},
		{name: "worker explicit wins", proc: Worker, env: map[string]string{"DATABASE_MAX_CONNS": "4"}, want: 4},
		{name: "smallest", proc: Web, env: map[string]string{"DATABASE_MAX_CONNS": "3"}, want: 3},
		{name: "spaces", proc: Worker, env: map[string]string{"DATABASE_MAX_CONNS": " 40 "}, want: 40},
		{name: "largest", proc: Worker, env: map[string]string{"DATABASE_MAX_CONNS": "500"}, want: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.proc, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.DatabaseMaxConns != tt.want {
				t.Errorf("DatabaseMaxConns = %d, want %d", c.DatabaseMaxConns, tt.want)
			}
		})
	}
}

func TestLoadConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		env         map[string]string
		want, model int
	}{
		{name: "defaults", want: 32, model: 16},
		{name: "set", env: map[string]string{"WORKER_CONCURRENCY": " 64 ", "MODEL_CONCURRENCY": "64"}, want: 64, model: 64},
		{name: "one each", env: map[string]string{"WORKER_CONCURRENCY": "1", "MODEL_CONCURRENCY": "1"}, want: 1, model: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.WorkerConcurrency != tt.want || c.ModelConcurrency != tt.model {
				t.Errorf("concurrency = %d, %d, want %d, %d", c.WorkerConcurrency, c.ModelConcurrency, tt.want, tt.model)
			}
		})
	}
}

func TestLoadTrustedProxies(t *testing.T) {
	t.Parallel()
	c, err := Load(Web, env(map[string]string{"TRUSTED_PROXIES": " 10.0.0.0/8 , 127.0.0.1, ::1"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.0/8 127.0.0.1/32 ::1/128" {
		t.Errorf("TrustedProxies = %v", got)
	}
}

func TestLoadPublicURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		want  string
	}{
		{name: "unset", value: "", want: ""},
		{name: "https", value: "https://Hell.Example.com", want: "https://hell.example.com"},
		{name: "trailing slash", value: "https://hell.example.com/", want: "https://hell.example.com"},
		{name: "http with port", value: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Web, env(map[string]string{"PUBLIC_URL": tt.value}))
			if err != nil || c.PublicURL != tt.want {
				t.Errorf("PublicURL = %q (%v), want %q", c.PublicURL, err, tt.want)
			}
		})
	}
}

func TestLoadAdminPasswordFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		want  string
	}{
		{name: "default", value: "", want: "admin-password"},
		{name: "set", value: "/run/secrets/admin-password", want: "/run/secrets/admin-password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Web, env(map[string]string{"ADMIN_PASSWORD_FILE": tt.value}))
			if err != nil || c.AdminPasswordFile != tt.want {
				t.Errorf("AdminPasswordFile = %q (%v), want %q", c.AdminPasswordFile, err, tt.want)
			}
		})
	}
}

func TestLoadRedactsPassword(t *testing.T) {
	t.Parallel()
	_, err := Load(Web, env(map[string]string{"DATABASE_URL": "mysql://u:secret@h/db"}))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("error %v must not print the password", err)
	}
}

// Each process reads only its own secrets: the web tier's admin password and
// metrics token, the worker's X and model credentials. PLATFORM=x needs the
// X credentials in the worker only.
func TestLoadByProcess(t *testing.T) {
	t.Parallel()
	xCreds := map[string]string{"PLATFORM": "x", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a",
		"OPENAI_API_KEY": "sk-secret", "ADMIN_PASSWORD": "correct horse", "METRICS_TOKEN": "0123456789abcdef0123"}
	withEmbeddings := map[string]string{"EMBEDDINGS_MODEL": "text-embedding-3-small"}
	for k, v := range xCreds {
		withEmbeddings[k] = v
	}
	tests := []struct {
		name        string
		proc        Process
		env         map[string]string
		wantErr     string
		wantSecrets string
		wantMetrics string
		wantWriter  string
	}{
		{name: "web with platform x and no credentials", proc: Web, env: map[string]string{"PLATFORM": "x"}},
		{name: "scheduler with platform x and no credentials", proc: Scheduler, env: map[string]string{"PLATFORM": "x"}},
		{name: "worker with platform x and no credentials", proc: Worker, env: map[string]string{"PLATFORM": "x"}, wantErr: "X_ACCESS_SECRET"},
		{name: "web reads the admin password and metrics token only", proc: Web, env: xCreds,
			wantSecrets: "|||||correct horse|0123456789abcdef0123"},
		{name: "web with embeddings reads the model key too", proc: Web, env: withEmbeddings,
			wantSecrets: "||||sk-secret|correct horse|0123456789abcdef0123", wantWriter: WriterOpenAI},
		{name: "worker reads the X and model credentials only", proc: Worker, env: xCreds,
			wantSecrets: "k|s|t|a|sk-secret||", wantMetrics: "127.0.0.1:9091", wantWriter: WriterOpenAI},
		{name: "scheduler reads no secret", proc: Scheduler, env: xCreds, wantSecrets: "||||||"},
		{name: "a short admin password does not stop the worker", proc: Worker, env: map[string]string{"ADMIN_PASSWORD": "short"},
			wantSecrets: "||||||", wantMetrics: "127.0.0.1:9091", wantWriter: WriterOffline},
		{name: "web metrics listener when set", proc: Web, env: map[string]string{"METRICS_ADDR": ":9092"}, wantSecrets: "||||||", wantMetrics: ":9092"},
		{name: "worker metrics listener when set", proc: Worker, env: map[string]string{"METRICS_ADDR": ":9091"}, wantSecrets: "||||||", wantMetrics: ":9091", wantWriter: WriterOffline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.proc, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Process != tt.proc {
				t.Errorf("Process = %q, want %q", c.Process, tt.proc)
			}
			if tt.wantSecrets == "" {
				return
			}
			got := strings.Join([]string{c.XAPIKey, c.XAPISecret, c.XAccessToken, c.XAccessSecret, c.OpenAIAPIKey, c.AdminPassword, c.MetricsToken}, "|")
			if got != tt.wantSecrets {
				t.Errorf("secrets read = %q, want %q", got, tt.wantSecrets)
			}
			if c.MetricsAddr != tt.wantMetrics || c.Writer != tt.wantWriter {
				t.Errorf("metrics %q writer %q, want %q and %q", c.MetricsAddr, c.Writer, tt.wantMetrics, tt.wantWriter)
			}
		})
	}
}

// EMBEDDINGS_MODEL with the openai writer turns the embeddings on alike
// in the worker and the web tier; the web tier reads the model's address
// and key only when EMBEDDINGS_MODEL is set, and checks them then.
func TestLoadEmbeddings(t *testing.T) {
	t.Parallel()
	key := map[string]string{"EMBEDDINGS_MODEL": "text-embedding-3-small", "OPENAI_API_KEY": "sk-secret"}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range m {
			out[a] = b
		}
		return out
	}
	tests := []struct {
		name    string
		proc    Process
		env     map[string]string
		wantErr string
		want    bool
		wantKey string
		wantURL string
	}{
		{name: "worker with a key", proc: Worker, env: key, want: true, wantKey: "sk-secret", wantURL: "https://api.openai.com/v1"},
		{name: "web with a key", proc: Web, env: key, want: true, wantKey: "sk-secret", wantURL: "https://api.openai.com/v1"},
		{name: "web with a local server", proc: Web, env: map[string]string{"EMBEDDINGS_MODEL": "nomic-embed-text", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"},
			want: true, wantURL: "http://127.0.0.1:11434/v1"},
		{name: "web without a provider", proc: Web, env: map[string]string{"EMBEDDINGS_MODEL": "text-embedding-3-small"}},
		{name: "web with the offline writer", proc: Web, env: with(key, "WRITER", "offline"), wantKey: "sk-secret"},
		{name: "worker with the offline writer", proc: Worker, env: with(key, "WRITER", "offline"), wantKey: "sk-secret"},
		{name: "web without the model reads no key", proc: Web, env: map[string]string{"OPENAI_API_KEY": "sk-secret", "OPENAI_BASE_URL": "ftp://x", "WRITER": "bogus"}},
		{name: "scheduler reads none of it", proc: Scheduler, env: with(key, "OPENAI_BASE_URL", "ftp://x")},
		{name: "web checks the address", proc: Web, env: with(key, "OPENAI_BASE_URL", "ftp://x"), wantErr: "OPENAI_BASE_URL"},
		{name: "web checks the writer", proc: Web, env: with(key, "WRITER", "bogus"), wantErr: "WRITER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.proc, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Embeddings() != tt.want || c.OpenAIAPIKey != tt.wantKey || (tt.wantURL != "" && c.OpenAIBaseURL != tt.wantURL) {
				t.Fatalf("embeddings %v, key %q, url %q; want %v, %q, %q", c.Embeddings(), c.OpenAIAPIKey, c.OpenAIBaseURL, tt.want, tt.wantKey, tt.wantURL)
			}
		})
	}
}

func TestLoadMediaHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "sandbox has none", env: nil, want: ""},
		{name: "x defaults to its media hosts", env: map[string]string{"PLATFORM": "x"}, want: "pbs.twimg.com abs.twimg.com video.twimg.com"},
		{name: "bluesky defaults to its cdn", env: map[string]string{"PLATFORM": "bluesky"}, want: "cdn.bsky.app"},
		{name: "x and bluesky take both", env: map[string]string{"PLATFORM": "x,bluesky"}, want: "pbs.twimg.com abs.twimg.com video.twimg.com cdn.bsky.app"},
		{name: "set wins", env: map[string]string{"PLATFORM": "x", "MEDIA_HOSTS": " PBS.twimg.com, *.cdn.example:8443 ,"}, want: "pbs.twimg.com *.cdn.example:8443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Web, env(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := strings.Join(c.MediaHosts, " "); got != tt.want {
				t.Errorf("MediaHosts = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadX2026(t *testing.T) {
	t.Parallel()
	xCreds := map[string]string{"PLATFORM": "x", "X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a"}
	tests := []struct {
		name              string
		env               map[string]string
		wantPolicy        string
		wantHand          string
		wantConversations string
		wantTargeted      string
		wantMaxResults    int
		wantHandInterval  time.Duration
	}{
		{name: "sandbox defaults", wantPolicy: "summoned", wantHand: "conversation,targeted",
			wantConversations: "@every 10m", wantTargeted: "@every 15m", wantMaxResults: 100, wantHandInterval: 5 * time.Minute},
		{name: "economical defaults on X", env: xCreds, wantPolicy: "summoned", wantHand: "conversation,targeted",
			wantConversations: "@every 1h", wantTargeted: "@every 2h", wantMaxResults: 10, wantHandInterval: 5 * time.Minute},
		{name: "explicit values win", env: map[string]string{"X_REPLY_POLICY": "open", "HAND_POSTING_SOURCES": " mention , mention,targeted",
			"SCHEDULE_CONVERSATIONS": "@every 5m", "X_MAX_RESULTS": "50", "HAND_POSTED_INTERVAL": "30s"}, wantPolicy: "open", wantHand: "mention,targeted",
			wantConversations: "@every 5m", wantTargeted: "@every 15m", wantMaxResults: 50, wantHandInterval: 30 * time.Second},
		{name: "no hand-posting", env: map[string]string{"HAND_POSTING_SOURCES": "none"}, wantPolicy: "summoned", wantHand: "",
			wantConversations: "@every 10m", wantTargeted: "@every 15m", wantMaxResults: 100, wantHandInterval: 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.ReplyPolicy != tt.wantPolicy || strings.Join(c.HandPosting, ",") != tt.wantHand ||
				c.Schedules.Conversations != tt.wantConversations || c.Schedules.Targeted != tt.wantTargeted || c.XMaxResults != tt.wantMaxResults ||
				c.HandPostedInterval != tt.wantHandInterval {
				t.Errorf("got policy %q hand %q schedules %q/%q max %d hand interval %s", c.ReplyPolicy, c.HandPosting,
					c.Schedules.Conversations, c.Schedules.Targeted, c.XMaxResults, c.HandPostedInterval)
			}
			if c.RateLimitMargin != 1 || c.Prices.PostRead != 0.005 || c.Prices.PostCreateURL != 0.20 || c.Budgets != DefaultBudgets() {
				t.Errorf("defaults: margin %d prices %+v budgets %+v", c.RateLimitMargin, c.Prices, c.Budgets)
			}
		})
	}
}

// The addresses of a deployment on several machines load as they are: the
// sentinels of a Redis, and several PostgreSQL hosts of which the one
// accepting writes is taken.
func TestLoadHighAvailabilityAddresses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		redisURL string
		dbURL    string
	}{
		{name: "sentinels and two database hosts",
			redisURL: "redis-sentinel://:pw@10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379/0?master=infernal",
			dbURL:    "postgres://app:pw@db1:5432,db2:5432/infernal?target_session_attrs=read-write"},
		{name: "sentinels on the default port",
			redisURL: "redis-sentinel://s1,s2,s3?master=infernal",
			dbURL:    "postgresql://app@db1,db2:5433/infernal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Web, env(map[string]string{"REDIS_URL": tt.redisURL, "DATABASE_URL": tt.dbURL, "ADMIN_PASSWORD": "hellfire666"}))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.RedisURL != tt.redisURL || c.DatabaseURL != tt.dbURL {
				t.Errorf("got %q and %q, want them as given", c.RedisURL, c.DatabaseURL)
			}
		})
	}
}

func TestLoadAsynqmonReadOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr bool
	}{
		{name: "read-only by default", env: nil, want: true},
		{name: "true", env: map[string]string{"ASYNQMON_READ_ONLY": "true"}, want: true},
		{name: "false written explicitly", env: map[string]string{"ASYNQMON_READ_ONLY": "false"}, want: false},
		{name: "garbage", env: map[string]string{"ASYNQMON_READ_ONLY": "nope"}, wantErr: true},
		{name: "other spelling", env: map[string]string{"ASYNQMON_READ_ONLY": "0"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Web, env(tt.env))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Load: %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "ASYNQMON_READ_ONLY") {
					t.Errorf("error %v does not name ASYNQMON_READ_ONLY", err)
				}
				return
			}
			if c.AsynqmonReadOnly != tt.want {
				t.Errorf("AsynqmonReadOnly = %v, want %v", c.AsynqmonReadOnly, tt.want)
			}
		})
	}
}

// Spending has a ceiling by default; none only when written explicitly,
// and then each process warns, naming the variable.
func TestLoadBudgets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		env           map[string]string
		want          spend.Budgets
		wantUnbounded []string
	}{
		{name: "defaults", env: nil, want: spend.Budgets{XDaily: 2, XMonthly: 40, ModelDaily: 1, ModelMonthly: 20}},
		{name: "set", env: map[string]string{"X_DAILY_BUDGET_USD": "5.5", "MODEL_MONTHLY_BUDGET_USD": "3"},
			want: spend.Budgets{XDaily: 5.5, XMonthly: 40, ModelDaily: 1, ModelMonthly: 3}},
		{name: "none written", env: map[string]string{"X_DAILY_BUDGET_USD": "none", "MODEL_DAILY_BUDGET_USD": "NONE"},
			want: spend.Budgets{XMonthly: 40, ModelMonthly: 20}, wantUnbounded: []string{"X_DAILY_BUDGET_USD", "MODEL_DAILY_BUDGET_USD"}},
		{name: "zero is none too", env: map[string]string{"X_MONTHLY_BUDGET_USD": "0"},
			want: spend.Budgets{XDaily: 2, ModelDaily: 1, ModelMonthly: 20}, wantUnbounded: []string{"X_MONTHLY_BUDGET_USD"}},
		{name: "blank is the default", env: map[string]string{"X_DAILY_BUDGET_USD": "  "}, want: DefaultBudgets()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.Budgets != tt.want || !slices.Equal(c.Unbounded, tt.wantUnbounded) {
				t.Errorf("Budgets %+v unbounded %q, want %+v %q", c.Budgets, c.Unbounded, tt.want, tt.wantUnbounded)
			}
			var out strings.Builder
			c.WarnUnbounded(slog.New(slog.NewJSONHandler(&out, nil)))
			for _, name := range tt.wantUnbounded {
				if !strings.Contains(out.String(), `"level":"WARN","msg":"NO SPENDING CEILING: `+name) {
					t.Errorf("no warning naming %s:\n%s", name, out.String())
				}
			}
			if got := strings.Count(out.String(), "\n"); got != len(tt.wantUnbounded) {
				t.Errorf("%d warning lines, want %d", got, len(tt.wantUnbounded))
			}
		})
	}
	if _, err := Load(Worker, env(map[string]string{"X_DAILY_BUDGET_USD": "nothing"})); err == nil || !strings.Contains(err.Error(), "X_DAILY_BUDGET_USD") {
		t.Errorf("garbage budget: %v, want an error naming it", err)
	}
}

// Every process knows the persona's Bluesky handle, which is public; a
// handle that is a DID leaves the persona's handle to stand in.
func TestHandles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		proc    Process
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "web with a domain", proc: Web, env: map[string]string{"PLATFORM": "x,bluesky", "BLUESKY_HANDLE": "@Infernal.bsky.social"}, want: "Infernal.bsky.social"},
		{name: "scheduler with a domain", proc: Scheduler, env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "infernal.bsky.social"}, want: "infernal.bsky.social"},
		{name: "a did", proc: Web, env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "did:plc:abc234"}, want: ""},
		{name: "none", proc: Web, env: map[string]string{"PLATFORM": "x"}, want: ""},
		{name: "garbage", proc: Web, env: map[string]string{"PLATFORM": "bluesky", "BLUESKY_HANDLE": "not a handle"}, wantErr: "BLUESKY_HANDLE must be a handle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.proc, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Handles()[post.BlueskyPlatform]; got != tt.want {
				t.Errorf("Handles()[bluesky] = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadMastodon(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		proc   Process
		env    map[string]string
		want   string // the variable the error names, "" for none
		server string
	}{
		{name: "named with server and token", proc: Worker, env: map[string]string{"PLATFORM": "x,bluesky,mastodon", "X_API_KEY": "k", "X_API_SECRET": "s",
			"X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a", "BLUESKY_HANDLE": "infernal.bsky.social", "BLUESKY_APP_PASSWORD": "abcd-efgh-ijkl-mnop",
			"MASTODON_SERVER": "https://mastodon.social/", "MASTODON_ACCESS_TOKEN": "tok"}, server: "https://mastodon.social"},
		{name: "loopback http for tests", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "http://127.0.0.1:3000",
			"MASTODON_ACCESS_TOKEN": "tok"}, server: "http://127.0.0.1:3000"},
		{name: "server missing", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_ACCESS_TOKEN": "tok"}, want: "MASTODON_SERVER"},
		{name: "token missing", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "https://m.example"}, want: "MASTODON_ACCESS_TOKEN"},
		{name: "token with spaces", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "https://m.example", "MASTODON_ACCESS_TOKEN": "a b"}, want: "MASTODON_ACCESS_TOKEN"},
		{name: "plain http elsewhere", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "http://m.example", "MASTODON_ACCESS_TOKEN": "tok"}, want: "MASTODON_SERVER"},
		{name: "server garbage", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "not a url", "MASTODON_ACCESS_TOKEN": "tok"}, want: "MASTODON_SERVER"},
		{name: "server with user info", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "https://u:p@m.example", "MASTODON_ACCESS_TOKEN": "tok"}, want: "MASTODON_SERVER"},
		// Now the admin's setting platforms.mastodon.reply_to_direct: a value left set is refused, not ignored.
		{name: "reply to direct retired", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "https://m.example", "MASTODON_ACCESS_TOKEN": "tok", "MASTODON_REPLY_TO_DIRECT": "true"}, want: "platforms.mastodon.reply_to_direct"},
		{name: "reply to direct retired, false too", proc: Worker, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_SERVER": "https://m.example", "MASTODON_ACCESS_TOKEN": "tok", "MASTODON_REPLY_TO_DIRECT": "false"}, want: "MASTODON_REPLY_TO_DIRECT"},
		{name: "token without PLATFORM", proc: Worker, env: map[string]string{"MASTODON_ACCESS_TOKEN": "tok"}, want: "PLATFORM"},
		{name: "combined with the sandbox", proc: Worker, env: map[string]string{"PLATFORM": "sandbox,mastodon"}, want: "PLATFORM"},
		{name: "the web tier never reads the token", proc: Web, env: map[string]string{"PLATFORM": "mastodon", "MASTODON_ACCESS_TOKEN": "a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.proc, env(tt.env))
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Load error = %v, want one naming %s", err, tt.want)
				}
				if err != nil && strings.Contains(err.Error(), "a b") {
					t.Errorf("the error repeats the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.MastodonServer != tt.server || (tt.proc == Web && c.MastodonAccessToken != "") {
				t.Errorf("server %q token %q", c.MastodonServer, c.MastodonAccessToken)
			}
		})
	}
}
