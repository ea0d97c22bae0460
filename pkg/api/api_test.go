package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

const password = "correct horse battery"

// clock is a settable time source shared by the server and the auth service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	t        testing.TB
	srv      *httptest.Server
	store    *store.Store
	queue    *tasks.Client
	redisURL string
	clock    *clock
	token    string
}

// decide is the decision path every channel takes, over the test's store
// and queue, for the persona "devil".
func (e *env) decide() *decision.Decider {
	return decision.New(e.store, e.queue, "devil", nil)
}

// testHashing makes the administrator's password cheap to hash and check:
// at the deployed cost each of these tests would spend half a second of CPU
// on it under the race detector. pkg/auth tests the deployed cost.
func testHashing() auth.Option {
	return auth.WithHashCost(auth.HashCost{MemoryKiB: 64, Passes: 1})
}

func setup(t testing.TB) *env {
	t.Helper()
	return setupWith(t, nil)
}

// setupWith is setup with a server whose configuration configure changes
// first (nil changes nothing).
func setupWith(t testing.TB, configure func(*api.Config)) *env {
	t.Helper()
	st := storetest.New(t)
	redisURL := taskstest.RedisURL(t)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	clk := &clock{t: time.Now()}
	authn, err := auth.NewService(st, 12*time.Hour, clk.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := authn.Bootstrap(context.Background(), "admin", password, log); err != nil {
		t.Fatal(err)
	}
	cfg := api.Config{
		Store: st, Auth: authn, Queue: queue, Log: log, Now: clk.Now,
		Handle: "devil", Platform: "sandbox", GenerateWait: 300 * time.Millisecond,
		Metrics: tasks.MetricsHandler(queue.Inspector()),
	}
	if configure != nil {
		configure(&cfg)
	}
	srv := newServer(t, api.New(cfg))
	t.Cleanup(srv.Close)
	e := &env{t: t, srv: srv, store: st, queue: queue, redisURL: redisURL, clock: clk}
	e.token = e.login()
	return e
}

func (e *env) login() string {
	e.t.Helper()
	status, body := e.do("POST", "/api/auth/login", "", `{"username":"admin","password":"`+password+`"}`)
	if status != 200 {
		e.t.Fatalf("login: %d %s", status, body)
	}
	var out struct{ Token string }
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Token) < 40 {
		e.t.Fatalf("login token: %q %v", body, err)
	}
	return out.Token
}

// do sends a request with an optional bearer token and body, and returns the status and body.
func (e *env) do(method, path, token, body string) (int, string) {
	e.t.Helper()
	resp := e.raw(method, path, token, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func (e *env) raw(method, path, token, body string) *http.Response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method != "GET" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// pending makes a pending post of a source with the given likes and response.
func (e *env) pending(id string, src post.Source, likes int, response string) int64 {
	e.t.Helper()
	ctx := context.Background()
	rowID, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: src, OriginalPostID: id,
		ConversationID: "c" + id, OriginalPostText: "mortal says " + id, OriginalPostUser: "Mortal " + id,
		AuthorUsername: "mortal" + id, CreatedAt: e.clock.Now().Add(-time.Hour), Likes: likes})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, rowID, store.Draft{Response: response, Category: "wrath", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}); err != nil {
		e.t.Fatal(err)
	}
	return rowID
}

func (e *env) status(id int64) post.Status {
	e.t.Helper()
	p, err := e.store.Post(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Status
}

// errorOf decodes a {"error": ...} body, failing when the body is not one.
func errorOf(t *testing.T, body string) string {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("body is not JSON: %q", body)
	}
	msg, ok := out["error"].(string)
	if !ok || msg == "" {
		t.Fatalf("body has no error message: %q", body)
	}
	return msg
}

