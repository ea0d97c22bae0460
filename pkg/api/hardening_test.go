package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// hardenedEnv serves the API and a stand-in ops dashboard, answering every
// method, with the given public URL and trusted proxies.
func hardenedEnv(t *testing.T, publicURL string, trusted []netip.Prefix) *httptest.Server {
	t.Helper()
	st := storetest.New(t)
	queue, err := tasks.NewClient(taskstest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	authn, err := auth.NewService(st, time.Hour, time.Now, auth.WithLogger(log), testHashing())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authn.Bootstrap(context.Background(), "admin", password, log); err != nil {
		t.Fatal(err)
	}
	ops := http.NewServeMux()
	ops.HandleFunc("/diaries666op/queues/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "queues dashboard: "+r.Method) // a test double; the test reads what arrived
	})
	srv := newServer(t, api.New(api.Config{Store: st, Auth: authn, Queue: queue, Log: log, Ops: ops,
		Metrics: tasks.MetricsHandler(queue.Inspector()), PublicURL: publicURL, TrustedProxies: trusted}))
	t.Cleanup(srv.Close)
	return srv
}

// send makes one request with the given headers and returns the response,
// its body read.
func send(t *testing.T, method, url, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const goodLogin = `{"username":"admin","password":"` + password + `"}`

// Login takes JSON only: a page elsewhere can post text/plain or a form
// without asking, and so make visitors' browsers guess passwords.
func TestLoginNeedsJSON(t *testing.T) {
	t.Parallel()
	srv := hardenedEnv(t, "", nil)
	tests := []struct {
		name        string
		contentType string
		wantStatus  int
	}{
		{name: "text/plain", contentType: "text/plain", wantStatus: 415},
		{name: "form", contentType: "application/x-www-form-urlencoded", wantStatus: 415},
		{name: "multipart", contentType: "multipart/form-data; boundary=x", wantStatus: 415},
		{name: "none", contentType: "", wantStatus: 415},
		{name: "garbage", contentType: ";;;", wantStatus: 415},
		{name: "json", contentType: "application/json", wantStatus: 200},
		{name: "json with charset", contentType: "Application/JSON; charset=utf-8", wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, "POST", srv.URL+"/api/auth/login", goodLogin, map[string]string{"Content-Type": tt.contentType})
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.wantStatus)
			}
			if tt.wantStatus == 415 && !strings.Contains(errorOf(t, body), "application/json") {
				t.Errorf("415 without a JSON error naming the type: %s", body)
			}
		})
	}
}

// Failures for the admin's name from many addresses (behind a proxy) never
// lock the right password out from another address.
func TestLoginNotLockedOutByOthers(t *testing.T) {
	t.Parallel()
	srv := hardenedEnv(t, "", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")})
	for i := 0; i < auth.SlowAfter+1; i++ {
		resp, body := send(t, "POST", srv.URL+"/api/auth/login", `{"username":"admin","password":"wrong"}`,
			map[string]string{"Content-Type": "application/json", "X-Forwarded-For": "192.0.2." + strconv.Itoa(i+1) + ":4242"})
		if resp.StatusCode != 401 {
			t.Fatalf("failure %d: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := send(t, "POST", srv.URL+"/api/auth/login", goodLogin,
		map[string]string{"Content-Type": "application/json", "X-Forwarded-For": "[2001:db8::5]:443"})
	if resp.StatusCode != 200 {
		t.Fatalf("the right password from a fresh address after failures elsewhere: %d %s", resp.StatusCode, body)
	}
}

// loginCookie logs in and returns the session cookie the answer set, and the answer.
func loginCookie(t *testing.T, srv *httptest.Server, headers map[string]string) (*http.Cookie, *http.Response) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	resp, body := send(t, "POST", srv.URL+"/api/auth/login", goodLogin, h)
	if resp.StatusCode != 200 {
		t.Fatalf("login: %d %s", resp.StatusCode, body)
	}
	for _, c := range resp.Cookies() {
		if strings.HasSuffix(c.Name, "diaries666op_session") {
			return c, resp
		}
	}
	t.Fatal("login set no session cookie")
	return nil, nil
}

// Behind a TLS proxy the session cookie is Secure: with an https PUBLIC_URL
// it is also __Host- prefixed (so Path=/) and answers carry HSTS; without
// one, a trusted proxy's X-Forwarded-Proto counts, anyone else's does not.
func TestSessionCookieBehindTLS(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	tests := []struct {
		name       string
		publicURL  string
		trusted    []netip.Prefix
		headers    map[string]string
		wantName   string
		wantPath   string
		wantSecure bool
		wantHSTS   bool
	}{
		{name: "plain http", wantName: "diaries666op_session", wantPath: "/diaries666op"},
		{name: "https public url", publicURL: "https://hell.example", wantName: "__Host-diaries666op_session", wantPath: "/", wantSecure: true, wantHSTS: true},
		{name: "http public url", publicURL: "http://hell.example", wantName: "diaries666op_session", wantPath: "/diaries666op"},
		{name: "trusted proxy says https", trusted: proxies, headers: map[string]string{"X-Forwarded-Proto": "https"},
			wantName: "diaries666op_session", wantPath: "/diaries666op", wantSecure: true, wantHSTS: true},
		{name: "untrusted peer says https", headers: map[string]string{"X-Forwarded-Proto": "https"},
			wantName: "diaries666op_session", wantPath: "/diaries666op"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hardenedEnv(t, tt.publicURL, tt.trusted)
			c, resp := loginCookie(t, srv, tt.headers)
			if c.Name != tt.wantName || c.Path != tt.wantPath || c.Secure != tt.wantSecure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("cookie %s path %s secure %v httponly %v samesite %v; want %s path %s secure %v",
					c.Name, c.Path, c.Secure, c.HttpOnly, c.SameSite, tt.wantName, tt.wantPath, tt.wantSecure)
			}
			if got := resp.Header.Get("Strict-Transport-Security") != ""; got != tt.wantHSTS {
				t.Errorf("HSTS %q, want present %v", resp.Header.Get("Strict-Transport-Security"), tt.wantHSTS)
			}
			// The ops dashboard still opens with that cookie.
			ops, body := send(t, "GET", srv.URL+api.OpsPath+"/", "", map[string]string{"Cookie": c.Name + "=" + c.Value})
			if ops.StatusCode != 200 || !strings.Contains(body, "queues dashboard") {
				t.Errorf("ops with the cookie: %d %s", ops.StatusCode, body)
			}
			// Logging out deletes that same cookie.
			token := c.Value
			out, _ := send(t, "POST", srv.URL+"/api/auth/logout", "", map[string]string{"Authorization": "Bearer " + token})
			var deleted bool
			for _, dc := range out.Cookies() {
				deleted = deleted || (dc.Name == c.Name && dc.Path == c.Path && dc.MaxAge < 0)
			}
			if out.StatusCode != 204 || !deleted {
				t.Errorf("logout: %d, cookie deleted %v", out.StatusCode, deleted)
			}
		})
	}
}

