package e2e

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeService is what the deployment checks read of a compose service.
type composeService struct {
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

func loadCompose(t *testing.T) map[string]composeService {
	t.Helper()
	b, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return f.Services
}

// Each secret reaches only the services that use it: the admin password and
// the metrics token the web tier, the X, Bluesky, Telegram and model
// credentials the worker, the database password the database and its two
// clients. The platforms reach every process (the scheduler runs each
// platform's scans), the schedules the scheduler.
func TestComposeSecretsOnlyWhereUsed(t *testing.T) {
	t.Parallel()
	services := loadCompose(t)
	tests := []struct {
		name     string
		variable string
		want     []string
	}{
		{name: "admin password", variable: "ADMIN_PASSWORD", want: []string{"web"}},
		{name: "metrics token", variable: "METRICS_TOKEN", want: []string{"web"}},
		{name: "x api key", variable: "X_API_KEY", want: []string{"worker"}},
		{name: "x api secret", variable: "X_API_SECRET", want: []string{"worker"}},
		{name: "x access token", variable: "X_ACCESS_TOKEN", want: []string{"worker"}},
		{name: "x access secret", variable: "X_ACCESS_SECRET", want: []string{"worker"}},
		{name: "model key", variable: "OPENAI_API_KEY", want: []string{"worker"}},
		{name: "database password", variable: "POSTGRES_PASSWORD", want: []string{"postgres", "web", "worker"}},
		{name: "bluesky app password", variable: "BLUESKY_APP_PASSWORD", want: []string{"worker"}},
		{name: "mastodon access token", variable: "MASTODON_ACCESS_TOKEN", want: []string{"worker"}},
		{name: "telegram bot token", variable: "TELEGRAM_BOT_TOKEN", want: []string{"worker"}},
		{name: "platform named to every process", variable: "PLATFORM", want: []string{"scheduler", "web", "worker"}},
		{name: "schedules to the scheduler", variable: "SCHEDULE_MENTIONS", want: []string{"scheduler"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Set as a variable of the service, or interpolated into one of its values.
			ref := regexp.MustCompile(`\$\{` + tt.variable + `[:}?-]`)
			var got []string
			for name, svc := range services {
				for k, v := range svc.Environment {
					if k == tt.variable || ref.MatchString(v) {
						got = append(got, name)
						break
					}
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s reaches %v, want %v", tt.variable, got, tt.want)
			}
		})
	}
}

// No password is written in the file; the web port is published on
// loopback unless told otherwise; every long-running service checks its
// health; the generated admin password has a writable home.
func TestComposeDeploymentHygiene(t *testing.T) {
	t.Parallel()
	services := loadCompose(t)
	if v := services["postgres"].Environment["POSTGRES_PASSWORD"]; !strings.HasPrefix(v, "${POSTGRES_PASSWORD:?") {
		t.Errorf("postgres password %q: want it from the environment, required (${POSTGRES_PASSWORD:?...})", v)
	}
	for _, name := range []string{"web", "worker"} {
		url := services[name].Environment["DATABASE_URL"]
		if !strings.Contains(url, ":${POSTGRES_PASSWORD:?") {
			t.Errorf("%s DATABASE_URL %q does not take the generated password", name, url)
		}
	}
	for name, svc := range services {
		for _, p := range svc.Ports {
			// host:port:container, where host may be ${VAR:-default}.
			host := p
			if m := regexp.MustCompile(`^\$\{[A-Z_]+:-([^}]*)\}:`).FindStringSubmatch(p); m != nil {
				host = m[1]
			} else if i := strings.Index(p, ":"); i >= 0 {
				host = p[:i]
			}
			if host != "127.0.0.1" {
				t.Errorf("%s publishes %q, want it bound to 127.0.0.1 by default", name, p)
			}
		}
	}
	tests := []struct {
		name    string
		service string
		want    string
	}{
		{name: "web", service: "web", want: "/readyz"},
		{name: "worker", service: "worker", want: "-healthcheck"},
		{name: "scheduler", service: "scheduler", want: "-healthcheck"},
		{name: "postgres", service: "postgres", want: "pg_isready"},
		{name: "redis", service: "redis", want: "ping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := services[tt.service].Healthcheck
			if hc == nil || !strings.Contains(strings.Join(hc.Test, " "), tt.want) {
				t.Errorf("%s health check %v, want one running %q", tt.service, hc, tt.want)
			}
		})
	}
	if f := services["web"].Environment["ADMIN_PASSWORD_FILE"]; !strings.HasPrefix(f, "/var/lib/infernal/") {
		t.Errorf("web ADMIN_PASSWORD_FILE = %q, want it in the web's volume /var/lib/infernal", f)
	}
}
