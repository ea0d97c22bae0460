package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Platform != PlatformSandbox || c.Writer != WriterOffline {
		t.Errorf("defaults: platform %q writer %q, want sandbox/offline", c.Platform, c.Writer)
	}
	if c.HTTPAddr != ":8080" || c.SessionTTL != 12*time.Hour || c.AdminUsername != "admin" {
		t.Errorf("defaults: %+v", c)
	}
	if c.Schedules.Mentions != "@every 2m" || c.Schedules.Reconcile != "@every 1m" {
		t.Errorf("schedules: %+v", c.Schedules)
	}
}

func TestLoadChoices(t *testing.T) {
	tests := []struct {
		name         string
		env          map[string]string
		wantPlatform string
		wantWriter   string
	}{
		{name: "x credentials pick x", env: map[string]string{"X_API_KEY": "k", "X_API_SECRET": "s", "X_ACCESS_TOKEN": "t", "X_ACCESS_SECRET": "a"}, wantPlatform: PlatformX, wantWriter: WriterOffline},
		{name: "explicit sandbox wins over credentials", env: map[string]string{"PLATFORM": "sandbox", "X_API_KEY": "k"}, wantPlatform: PlatformSandbox, wantWriter: WriterOffline},
		{name: "openai key picks openai", env: map[string]string{"OPENAI_API_KEY": "sk"}, wantPlatform: PlatformSandbox, wantWriter: WriterOpenAI},
		{name: "base url alone picks openai (ollama)", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, wantPlatform: PlatformSandbox, wantWriter: WriterOpenAI},
		{name: "explicit offline wins", env: map[string]string{"WRITER": "offline", "OPENAI_API_KEY": "sk"}, wantPlatform: PlatformSandbox, wantWriter: WriterOffline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Platform != tt.wantPlatform || c.Writer != tt.wantWriter {
				t.Errorf("got %s/%s, want %s/%s", c.Platform, c.Writer, tt.wantPlatform, tt.wantWriter)
			}
		})
	}
}