func TestLogin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantError  string
	}{
		{name: "wrong password", body: `{"username":"admin","password":"nope"}`, wantStatus: 401, wantError: "Invalid credentials"},
		{name: "unknown user", body: `{"username":"lucifer","password":"nope"}`, wantStatus: 401, wantError: "Invalid credentials"},
		{name: "NUL in username", body: `{"username":"ad\u0000min","password":"x"}`, wantStatus: 400, wantError: "NUL"},
		{name: "missing password", body: `{"username":"admin"}`, wantStatus: 400, wantError: "username and password are required"},
		{name: "empty body", body: ``, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "not json", body: `username=admin`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "array", body: `[]`, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "unknown field", body: `{"username":"admin","password":"x","admin":true}`, wantStatus: 400, wantError: "unknown field"},
		{name: "wrong type", body: `{"username":1,"password":"x"}`, wantStatus: 400, wantError: `field "username"`},
		{name: "trailing data", body: `{"username":"admin","password":"x"} {}`, wantStatus: 400, wantError: "unexpected data"},
		{name: "oversized", body: `{"username":"` + strings.Repeat("a", 70000) + `","password":"x"}`, wantStatus: 413, wantError: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", "/api/auth/login", "", tt.body)
			if status != tt.wantStatus || !strings.Contains(errorOf(t, body), tt.wantError) {
				t.Errorf("got %d %s, want %d containing %q", status, body, tt.wantStatus, tt.wantError)
			}
		})
	}
}

func TestLoginThrottle(t *testing.T) {
	t.Parallel()
	e := setup(t)
	bad := `{"username":"admin","password":"wrong"}`
	for i := 0; i < auth.MaxPerUsername; i++ {
		if status, body := e.do("POST", "/api/auth/login", "", bad); status != 401 {
			t.Fatalf("failure %d: %d %s", i, status, body)
		}
	}
	resp := e.raw("POST", "/api/auth/login", "", `{"username":"admin","password":"`+password+`"}`)
	resp.Body.Close()
	if resp.StatusCode != 429 {
		t.Fatalf("after %d failures even the right password must wait: got %d", auth.MaxPerUsername, resp.StatusCode)
	}
	retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > int(auth.Window.Seconds()) {
		t.Fatalf("Retry-After = %q", resp.Header.Get("Retry-After"))
	}
	e.clock.Add(auth.Window + time.Second)
	if status, body := e.do("POST", "/api/auth/login", "", `{"username":"admin","password":"`+password+`"}`); status != 200 {
		t.Fatalf("after the window: %d %s", status, body)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name       string
		token      string
		wantStatus int
	}{
		{name: "valid", token: e.token, wantStatus: 200},
		{name: "missing", token: "", wantStatus: 401},
		{name: "garbage", token: "not-a-token", wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := e.do("GET", "/api/posts/stats", tt.token, ""); status != tt.wantStatus {
				t.Errorf("got %d %s, want %d", status, body, tt.wantStatus)
			}
		})
	}

	t.Run("revoked by logout", func(t *testing.T) {
		token := e.login()
		if status, _ := e.do("POST", "/api/auth/logout", token, ""); status != 204 {
			t.Fatalf("logout: %d", status)
		}
		if status, _ := e.do("GET", "/api/posts/stats", token, ""); status != 401 {
			t.Errorf("revoked token: %d, want 401", status)
		}
		if status, _ := e.do("GET", "/api/posts/stats", e.token, ""); status != 200 {
			t.Errorf("another session must survive a logout: %d", status)
		}
	})
	t.Run("expired", func(t *testing.T) {
		token := e.login()
		e.clock.Add(12*time.Hour + time.Second)
		if status, _ := e.do("GET", "/api/posts/stats", token, ""); status != 401 {
			t.Errorf("expired token: %d, want 401", status)
		}
	})
}

