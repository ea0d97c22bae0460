package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynqmon"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/redisurl"
)

// The real queue dashboard, mounted read-only as the web tier mounts it by
// default: its page runs under a policy that names its inline scripts'
// hashes and no 'unsafe-inline', it tells its page it is read-only, and
// its API refuses a change.
func TestQueueDashboardReadOnlyAndHashed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	conn, err := redisurl.Parse(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	ops := asynqmon.New(asynqmon.Options{RootPath: api.OpsPath, RedisConnOpt: conn.Asynq(), ReadOnly: true})
	t.Cleanup(func() { _ = ops.Close() })
	authn, err := auth.NewService(e.store, time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Store: e.store, Auth: authn, Queue: e.queue, Ops: ops,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	auth := map[string]string{"Authorization": "Bearer " + e.token, "Sec-Fetch-Site": "same-origin"}

	resp, body := send(t, http.MethodGet, srv.URL+api.OpsPath+"/", "", auth)
	csp := resp.Header.Get("Content-Security-Policy")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<script>") || !strings.Contains(body, `FLAG_READ_ONLY="true"`) {
		t.Fatalf("dashboard page: %d %.300s", resp.StatusCode, body)
	}
	scripts := regexp.MustCompile(`script-src [^;]*`).FindString(csp)
	hashes := regexp.MustCompile(`'sha256-[A-Za-z0-9+/=]+'`).FindAllString(scripts, -1)
	if strings.Contains(scripts, "unsafe-inline") || len(hashes) != strings.Count(body, "<script>") {
		t.Errorf("policy %q: want one hash per inline script (%d) and no 'unsafe-inline' for scripts", csp, strings.Count(body, "<script>"))
	}
	resp, body = send(t, http.MethodDelete, srv.URL+api.OpsPath+"/api/queues/default", "", auth)
	if resp.StatusCode < 400 {
		t.Errorf("deleting a queue through the read-only dashboard: %d %s", resp.StatusCode, body)
	}
}