func TestLoadTargets(t *testing.T) {
	c, err := Load(env(map[string]string{"TARGET_USERNAMES": " @alice, bob_2 ,,", "PERSONA_HANDLE": "@devil"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if strings.Join(c.TargetUsernames, "|") != "alice|bob_2" || c.PersonaHandle != "devil" {
		t.Errorf("got targets %q handle %q", c.TargetUsernames, c.PersonaHandle)
	}
}

func TestLoadRejectsGarbage(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "database url scheme", env: map[string]string{"DATABASE_URL": "mysql://x/y"}, want: "DATABASE_URL"},
		{name: "database url garbage", env: map[string]string{"DATABASE_URL": "::::"}, want: "DATABASE_URL"},
		{name: "redis url", env: map[string]string{"REDIS_URL": "localhost:6379"}, want: "REDIS_URL"},
		{name: "http addr", env: map[string]string{"HTTP_ADDR": "8080"}, want: "HTTP_ADDR"},
		{name: "http port", env: map[string]string{"HTTP_ADDR": ":99999"}, want: "HTTP_ADDR"},
		{name: "platform", env: map[string]string{"PLATFORM": "myspace"}, want: "PLATFORM"},
		{name: "writer", env: map[string]string{"WRITER": "gpt"}, want: "WRITER"},
		{name: "x without credentials", env: map[string]string{"PLATFORM": "x"}, want: "X_API_KEY"},
		{name: "cron", env: map[string]string{"SCHEDULE_MENTIONS": "every two minutes"}, want: "SCHEDULE_MENTIONS"},
		{name: "cron fields", env: map[string]string{"SCHEDULE_RECONCILE": "* * *"}, want: "SCHEDULE_RECONCILE"},
		{name: "ttl", env: map[string]string{"SESSION_TTL": "forever"}, want: "SESSION_TTL"},
		{name: "ttl too short", env: map[string]string{"SESSION_TTL": "1s"}, want: "SESSION_TTL"},
		{name: "pace", env: map[string]string{"SANDBOX_PACE": "-5s"}, want: "SANDBOX_PACE"},
		{name: "handle", env: map[string]string{"PERSONA_HANDLE": "not a handle!"}, want: "PERSONA_HANDLE"},
		{name: "targets", env: map[string]string{"TARGET_USERNAMES": "ok,bad name"}, want: "TARGET_USERNAMES"},
		{name: "short password", env: map[string]string{"ADMIN_PASSWORD": "short"}, want: "ADMIN_PASSWORD"},
		{name: "openai url", env: map[string]string{"OPENAI_BASE_URL": "ftp://x"}, want: "OPENAI_BASE_URL"},
		{name: "log level", env: map[string]string{"LOG_LEVEL": "loud"}, want: "LOG_LEVEL"},
		{name: "trusted proxies", env: map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"}, want: "TRUSTED_PROXIES"},
		{name: "public url relative", env: map[string]string{"PUBLIC_URL": "example.com"}, want: "PUBLIC_URL"},
		{name: "public url scheme", env: map[string]string{"PUBLIC_URL": "ftp://example.com"}, want: "PUBLIC_URL"},
		{name: "public url path", env: map[string]string{"PUBLIC_URL": "https://example.com/app"}, want: "PUBLIC_URL"},
		{name: "public url query", env: map[string]string{"PUBLIC_URL": "https://example.com/?a=1"}, want: "PUBLIC_URL"},
		{name: "public url user", env: map[string]string{"PUBLIC_URL": "https://u:p@example.com"}, want: "PUBLIC_URL"},
		{name: "public url port", env: map[string]string{"PUBLIC_URL": "https://example.com:99999"}, want: "PUBLIC_URL"},
		{name: "bench ceiling", env: map[string]string{"BENCH_CEILING": "yes"}, want: "BENCH_CEILING"},
		{name: "max conns garbage", env: map[string]string{"DATABASE_MAX_CONNS": "many"}, want: "DATABASE_MAX_CONNS"},
		{name: "max conns too few", env: map[string]string{"DATABASE_MAX_CONNS": "2"}, want: "DATABASE_MAX_CONNS"},
		{name: "max conns too many", env: map[string]string{"DATABASE_MAX_CONNS": "501"}, want: "DATABASE_MAX_CONNS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

func TestLoadDatabaseMaxConns(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  int
	}{
		{name: "unset", value: "", want: 10},
		{name: "smallest", value: "3", want: 3},
		{name: "spaces", value: " 40 ", want: 40},
		{name: "largest", value: "500", want: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{"DATABASE_MAX_CONNS": tt.value}))
			if err != nil {
				t.Fatal(err)
			}
			if c.DatabaseMaxConns != tt.want {
				t.Errorf("DatabaseMaxConns = %d, want %d", c.DatabaseMaxConns, tt.want)
			}
		})
	}
}

func TestLoadTrustedProxies(t *testing.T) {
	c, err := Load(env(map[string]string{"TRUSTED_PROXIES": " 10.0.0.0/8 , 127.0.0.1, ::1"}))
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
			c, err := Load(env(map[string]string{"PUBLIC_URL": tt.value}))
			if err != nil || c.PublicURL != tt.want {
				t.Errorf("PublicURL = %q (%v), want %q", c.PublicURL, err, tt.want)
			}
		})
	}
}

func TestLoadAdminPasswordFile(t *testing.T) {
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
			c, err := Load(env(map[string]string{"ADMIN_PASSWORD_FILE": tt.value}))
			if err != nil || c.AdminPasswordFile != tt.want {
				t.Errorf("AdminPasswordFile = %q (%v), want %q", c.AdminPasswordFile, err, tt.want)
			}
		})
	}
}

func TestLoadRedactsPassword(t *testing.T) {
	_, err := Load(env(map[string]string{"DATABASE_URL": "mysql://u:secret@h/db"}))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("error %v must not print the password", err)
	}
}