func TestLists(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for i := 0; i < 12; i++ {
		e.pending("conv"+strconv.Itoa(i), post.SourceConversation, i, "r")
	}
	e.pending("m1", post.SourceMention, 1, "r")
	e.pending("t1", post.SourceTargeted, 1, "r")
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantTotal  int
		wantCount  int
		wantFirst  int // likes of the first post
		wantError  string
	}{
		{name: "pending page 1", path: "/api/posts/pending", wantStatus: 200, wantTotal: 12, wantCount: 10, wantFirst: 11},
		{name: "pending page 2 by likes", path: "/api/posts/pending?page=2&sortBy=likes", wantStatus: 200, wantTotal: 12, wantCount: 2, wantFirst: 1},
		{name: "engagement", path: "/api/posts/pending?sortBy=engagement", wantStatus: 200, wantTotal: 12, wantCount: 10, wantFirst: 11},
		{name: "mentions only", path: "/api/posts/mentions?page=1&sortBy=date", wantStatus: 200, wantTotal: 1, wantCount: 1, wantFirst: 1},
		{name: "targeted only", path: "/api/posts/targeted", wantStatus: 200, wantTotal: 1, wantCount: 1, wantFirst: 1},
		{name: "profile empty", path: "/api/posts/profile", wantStatus: 200, wantTotal: 0, wantCount: 0},
		{name: "page zero", path: "/api/posts/pending?page=0", wantStatus: 400, wantError: "page must be an integer"},
		{name: "page negative", path: "/api/posts/mentions?page=-1", wantStatus: 400, wantError: "page must be an integer"},
		{name: "page word", path: "/api/posts/profile?page=two", wantStatus: 400, wantError: "page must be an integer"},
		{name: "page huge", path: "/api/posts/targeted?page=99999999999999999999", wantStatus: 400, wantError: "page must be an integer"},
		{name: "bad sort", path: "/api/posts/pending?sortBy=chaos", wantStatus: 400, wantError: "sortBy must be one of"},
		{name: "unknown list", path: "/api/posts/everything", wantStatus: 404, wantError: "no such API route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("GET", tt.path, e.token, "")
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantError != "" {
				if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
					t.Errorf("error %q, want %q", msg, tt.wantError)
				}
				return
			}
			var out struct {
				Posts      []map[string]any
				Pagination struct{ Page, PageSize, Total, TotalPages int }
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatal(err)
			}
			if out.Pagination.Total != tt.wantTotal || len(out.Posts) != tt.wantCount || out.Pagination.PageSize != 10 ||
				out.Pagination.TotalPages != (tt.wantTotal+9)/10 {
				t.Fatalf("pagination %+v with %d posts", out.Pagination, len(out.Posts))
			}
			if tt.wantCount > 0 && int(out.Posts[0]["likes_count"].(float64)) != tt.wantFirst {
				t.Errorf("first post likes %v, want %d", out.Posts[0]["likes_count"], tt.wantFirst)
			}
			for _, p := range out.Posts {
				for _, field := range []string{"id", "original_post_id", "original_post_text", "original_post_user", "author_username",
					"author_profile_image", "created_at", "category", "media_url", "likes_count", "retweets_count", "replies_count",
					"proposed_response", "engagement_score", "age_seconds", "is_mention", "is_profile_tweet"} {
					if _, ok := p[field]; !ok {
						t.Fatalf("post lacks %s: %v", field, p)
					}
				}
			}
		})
	}
}