// The ops dashboard refuses state-changing requests from other sites, which
// a browser would send with the session cookie.
func TestOpsRefusesCrossSiteRequests(t *testing.T) {
	t.Parallel()
	for _, publicURL := range []string{"", "https://hell.example"} {
		t.Run("public url "+publicURL, func(t *testing.T) {
			srv := hardenedEnv(t, publicURL, nil)
			c, _ := loginCookie(t, srv, nil)
			own := srv.URL
			if publicURL != "" {
				own = publicURL
			}
			cookie := c.Name + "=" + c.Value
			tests := []struct {
				name       string
				method     string
				path       string
				headers    map[string]string
				wantStatus int
			}{
				{name: "cross-site text/plain post", method: "POST", path: api.OpsPath + "/api/queues/default:pause",
					headers: map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
				{name: "foreign origin, old browser", method: "POST", path: api.OpsPath + "/api/queues/default:pause",
					headers: map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}, wantStatus: 403},
				{name: "same-site but other origin", method: "DELETE", path: api.OpsPath + "/api/queues/default",
					headers: map[string]string{"Sec-Fetch-Site": "same-site", "Origin": own}, wantStatus: 403},
				{name: "neither header", method: "POST", path: api.OpsPath + "/api/queues/default:pause", wantStatus: 403},
				{name: "metrics post cross-site", method: "POST", path: "/metrics",
					headers: map[string]string{"Origin": "https://evil.example"}, wantStatus: 403},
				{name: "same origin by fetch metadata", method: "POST", path: api.OpsPath + "/api/queues/default:pause",
					headers: map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "same-origin", "Origin": own}, wantStatus: 200},
				{name: "same origin by Origin alone", method: "POST", path: api.OpsPath + "/api/queues/default:pause",
					headers: map[string]string{"Origin": own}, wantStatus: 200},
				{name: "reading needs no origin", method: "GET", path: api.OpsPath + "/", wantStatus: 200},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					h := map[string]string{"Cookie": cookie}
					for k, v := range tt.headers {
						h[k] = v
					}
					resp, body := send(t, tt.method, srv.URL+tt.path, "pause", h)
					if resp.StatusCode != tt.wantStatus {
						t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.wantStatus)
					}
					if tt.wantStatus == 403 && !strings.Contains(errorOf(t, body), "cross-site") {
						t.Errorf("403 without a JSON error: %s", body)
					}
				})
			}
		})
	}
}

// Log out everywhere revokes every session of the admin, and the cookie.
func TestLogoutEverywhere(t *testing.T) {
	t.Parallel()
	e := setup(t)
	other := e.login()
	third := e.login()
	if status, body := e.do("POST", "/api/auth/logout-all", "", ""); status != 401 {
		t.Fatalf("log out everywhere without a token: %d %s", status, body)
	}
	resp := e.raw("POST", "/api/auth/logout-all", other, "")
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("log out everywhere: %d", resp.StatusCode)
	}
	var deleted bool
	for _, c := range resp.Cookies() {
		deleted = deleted || (c.Name == "diaries666op_session" && c.MaxAge < 0)
	}
	if !deleted {
		t.Error("log out everywhere left the session cookie")
	}
	for i, token := range []string{e.token, other, third} {
		if status, _ := e.do("GET", "/api/posts/stats", token, ""); status != 401 {
			t.Errorf("session %d after log out everywhere: %d, want 401", i, status)
		}
	}
	if status, _ := e.do("GET", "/api/posts/stats", e.login(), ""); status != 200 {
		t.Errorf("a new login after log out everywhere: %d", status)
	}
}
