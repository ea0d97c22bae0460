package bluesky_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/bluesky"
	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

const appPassword = "abcd-efgh-ijkl-mnop"

func TestNewRefusesGarbage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  bluesky.Config
		want string
	}{
		{"ftp pds", bluesky.Config{PDSURL: "ftp://pds.test", Handle: "a.test", AppPassword: appPassword}, "PDS URL"},
		{"pds with path", bluesky.Config{PDSURL: "https://pds.test/xrpc", Handle: "a.test", AppPassword: appPassword}, "PDS URL"},
		{"pds with credentials", bluesky.Config{PDSURL: "https://u:p@pds.test", Handle: "a.test", AppPassword: appPassword}, "PDS URL"},
		{"no handle", bluesky.Config{AppPassword: appPassword}, "handle"},
		{"handle not a domain", bluesky.Config{Handle: "infernal", AppPassword: appPassword}, "handle"},
		{"no password", bluesky.Config{Handle: "a.test"}, "app password"},
		{"account password", bluesky.Config{Handle: "a.test", AppPassword: "hunter2hunter2"}, "app password"},
		{"upper-case groups", bluesky.Config{Handle: "a.test", AppPassword: "ABCD-efgh-ijkl-mnop"}, "app password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bluesky.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error naming %q", err, tc.want)
			}
			if tc.cfg.AppPassword != "" && strings.Contains(err.Error(), tc.cfg.AppPassword) {
				t.Fatalf("the error shows the password: %v", err)
			}
		})
	}
	for _, ok := range []bluesky.Config{
		{Handle: "infernal.bsky.social", AppPassword: appPassword},
		{PDSURL: "http://127.0.0.1:2583/", Handle: "@did:plc:abcdefghijklmnopqrstuvwx", AppPassword: appPassword},
	} {
		if _, err := bluesky.New(ok); err != nil {
			t.Errorf("New(%+v) = %v", ok, err)
		}
	}
}

func TestSpans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text           string
		mentions, link []string
	}{
		{"@infernal.test stop", []string{"infernal.test"}, nil},
		{"héllo @a.b.test, see https://x.test/p?q=1.", []string{"a.b.test"}, []string{"https://x.test/p?q=1"}},
		{"mail me@not.a.mention (@paren.test)", []string{"paren.test"}, nil},
		{"@nodomain alone", nil, nil},
		{"🔥@after.emoji", nil, nil},
		{"(see https://x.test/a_(b)) ok", nil, []string{"https://x.test/a_(b)"}},
	} {
		var gotM, gotL []string
		for _, s := range bluesky.MentionSpans(tc.text) {
			if tc.text[s.Start:s.End] != "@"+s.Value {
				t.Errorf("%q: mention span %d-%d covers %q, not @%s", tc.text, s.Start, s.End, tc.text[s.Start:s.End], s.Value)
			}
			gotM = append(gotM, s.Value)
		}
		for _, s := range bluesky.LinkSpans(tc.text) {
			if tc.text[s.Start:s.End] != s.Value {
				t.Errorf("%q: link span covers %q, not %s", tc.text, tc.text[s.Start:s.End], s.Value)
			}
			gotL = append(gotL, s.Value)
		}
		if strings.Join(gotM, ",") != strings.Join(tc.mentions, ",") || strings.Join(gotL, ",") != strings.Join(tc.link, ",") {
			t.Errorf("%q: mentions %v links %v, want %v %v", tc.text, gotM, gotL, tc.mentions, tc.link)
		}
	}
}

func TestLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"é", 1},     // e + combining acute
		{"👩‍👩‍👧", 1}, // a family: one grapheme of five code points
		{"🇫🇷🇩🇪", 2},
	} {
		if got := bluesky.Length(tc.text); got != tc.want {
			t.Errorf("Length(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestKeyOrder(t *testing.T) {
	t.Parallel()
	a := bluesky.Key("2026-11-26T08:00:00.5Z", "at://did:plc:b/app.bsky.feed.post/1")
	b := bluesky.Key("2026-11-26T08:00:00.123456Z", "at://did:plc:a/app.bsky.feed.post/2")
	c := bluesky.Key("2026-11-26T09:00:00+01:00", "at://did:plc:a/app.bsky.feed.post/0")
	if c >= b || b >= a {
		t.Fatalf("keys out of indexing order: %q %q %q", c, b, a)
	}
}

// pds is a stand-in PDS speaking XRPC's wire format for the session calls
// and getProfile, counting them and expiring tokens on demand.
type pds struct {
	mu                 sync.Mutex
	creates, refreshes int
	profiles           int
	serial             int
	access, refresh    string
	expired            map[string]bool
	refreshFails       int // status of the next refreshes' refusal, 0 for none
	headers            http.Header
	status             int
	lastAuthorization  string
}

func (p *pds) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	answerErr := func(status int, name, msg string) {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": name, "message": msg})
	}
	newTokens := func() {
		p.serial++
		p.access, p.refresh = "access-"+strconv.Itoa(p.serial), "refresh-"+strconv.Itoa(p.serial)
	}
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch r.URL.Path {
	case "/xrpc/com.atproto.server.createSession":
		var in struct{ Identifier, Password string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Password != appPassword {
			answerErr(401, "AuthenticationRequired", "Invalid identifier or password")
			return
		}
		p.creates++
		newTokens()
		_ = json.NewEncoder(w).Encode(map[string]string{"accessJwt": p.access, "refreshJwt": p.refresh, "did": "did:plc:persona", "handle": in.Identifier})
	case "/xrpc/com.atproto.server.refreshSession":
		p.refreshes++
		if p.refreshFails != 0 {
			answerErr(p.refreshFails, "ExpiredToken", "Token has expired")
			return
		}
		if bearer != p.refresh {
			answerErr(400, "InvalidToken", "Token could not be verified")
			return
		}
		newTokens()
		_ = json.NewEncoder(w).Encode(map[string]string{"accessJwt": p.access, "refreshJwt": p.refresh, "did": "did:plc:persona"})
	case "/xrpc/app.bsky.actor.getProfile", "/xrpc/app.bsky.notification.listNotifications":
		p.profiles++
		p.lastAuthorization = r.Header.Get("Authorization")
		if p.expired[bearer] || bearer != p.access {
			answerErr(400, "ExpiredToken", "Token has expired")
			return
		}
		for k, v := range p.headers {
			w.Header()[k] = v
		}
		if p.status != 0 {
			answerErr(p.status, "RateLimitExceeded", "Rate Limit Exceeded")
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"did": "did:plc:persona", "handle": "infernal.test"})
	default:
		answerErr(404, "MethodNotImplemented", "no "+r.URL.Path)
	}
}

func TestSessionRefreshedNotRecreated(t *testing.T) {
	t.Parallel()
	p := &pds{expired: map[string]bool{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := bluesky.New(bluesky.Config{PDSURL: srv.URL, Handle: "infernal.test", AppPassword: appPassword})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	count := func() (creates, refreshes int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.creates, p.refreshes
	}
	for i := range 3 {
		if _, err := c.UserByUsername(ctx, "infernal.test"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if cr, rf := count(); cr != 1 || rf != 0 {
		t.Fatalf("after three calls: %d sessions, %d refreshes; want 1, 0", cr, rf)
	}

	// The access token expires: one refresh, no new session.
	p.mu.Lock()
	p.expired[p.access] = true
	p.mu.Unlock()
	if _, err := c.UserByUsername(ctx, "infernal.test"); err != nil {
		t.Fatal(err)
	}
	if cr, rf := count(); cr != 1 || rf != 1 {
		t.Fatalf("after expiry: %d sessions, %d refreshes; want 1, 1", cr, rf)
	}

	// A server fault on refresh spends no session creation.
	p.mu.Lock()
	p.expired[p.access] = true
	p.refreshFails = 502
	p.mu.Unlock()
	_, err = c.UserByUsername(ctx, "infernal.test")
	if !platform.Temporary(err) {
		t.Fatalf("refresh 502: %v, want a temporary failure", err)
	}
	if cr, _ := count(); cr != 1 {
		t.Fatalf("a failed refresh (502) created a session: %d", cr)
	}

	// The refresh token is refused: only then a new session.
	p.mu.Lock()
	p.refreshFails = 400
	p.mu.Unlock()
	_, err = c.UserByUsername(ctx, "infernal.test")
	p.mu.Lock()
	p.refreshFails = 0
	p.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if cr, _ := count(); cr != 2 || c.SessionsCreated() != 2 {
		t.Fatalf("after a refused refresh: %d sessions (client says %d), want 2", cr, c.SessionsCreated())
	}
}

func TestWrongPasswordNamesNoSecret(t *testing.T) {
	t.Parallel()
	p := &pds{expired: map[string]bool{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := bluesky.New(bluesky.Config{PDSURL: srv.URL, Handle: "infernal.test", AppPassword: "zzzz-zzzz-zzzz-zzzz"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(context.Background())
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Status != 401 {
		t.Fatalf("Me = %v, want the 401", err)
	}
	if strings.Contains(err.Error(), "zzzz") {
		t.Fatalf("the error shows the password: %v", err)
	}
}

func TestRateLimitShared(t *testing.T) {
	t.Parallel()
	windows, err := ratelimit.Open(taskstest.RedisURL(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = windows.Close() })
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	p := &pds{expired: map[string]bool{}, headers: http.Header{
		"Ratelimit-Limit": {"3000"}, "Ratelimit-Remaining": {"1"}, "Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)},
	}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	newClient := func() *bluesky.Client {
		c, err := bluesky.New(bluesky.Config{PDSURL: srv.URL, Handle: "infernal.test", AppPassword: appPassword, Limiter: windows})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	if _, err := newClient().UserByUsername(ctx, "infernal.test"); err != nil {
		t.Fatal(err)
	}
	// Another process (another client on the same Redis) finds the window
	// closed at the margin, and sends nothing.
	p.mu.Lock()
	before := p.profiles
	p.mu.Unlock()
	_, err = newClient().UserByUsername(ctx, "infernal.test")
	at, ok := platform.RateLimited(err)
	if !ok || !at.Equal(reset.UTC()) {
		t.Fatalf("inside a closed window: %v (retry at %v), want a rate limit until %v", err, at, reset)
	}
	p.mu.Lock()
	after := p.profiles
	p.mu.Unlock()
	if after != before {
		t.Fatalf("a call went out inside a closed window")
	}
	ws, err := windows.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Endpoint != "bluesky app.bsky.actor.getProfile" || ws[0].Limit != 3000 {
		t.Fatalf("windows = %+v", ws)
	}
}

func TestTooManyRequests(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(5 * time.Minute).Truncate(time.Second)
	p := &pds{expired: map[string]bool{}, status: 429, headers: http.Header{
		"Ratelimit-Limit": {"3000"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)},
	}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := bluesky.New(bluesky.Config{PDSURL: srv.URL, Handle: "infernal.test", AppPassword: appPassword})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UserByUsername(context.Background(), "x.test")
	at, ok := platform.RateLimited(err)
	if !ok || !at.Equal(reset.UTC()) || !platform.Temporary(err) {
		t.Fatalf("429: %v (retry at %v), want a temporary rate limit until %v", err, at, reset)
	}
}