func TestApproveAndReject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ok := e.pending("1", post.SourceMention, 0, "burn, mortal")
	long := e.pending("2", post.SourceMention, 0, strings.Repeat("🔥", 141))
	toReject := e.pending("3", post.SourceConversation, 0, "meh")
	tests := []struct {
		name       string
		path       string
		body       string
		wantStatus int
		wantError  string
		check      func(t *testing.T)
	}{
		{name: "bad id", path: "/api/posts/abc/approve", body: `{}`, wantStatus: 400, wantError: "post id"},
		{name: "zero id", path: "/api/posts/0/approve", body: `{}`, wantStatus: 400, wantError: "post id"},
		{name: "unknown id", path: "/api/posts/999999/approve", body: `{}`, wantStatus: 404, wantError: "not found"},
		{name: "bad json keeps the post", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":`, wantStatus: 400, wantError: "malformed JSON",
			check: func(t *testing.T) { wantStatus(t, e, ok, post.StatusPending) }},
		{name: "unknown field keeps the post", path: "/api/posts/" + id(ok) + "/approve", body: `{"text":"x"}`, wantStatus: 400, wantError: "unknown field",
			check: func(t *testing.T) { wantStatus(t, e, ok, post.StatusPending) }},
		{name: "too long", path: "/api/posts/" + id(long) + "/approve", body: `{}`, wantStatus: 422, wantError: "282 characters",
			check: func(t *testing.T) { wantStatus(t, e, long, post.StatusPending) }},
		{name: "edit too long", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":"` + strings.Repeat("x", 281) + `"}`, wantStatus: 422, wantError: "281 characters",
			check: func(t *testing.T) { wantResponse(t, e, ok, "burn, mortal") }},
		{name: "NUL in edit", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":"a\u0000b"}`, wantStatus: 400, wantError: "control character U+0000",
			check: func(t *testing.T) { wantResponse(t, e, ok, "burn, mortal") }},
		{name: "empty edit", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":""}`, wantStatus: 422, wantError: "0 characters"},
		{name: "whitespace-only edit", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":" \n\t\u3000 "}`, wantStatus: 422, wantError: "only whitespace",
			check: func(t *testing.T) { wantResponse(t, e, ok, "burn, mortal") }},
		{name: "byte-order mark in edit", path: "/api/posts/" + id(ok) + "/approve", body: `{"response":"burn\ufeff"}`, wantStatus: 422, wantError: "U+FEFF",
			check: func(t *testing.T) { wantResponse(t, e, ok, "burn, mortal") }},
		{name: "invalid UTF-8 in edit", path: "/api/posts/" + id(ok) + "/approve", body: "{\"response\":\"burn \xff\xfe mortal\"}", wantStatus: 400, wantError: "valid UTF-8",
			check: func(t *testing.T) { wantResponse(t, e, ok, "burn, mortal") }},
		{name: "approve", path: "/api/posts/" + id(ok) + "/approve", body: `{}`, wantStatus: 200,
			check: func(t *testing.T) {
				wantStatus(t, e, ok, post.StatusApproved)
				info, err := e.queue.Inspector().GetTaskInfo(tasks.QueueCritical, tasks.SendTaskID(ok))
				if err != nil || info.Type != tasks.TypeSendPost {
					t.Errorf("send task: %+v %v", info, err)
				}
			}},
		{name: "approve twice", path: "/api/posts/" + id(ok) + "/approve", body: `{}`, wantStatus: 409, wantError: "not pending"},
		{name: "reject approved", path: "/api/posts/" + id(ok) + "/reject", body: ``, wantStatus: 409, wantError: "not pending"},
		{name: "approve edited", path: "/api/posts/" + id(long) + "/approve", body: `{"response":"shorter 🔥"}`, wantStatus: 200,
			check: func(t *testing.T) { wantResponse(t, e, long, "shorter 🔥") }},
		{name: "reject bad body", path: "/api/posts/" + id(toReject) + "/reject", body: `nope`, wantStatus: 400, wantError: "malformed JSON",
			check: func(t *testing.T) { wantStatus(t, e, toReject, post.StatusPending) }},
		{name: "reject", path: "/api/posts/" + id(toReject) + "/reject", body: `{}`, wantStatus: 200,
			check: func(t *testing.T) { wantStatus(t, e, toReject, post.StatusRejected) }},
		{name: "reject twice", path: "/api/posts/" + id(toReject) + "/reject", body: ``, wantStatus: 409, wantError: "rejected"},
		{name: "reject unknown", path: "/api/posts/424242/reject", body: ``, wantStatus: 404, wantError: "not found"},
		{name: "approve by GET", path: "/api/posts/" + id(toReject) + "/approve", wantStatus: 405, wantError: "method not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := "POST"
			if tt.name == "approve by GET" {
				method = "GET"
			}
			status, body := e.do(method, tt.path, e.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.wantError != "" {
				if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
					t.Errorf("error %q, want it to contain %q", msg, tt.wantError)
				}
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
	t.Run("no token changes nothing", func(t *testing.T) {
		fresh := e.pending("4", post.SourceMention, 0, "x")
		if status, _ := e.do("POST", "/api/posts/"+id(fresh)+"/approve", "", `{}`); status != 401 {
			t.Fatalf("status %d, want 401", status)
		}
		wantStatus(t, e, fresh, post.StatusPending)
	})
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

func wantStatus(t *testing.T, e *env, id int64, want post.Status) {
	t.Helper()
	if got := e.status(id); got != want {
		t.Errorf("post %d is %s, want %s", id, got, want)
	}
}

func wantResponse(t *testing.T, e *env, id int64, want string) {
	t.Helper()
	p, err := e.store.Post(context.Background(), id)
	if err != nil || p.ProposedResponse != want {
		t.Errorf("post %d response %q, want %q (%v)", id, p.ProposedResponse, want, err)
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	t.Run("profile answers 202 while no worker drafts", func(t *testing.T) {
		status, body := e.do("POST", "/api/posts/profile/generate", e.token, "")
		if status != 202 {
			t.Fatalf("got %d %s", status, body)
		}
		var out struct{ ID int64 }
		if err := json.Unmarshal([]byte(body), &out); err != nil || out.ID == 0 {
			t.Fatalf("body %s", body)
		}
		info, err := e.queue.Inspector().GetTaskInfo(tasks.QueueDefault, tasks.DraftTaskID(out.ID))
		if err != nil || info.Type != tasks.TypeDraftPost {
			t.Errorf("draft task: %+v %v", info, err)
		}
	})
	t.Run("profile answers 201 once drafted", func(t *testing.T) {
		// Its own server waits long enough for a loaded machine: the answer
		// is 201 as soon as the draft is saved, so the wait costs nothing
		// when the stand-in worker is quick.
		e := setupWith(t, func(c *api.Config) { c.GenerateWait = 15 * time.Second })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		// Stands in for the worker: drafts the profile post the request
		// makes, polling until it has or the request has answered.
		go func() {
			defer close(done)
			for ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
				ids, _ := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Hour), 10)
				for _, id := range ids {
					if e.store.SaveDraft(ctx, id, store.Draft{Response: "I think, therefore I burn.", Category: "pride"}) == nil {
						return
					}
				}
			}
		}()
		status, body := e.do("POST", "/api/posts/profile/generate", e.token, "")
		cancel()
		<-done
		if status != 201 || !strings.Contains(body, "I think, therefore I burn.") || !strings.Contains(body, `"is_profile_tweet":true`) {
			t.Fatalf("got %d %s", status, body)
		}
	})
	t.Run("targeted", func(t *testing.T) {
		if status, body := e.do("POST", "/api/posts/targeted/generate", e.token, ""); status != 202 {
			t.Fatalf("got %d %s", status, body)
		}
		pending, err := e.queue.Inspector().ListPendingTasks(tasks.QueueLow)
		if err != nil || len(pending) != 1 || pending[0].Type != tasks.TypeScanTargeted {
			t.Fatalf("pending low tasks: %v %v", pending, err)
		}
	})
}

func TestPublic(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if status, body := e.do("GET", "/api/public/latest", "", ""); status != 404 || errorOf(t, body) != "not found" {
		t.Fatalf("latest with nothing posted: %d %s", status, body)
	}
	var posted []int64
	for i := 0; i < 16; i++ {
		id := e.pending("p"+strconv.Itoa(i), post.SourceMention, 0, "reply "+strconv.Itoa(i))
		if _, err := e.decide().Approve(ctx, id, decision.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.store.BeginSend(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := e.store.MarkPosted(ctx, id, "r"+strconv.Itoa(i), e.clock.Now().Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		posted = append(posted, id)
	}
	if err := e.store.SetResponseMetrics(ctx, map[int64]store.Metrics{posted[3]: {Likes: 50}}); err != nil {
		t.Fatal(err)
	}
	e.pending("waiting", post.SourceConversation, 0, "later")
	rejected := e.pending("no", post.SourceConversation, 0, "no")
	if _, err := e.decide().Reject(ctx, rejected, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if err := e.store.RecordEngagement(ctx, store.Engagement{Likes: 7, Retweets: 2, Replies: 1}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}

	status, body := e.do("GET", "/api/public/stats", "", "")
	if status != 200 {
		t.Fatalf("stats: %d %s", status, body)
	}
	var stats struct {
		Stats struct {
			PostedSins  int     `json:"posted_sins"`
			PendingSins int     `json:"pending_sins"`
			SuccessRate float64 `json:"success_rate"`
			Categories  struct {
				Posted []struct {
					Category        string
					Count, Last_24h int
				}
				Pending []struct {
					Category string
					Count    int
				}
			}
			Engagement struct {
				Total, Likes, Retweets, Replies int
				Timestamp                       *time.Time
			}
			MortalInteractions struct {
				TotalMentions int `json:"total_mentions"`
				TotalReplies  int `json:"total_replies"`
				Mentions24h   int `json:"mentions_24h"`
				Replies24h    int `json:"replies_24h"`
			} `json:"mortal_interactions"`
		}
		MemorableQuotes []string `json:"memorable_quotes"`
	}
	if err := json.Unmarshal([]byte(body), &stats); err != nil {
		t.Fatal(err)
	}
	s := stats.Stats
	if s.PostedSins != 16 || s.PendingSins != 1 || s.SuccessRate != 94.1 {
		t.Errorf("totals: %+v", s)
	}
	if len(s.Categories.Posted) != 1 || s.Categories.Posted[0].Count != 16 || s.Categories.Posted[0].Last_24h != 16 ||
		len(s.Categories.Pending) != 1 || s.Categories.Pending[0].Count != 1 {
		t.Errorf("categories: %+v", s.Categories)
	}
	if s.Engagement.Total != 10 || s.Engagement.Likes != 7 || s.Engagement.Timestamp == nil {
		t.Errorf("engagement: %+v", s.Engagement)
	}
	if m := s.MortalInteractions; m.TotalMentions != 16 || m.TotalReplies != 16 || m.Replies24h != 16 {
		t.Errorf("interactions: %+v", m)
	}
	if len(stats.MemorableQuotes) == 0 || stats.MemorableQuotes[0] != "reply 3" {
		t.Errorf("quotes: %v", stats.MemorableQuotes)
	}

	if status, body := e.do("GET", "/api/public/latest", "", ""); status != 200 || !strings.Contains(body, `"proposed_response":"reply 15"`) {
		t.Errorf("latest: %d %s", status, body)
	}

	logs := []struct {
		name       string
		path       string
		wantStatus int
		wantCount  int
		wantMore   bool
		wantFirst  string
	}{
		{name: "first page", path: "/api/public/logs", wantStatus: 200, wantCount: 15, wantMore: true, wantFirst: "reply 15"},
		{name: "second page", path: "/api/public/logs?offset=15", wantStatus: 200, wantCount: 1, wantMore: false, wantFirst: "reply 0"},
		{name: "past the end", path: "/api/public/logs?offset=300", wantStatus: 200, wantCount: 0},
		{name: "negative", path: "/api/public/logs?offset=-15", wantStatus: 400},
		{name: "garbage", path: "/api/public/logs?offset=abc", wantStatus: 400},
	}
	for _, tt := range logs {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("GET", tt.path, "", "")
			if status != tt.wantStatus {
				t.Fatalf("got %d %s", status, body)
			}
			if status != 200 {
				errorOf(t, body)
				return
			}
			var out struct {
				Threads []struct {
					Type     string
					Messages []struct {
						ProposedResponse string `json:"proposed_response"`
					}
				}
				Pagination struct{ HasMore bool }
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Threads) != tt.wantCount || out.Pagination.HasMore != tt.wantMore {
				t.Fatalf("%d threads, hasMore %v", len(out.Threads), out.Pagination.HasMore)
			}
			if tt.wantFirst != "" && out.Threads[0].Messages[0].ProposedResponse != tt.wantFirst {
				t.Errorf("first thread says %q, want %q", out.Threads[0].Messages[0].ProposedResponse, tt.wantFirst)
			}
			if strings.Contains(body, "later") || strings.Contains(body, `"no"`) {
				t.Errorf("pending or rejected drafts leaked into the public logs: %s", body)
			}
		})
	}
}

func TestHardening(t *testing.T) {
	t.Parallel()
	e := setup(t)
	resp := e.raw("GET", "/api/public/stats", "", "")
	resp.Body.Close()
	for header, want := range map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "frame-ancestors 'none'",
		"Referrer-Policy":         "strict-origin-when-cross-origin",
		"Content-Type":            "application/json",
	} {
		if got := resp.Header.Get(header); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want it to contain %q", header, got, want)
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	status, body := e.do("GET", "/api/nothing/here", "", "")
	if status != 404 || errorOf(t, body) != "no such API route" {
		t.Errorf("unknown API route: %d %s", status, body)
	}
	status, body = e.do("GET", "/healthz", "", "")
	if status != 200 || !strings.Contains(body, "ok") {
		t.Errorf("healthz: %d %s", status, body)
	}
	status, body = e.do("GET", "/readyz", "", "")
	if status != 200 {
		t.Errorf("readyz: %d %s", status, body)
	}
	status, _ = e.do("GET", "/metrics", e.token, "")
	if status != 200 {
		t.Errorf("metrics with a token: %d", status)
	}
	status, _ = e.do("GET", "/metrics", "", "")
	if status != 401 {
		t.Errorf("metrics without a token: %d, want 401", status)
	}
	// Nothing the API says may carry a secret.
	for _, path := range []string{"/api/posts/stats", "/api/posts/pending", "/api/public/stats", "/api/public/logs"} {
		_, body := e.do("GET", path, e.token, "")
		for _, secret := range []string{"argon2id", "password", e.token, "goroutine"} {
			if strings.Contains(body, secret) {
				t.Errorf("%s leaks %q", path, secret)
			}
		}
	}
}

func TestReadyzReportsRedisDown(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	queue, err := tasks.NewClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer queue.Close()
	authn, err := auth.NewService(st, time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, api.New(api.Config{Store: st, Auth: authn, Queue: queue, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Down map[string]string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 || out.Down["redis"] == "" || out.Down["postgres"] != "" {
		t.Errorf("readyz with Redis down: %d %+v", resp.StatusCode, out)
	}
}

// FuzzApproveBody sends arbitrary bodies to approve: the answer is always
// JSON with a 2xx or 4xx status, and a refused request changes nothing.
func FuzzApproveBody(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"response":"hi"}`, `{"response":null}`, `{"response":"\u0000"}`, `{"response":1}`, `[`, `{"a":1}`, `{}{}`, "\x00", `{"response":"` + strings.Repeat("é", 300) + `"}`} {
		f.Add(seed)
	}
	shared := setup(f)
	n := 0
	f.Fuzz(func(t *testing.T, body string) {
		e := *shared
		e.t = t
		n++
		id := e.pending("fuzz"+strconv.Itoa(n), post.SourceMention, 0, "original")
		status, resp := e.do("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", e.token, body)
		if status >= 500 || !json.Valid([]byte(resp)) {
			t.Fatalf("body %q: %d %s", body, status, resp)
		}
		if status >= 400 {
			wantStatus(t, &e, id, post.StatusPending)
			wantResponse(t, &e, id, "original")
		}
	})
}

// With Redis down, an approval still lands in Postgres (reconcile sends it
// later), while a profile generation is refused whole and leaves no row.
func TestRedisDownDuringRequests(t *testing.T) {
	t.Parallel()
	e := setup(t)
	dead, err := tasks.NewClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	authn, err := auth.NewService(e.store, time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, api.New(api.Config{Store: e.store, Auth: authn, Queue: dead,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Platform: "sandbox", Handle: "devil"}))
	defer srv.Close()
	e.srv = srv
	id := e.pending("1", post.SourceMention, 0, "burn")
	if status, body := e.do("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", e.token, `{}`); status != 200 {
		t.Fatalf("approve with Redis down: %d %s", status, body)
	}
	wantStatus(t, e, id, post.StatusApproved)
	status, body := e.do("POST", "/api/posts/profile/generate", e.token, "")
	if status != 503 || !strings.Contains(errorOf(t, body), "unavailable") {
		t.Fatalf("generate with Redis down: %d %s", status, body)
	}
	if _, total, err := e.store.ListPending(context.Background(), post.SourceProfile, post.SortDate, 1, 10); err != nil || total != 0 {
		t.Errorf("a refused generation left %d profile posts (%v)", total, err)
	}
	ids, err := e.store.IDsInStatus(context.Background(), post.StatusDrafting, time.Now().Add(time.Hour), 10)
	if err != nil || len(ids) != 0 {
		t.Errorf("a refused generation left drafts %v (%v)", ids, err)
	}
	if status, body := e.do("POST", "/api/posts/targeted/generate", e.token, ""); status != 503 {
		t.Errorf("targeted scan with Redis down: %d %s", status, body)
	}
}

// FuzzLoginBody sends arbitrary bodies to login: the answer is always a JSON
// error or a token, never a server error, and no garbage ever signs in.
func FuzzLoginBody(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"username":"admin"}`, `{"username":"admin","password":""}`,
		`{"username":"admin","password":"x"}`, `{"username":["admin"],"password":"x"}`, `null`, `"admin"`, `{"username":"\u0000","password":"\ud800"}`} {
		f.Add(seed)
	}
	shared := setup(f)
	f.Fuzz(func(t *testing.T, body string) {
		e := *shared
		e.t = t
		status, resp := e.do("POST", "/api/auth/login", "", body)
		if !json.Valid([]byte(resp)) {
			t.Fatalf("body %q: answer is not JSON: %s", body, resp)
		}
		switch status {
		case 400, 401, 413, 429:
			errorOf(t, resp)
		default:
			t.Fatalf("body %q: %d %s", body, status, resp)
		}
	})
}
