package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"infernal/pkg/api"
)

// deployServer serves the API on fakes with a stand-in metrics handler and
// the deployment settings given.
func deployServer(t *testing.T, metricsToken string, mediaHosts []string) *httptest.Server {
	t.Helper()
	st := &fakeStore{}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "up 1\n") })
	srv := newServer(t, api.New(api.Config{
		Store: st, Auth: fakeAuth{st}, Queue: fakeQueue{st},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil", Platform: "x",
		Metrics: metrics, MetricsToken: metricsToken, MediaHosts: mediaHosts,
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Prometheus reads /metrics with METRICS_TOKEN as its bearer token; the
// admin's session still works, anything else is refused.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	const token = "prometheus-0123456789abcdef"
	tests := []struct {
		name       string
		configured string
		bearer     string
		wantStatus int
	}{
		{name: "metrics token", configured: token, bearer: token, wantStatus: http.StatusOK},
		{name: "admin session", configured: token, bearer: fakeToken, wantStatus: http.StatusOK},
		{name: "wrong token", configured: token, bearer: token + "x", wantStatus: http.StatusUnauthorized},
		{name: "prefix of the token", configured: token, bearer: token[:16], wantStatus: http.StatusUnauthorized},
		{name: "no token", configured: token, bearer: "", wantStatus: http.StatusUnauthorized},
		{name: "none configured", configured: "", bearer: token, wantStatus: http.StatusUnauthorized},
		{name: "none configured, none sent", configured: "", bearer: "", wantStatus: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := deployServer(t, tt.configured, nil)
			status, body := call(t, srv, http.MethodGet, "/metrics", tt.bearer, "")
			if status != tt.wantStatus {
				t.Fatalf("GET /metrics = %d %s, want %d", status, body, tt.wantStatus)
			}
			if status == http.StatusOK && body != "up 1\n" {
				t.Errorf("body %q, want the metrics", body)
			}
		})
	}
}

// Images load from the site, data: URLs and the platform's media hosts over
// https only: not from every https host.
func TestContentSecurityPolicyImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		mediaHosts []string
		wantImg    string
	}{
		{name: "sandbox: no media hosts", mediaHosts: nil, wantImg: "img-src 'self' data:;"},
		{name: "x media hosts", mediaHosts: []string{"pbs.twimg.com", "abs.twimg.com"},
			wantImg: "img-src 'self' data: https://pbs.twimg.com https://abs.twimg.com;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := deployServer(t, "", tt.mediaHosts)
			for _, path := range []string{"/healthz", api.OpsPath + "/"} {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				csp := resp.Header.Get("Content-Security-Policy")
				if !strings.Contains(csp, tt.wantImg) {
					t.Errorf("%s: CSP %q, want %q", path, csp, tt.wantImg)
				}
				if strings.Contains(csp, " https:;") || strings.Contains(csp, " https: ") {
					t.Errorf("%s: CSP %q still allows every https host", path, csp)
				}
			}
		})
	}
}
