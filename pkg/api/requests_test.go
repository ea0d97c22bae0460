package api_test

import (
	"context"
	"errors"
	"fmt"
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
	"infernal/pkg/guard"
	"infernal/pkg/knowledge"
	"infernal/pkg/learning"
	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/twittertext"
)

// These tests need no PostgreSQL and no Redis: the server runs on fakes that
// record every call, so a refused request can be shown to reach nothing.

// fakeToken is the one token fakeAuth takes for a live session.
const fakeToken = "fake-admin-token"

// errUnexpected answers any call a test did not arrange.
var errUnexpected = errors.New("fake: unexpected call")

// historyPost is the post whose history the fake store knows.
const historyPost = 6

// fakeStore records calls; ListPending and Logs answer an empty page,
// ApproveWith, SaveEdit, DraftAnyway and RejectWith answer approveErr, and everything else errUnexpected.
type fakeStore struct {
	mu         sync.Mutex
	calls      []string
	approveErr error
}

func (f *fakeStore) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeStore) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeStore) Ping(context.Context) error { f.record("Ping"); return nil }
func (f *fakeStore) Post(_ context.Context, id int64) (post.Post, error) {
	f.record("Post %d", id)
	if id == historyPost {
		return post.Post{ID: id}, nil
	}
	return post.Post{}, errUnexpected
}
func (f *fakeStore) ListPendingOn(_ context.Context, src post.Source, _ string, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	f.record("ListPending %s %s %d %d", src, sort, page, pageSize)
	return nil, 0, nil
}
func (f *fakeStore) ApproveWith(_ context.Context, id int64, _ store.Approval) (post.Post, error) {
	f.record("Approve %d", id)
	return post.Post{}, f.approveErr
}
func (f *fakeStore) SaveEdit(_ context.Context, id int64, _ string, _ *int, _ store.ApproveCheck, _ post.Channel) (post.Post, error) {
	f.record("SaveEdit %d", id)
	return post.Post{}, f.approveErr
}
func (f *fakeStore) RecordDecision(_ context.Context, id int64, action post.Action, _ post.Channel, _ int) error {
	f.record("RecordDecision %d %s", id, action)
	return nil
}
func (f *fakeStore) Telegram(context.Context) (*store.TelegramState, error) {
	f.record("Telegram")
	return nil, nil
}
func (f *fakeStore) Decisions(_ context.Context, id int64) ([]post.Decision, error) {
	f.record("Decisions %d", id)
	return nil, nil
}
func (f *fakeStore) ListSkippedOn(_ context.Context, _ string, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	f.record("ListSkipped %s %d %d", sort, page, pageSize)
	return nil, 0, nil
}
func (f *fakeStore) ListQueuedOn(_ context.Context, _ string, page, pageSize int, _ guard.SendCaps) (store.QueuedPage, error) {
	f.record("ListQueued %d %d", page, pageSize)
	return store.QueuedPage{}, nil
}
func (f *fakeStore) DraftAnyway(_ context.Context, id int64, _ *int, _ post.Channel) (post.Post, error) {
	f.record("DraftAnyway %d", id)
	return post.Post{}, f.approveErr
}
func (f *fakeStore) RejectWith(_ context.Context, id int64, _ *int, _ post.Channel) (post.Post, error) {
	f.record("Reject %d", id)
	return post.Post{}, f.approveErr
}
func (f *fakeStore) CancelAutoApproval(_ context.Context, id int64, _ post.Channel) (post.Post, error) {
	f.record("Cancel %d", id)
	return post.Post{}, f.approveErr
}
func (f *fakeStore) History(_ context.Context, id int64) ([]post.Version, error) {
	f.record("History %d", id)
	return nil, nil
}
func (f *fakeStore) ContextPosts(_ context.Context, platform string, ids []string) (map[string]store.ContextPost, error) {
	f.record("ContextPosts %s %v", platform, ids)
	return nil, errUnexpected
}
func (f *fakeStore) SaveContextPosts(context.Context, []store.ContextPost) error {
	f.record("SaveContextPosts")
	return errUnexpected
}
func (f *fakeStore) PersonaReplies(_ context.Context, platform, conversationID string, _ int64) ([]store.ContextPost, error) {
	f.record("PersonaReplies %s %s", platform, conversationID)
	return nil, errUnexpected
}
func (f *fakeStore) LatestVersionID(_ context.Context, id int64) (int64, error) {
	f.record("LatestVersionID %d", id)
	return 0, errUnexpected
}
func (f *fakeStore) CreateProfileDraft(_ context.Context, platform, _ string) (int64, error) {
	f.record("CreateProfileDraft %s", platform)
	return 0, errUnexpected
}
func (f *fakeStore) DeleteDraft(_ context.Context, id int64) error {
	f.record("DeleteDraft %d", id)
	return errUnexpected
}
func (f *fakeStore) AdminStatsOn(_ context.Context, platform string) (store.AdminStats, error) {
	f.record("AdminStatsOn %s", platform)
	return store.AdminStats{}, errUnexpected
}
func (f *fakeStore) HomeStats(context.Context, time.Time) (store.HomeStats, error) {
	f.record("HomeStats")
	return store.HomeStats{}, errUnexpected
}
func (f *fakeStore) MemorableQuotes(context.Context, int) ([]string, error) {
	f.record("MemorableQuotes")
	return nil, errUnexpected
}
func (f *fakeStore) LatestPosted(context.Context) (post.Post, error) {
	f.record("LatestPosted")
	return post.Post{}, errUnexpected
}
func (f *fakeStore) Logs(_ context.Context, offset, limit int) ([]store.Thread, bool, error) {
	f.record("Logs %d %d", offset, limit)
	return nil, false, nil
}

func (f *fakeStore) MarkManualPosted(_ context.Context, id int64, responseID string, _ time.Time, _ *int, _ post.Channel) (post.Post, error) {
	f.record("MarkManualPosted %d %q", id, responseID)
	return post.Post{ID: id, Platform: "sandbox", Source: post.SourceMention, Status: post.StatusPosted}, nil
}
func (f *fakeStore) GiveUp(_ context.Context, id int64, reason string, _ *int, _ post.Channel) (post.Post, error) {
	f.record("GiveUp %d %q", id, reason)
	return post.Post{ID: id, Platform: "sandbox", Source: post.SourceMention, Status: post.StatusRejected}, nil
}
func (f *fakeStore) ActivePauses(context.Context, time.Time) ([]store.Pause, error) {
	f.record("ActivePauses")
	return nil, nil
}
func (f *fakeStore) TimelinePauses(context.Context, time.Time) ([]store.TimelinePause, error) {
	f.record("TimelinePauses")
	return nil, nil
}
func (f *fakeStore) Resume(context.Context) (bool, error) { f.record("Resume"); return false, nil }
func (f *fakeStore) SetPause(_ context.Context, p store.Pause) error {
	f.record("SetPause %s %q", p.Refusal, p.Platform)
	return nil
}
func (f *fakeStore) AllScanSkips(context.Context) ([]store.ScanSkips, error) {
	f.record("AllScanSkips")
	return nil, nil
}

func (f *fakeStore) Settings(context.Context) (settings.Settings, error) {
	f.record("Settings")
	return settings.Settings{TargetUsernames: []string{}, SearchTopics: []string{}, BlockedAuthors: []string{}, BlockedPhrases: []string{},
		Caps: settings.DefaultCaps(), Autopilot: settings.DefaultAutopilot(), Learning: settings.DefaultLearning(),
		Platforms: settings.DefaultPlatformOptions()}, nil
}

func (f *fakeStore) SetCaseReason(_ context.Context, id int64, reason string) error {
	f.record("SetCaseReason %d %q", id, reason)
	return nil
}

func (f *fakeStore) DecisionEvents(context.Context, time.Time, time.Time, string) ([]store.DecisionEvent, error) {
	return nil, nil
}

func (f *fakeStore) Cases(_ context.Context, q string, page int) ([]learning.Case, int, error) {
	f.record("Cases %q %d", q, page)
	return nil, 0, nil
}

func (f *fakeStore) CasesByID(context.Context, []int64) ([]learning.Case, error) { return nil, nil }

func (f *fakeStore) DeleteCase(_ context.Context, id int64) error {
	f.record("DeleteCase %d", id)
	return nil
}

func (f *fakeStore) ImportCases(_ context.Context, cases []store.ImportedCase) (int64, error) {
	f.record("ImportCases %d", len(cases))
	return int64(len(cases)), nil
}

func (f *fakeStore) LatestMaxLength(context.Context, string) (int, error) { return 0, nil }

func (f *fakeStore) Lessons(context.Context) ([]learning.Lesson, error) { return nil, nil }

func (f *fakeStore) LessonsByID(context.Context, []int64) ([]learning.Lesson, error) { return nil, nil }

func (f *fakeStore) Lesson(_ context.Context, id int64) (learning.Lesson, error) {
	return learning.Lesson{ID: id, Text: "No emoji", Kind: learning.KindManual, Count: 1, Enabled: true}, nil
}

func (f *fakeStore) AddLesson(_ context.Context, text string, kind learning.LessonKind, _ int64) (learning.Lesson, bool, error) {
	f.record("AddLesson %q", text)
	return learning.Lesson{ID: 1, Text: text, Kind: kind, Count: 1, Enabled: true}, true, nil
}

func (f *fakeStore) UpdateLesson(_ context.Context, id int64, text *string, enabled *bool) (learning.Lesson, error) {
	f.record("UpdateLesson %d", id)
	return learning.Lesson{ID: id, Text: "No emoji", Kind: learning.KindManual, Count: 1}, nil
}

func (f *fakeStore) DeleteLesson(_ context.Context, id int64) error {
	f.record("DeleteLesson %d", id)
	return nil
}

func (f *fakeStore) ChunkCandidates(context.Context, []string, string) ([]knowledge.Candidate, error) {
	f.record("ChunkCandidates")
	return nil, nil
}

func (f *fakeStore) AddDocument(_ context.Context, title string, _ int, _ []knowledge.Piece) (knowledge.Document, error) {
	f.record("AddDocument %s", title)
	return knowledge.Document{ID: 1, Title: title}, nil
}

func (f *fakeStore) Documents(context.Context) ([]knowledge.Document, error) {
	f.record("Documents")
	return nil, nil
}

func (f *fakeStore) SetDocumentEnabled(_ context.Context, id int64, enabled bool) (knowledge.Document, error) {
	f.record("SetDocumentEnabled %d %t", id, enabled)
	return knowledge.Document{ID: id, Enabled: enabled}, nil
}

func (f *fakeStore) DeleteDocument(_ context.Context, id int64) error {
	f.record("DeleteDocument %d", id)
	return nil
}

func (f *fakeStore) FactsByChunk(context.Context, []int64) ([]knowledge.Fact, error) {
	return nil, nil
}

// DraftCounts is not recorded: it goes with the spend report.
func (f *fakeStore) DraftCounts(context.Context, time.Time) (int, int, error) {
	return 0, 0, nil
}

// TargetsNotFound is not recorded: it goes with Settings, the call the tests name.
func (f *fakeStore) TargetsNotFound(context.Context, string) ([]string, error) {
	return nil, nil
}

// SettingsAccounts is not recorded: it goes with Settings, the call the tests name.
func (f *fakeStore) SettingsAccounts(context.Context, []string) ([]settings.Account, []settings.Account, error) {
	return []settings.Account{}, []settings.Account{}, nil
}
func (f *fakeStore) Persona(context.Context) (persona.Persona, error) {
	f.record("Persona")
	return persona.Default(), nil
}
func (f *fakeStore) PersonaVersions(context.Context) ([]persona.Persona, error) {
	f.record("PersonaVersions")
	return []persona.Persona{persona.Default()}, nil
}
func (f *fakeStore) PutPersona(_ context.Context, p persona.Persona) (persona.Persona, error) {
	f.record("PutPersona %s", p.Voice)
	p.Version = 2
	return p, nil
}
func (f *fakeStore) PutSettings(_ context.Context, v settings.Settings) error {
	f.record("PutSettings %s %s %d", strings.Join(v.TargetUsernames, ","), strings.Join(v.SearchTopics, ","), v.Caps.SendsPerDay)
	return nil
}

func (f *fakeStore) SendQueueOf(_ context.Context, id int64, _ guard.SendCaps) (store.SendQueue, error) {
	f.record("SendQueueOf %d", id)
	return store.SendQueue{}, errUnexpected
}

func (f *fakeStore) SendCounts(context.Context) (store.SendCounts, error) {
	f.record("SendCounts")
	return store.SendCounts{}, nil
}

func (f *fakeStore) SpendTotals(_ context.Context, since time.Time) (spend.Sums, error) {
	f.record("SpendTotals %s", since.Format(time.DateOnly))
	return spend.Sums{}, nil
}

// fakeAuth takes fakeToken and refuses every login.
type fakeAuth struct{ store *fakeStore }

func (a fakeAuth) Login(_ context.Context, username, _, _ string) (string, time.Time, error) {
	a.store.record("Login %s", username)
	return "", time.Time{}, auth.ErrInvalidCredentials
}
func (a fakeAuth) Logout(context.Context, string) error { a.store.record("Logout"); return nil }

func (a fakeAuth) LogoutAll(context.Context, string) error { a.store.record("LogoutAll"); return nil }
func (a fakeAuth) Authenticate(_ context.Context, token string) error {
	if token != fakeToken {
		return auth.ErrUnauthenticated
	}
	return nil
}

// fakeQueue records the work handed to it in the same list as the store.
type fakeQueue struct{ store *fakeStore }

func (q fakeQueue) EnqueueSend(_ context.Context, id int64) error {
	q.store.record("EnqueueSend %d", id)
	return nil
}
func (q fakeQueue) EnqueueDraft(_ context.Context, id int64, platform string) error {
	q.store.record("EnqueueDraft %d %s", id, platform)
	return nil
}
func (q fakeQueue) EnqueueRegenerate(_ context.Context, id int64, instruction string) error {
	q.store.record("EnqueueRegenerate %d %q", id, instruction)
	return nil
}
func (q fakeQueue) EnsureDraft(_ context.Context, id int64, platform string) (bool, error) {
	q.store.record("EnsureDraft %d %s", id, platform)
	return true, nil
}
func (q fakeQueue) EnqueuePeriodicOn(_ context.Context, typ, platform string) error {
	q.store.record("EnqueuePeriodicOn %s %s", typ, platform)
	return nil
}
func (q fakeQueue) Ping(context.Context) error { return nil }
func (q fakeQueue) EnqueuePreview(_ context.Context, p tasks.PreviewPayload) (string, error) {
	q.store.record("EnqueuePreview %q", p.PostText)
	return "preview-1", nil
}
func (q fakeQueue) PreviewResult(context.Context, string) (tasks.PreviewResult, bool, error) {
	return tasks.PreviewResult{Response: "A fake draft.", Category: "pride"}, true, nil
}
func (q fakeQueue) DropPreview(_ context.Context, id string) error {
	q.store.record("DropPreview %s", id)
	return nil
}

// fakeServer serves the API on fakes and returns the store that records calls.
func fakeServer(t *testing.T) (*httptest.Server, *fakeStore) {
	t.Helper()
	return fakeServerOn(t, "sandbox")
}

// fakeServerOn is fakeServer for a persona that answers on platforms, the
// first one first.
func fakeServerOn(t *testing.T, platforms ...string) (*httptest.Server, *fakeStore) {
	t.Helper()
	st := &fakeStore{}
	srv := newServer(t, api.New(api.Config{
		Store: st, Auth: fakeAuth{st}, Queue: fakeQueue{st},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil", Platform: platforms[0], Platforms: platforms,
	}))
	t.Cleanup(srv.Close)
	return srv, st
}

func call(t *testing.T, srv *httptest.Server, method, path, token, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == http.MethodPost || method == http.MethodPut {
		// As the frontend sends every call; login refuses anything else with 415.
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// Requests refused for their shape get a 4xx with a message, and reach
// neither the store, nor the login check, nor the queue.
func TestRefusedRequestsReachNothing(t *testing.T) {
	t.Parallel()
	srv, st := fakeServer(t)
	tests := []struct {
		name       string
		method     string
		path       string
		token      string
		body       string
		wantStatus int
		wantError  string
	}{
		{name: "login NUL in username", method: "POST", path: "/api/auth/login", body: `{"username":"ad\u0000min","password":"x"}`, wantStatus: 400, wantError: "NUL"},
		{name: "login missing password", method: "POST", path: "/api/auth/login", body: `{"username":"admin"}`, wantStatus: 400, wantError: "username and password are required"},
		{name: "login empty body", method: "POST", path: "/api/auth/login", wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "login not json", method: "POST", path: "/api/auth/login", body: `username=admin`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "login array", method: "POST", path: "/api/auth/login", body: `[]`, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "login unknown field", method: "POST", path: "/api/auth/login", body: `{"username":"admin","password":"x","admin":true}`, wantStatus: 400, wantError: "unknown field"},
		{name: "login wrong type", method: "POST", path: "/api/auth/login", body: `{"username":1,"password":"x"}`, wantStatus: 400, wantError: `field "username"`},
		{name: "login trailing data", method: "POST", path: "/api/auth/login", body: `{"username":"admin","password":"x"} {}`, wantStatus: 400, wantError: "unexpected data"},
		{name: "login too long", method: "POST", path: "/api/auth/login", body: `{"username":"` + strings.Repeat("a", 129) + `","password":"x"}`, wantStatus: 400, wantError: "too long"},
		{name: "login oversized", method: "POST", path: "/api/auth/login", body: `{"username":"` + strings.Repeat("a", 70000) + `","password":"x"}`, wantStatus: 413, wantError: "larger than"},
		{name: "list without token", method: "GET", path: "/api/posts/pending", wantStatus: 401, wantError: "authentication required"},
		{name: "list with a bad token", method: "GET", path: "/api/posts/pending", token: "forged", wantStatus: 401, wantError: "authentication required"},
		{name: "page zero", method: "GET", path: "/api/posts/pending?page=0", token: fakeToken, wantStatus: 400, wantError: "page must be an integer"},
		{name: "page negative", method: "GET", path: "/api/posts/mentions?page=-1", token: fakeToken, wantStatus: 400, wantError: "page must be an integer"},
		{name: "page word", method: "GET", path: "/api/posts/profile?page=two", token: fakeToken, wantStatus: 400, wantError: "page must be an integer"},
		{name: "page huge", method: "GET", path: "/api/posts/targeted?page=99999999999999999999", token: fakeToken, wantStatus: 400, wantError: "page must be an integer"},
		{name: "bad sort", method: "GET", path: "/api/posts/pending?sortBy=chaos", token: fakeToken, wantStatus: 400, wantError: "sortBy must be one of"},
		{name: "unknown list", method: "GET", path: "/api/posts/everything", token: fakeToken, wantStatus: 404, wantError: "no such API route"},
		{name: "approve without token", method: "POST", path: "/api/posts/1/approve", body: `{}`, wantStatus: 401, wantError: "authentication required"},
		{name: "approve bad id", method: "POST", path: "/api/posts/abc/approve", token: fakeToken, body: `{}`, wantStatus: 400, wantError: "post id"},
		{name: "approve zero id", method: "POST", path: "/api/posts/0/approve", token: fakeToken, body: `{}`, wantStatus: 400, wantError: "post id"},
		{name: "approve huge id", method: "POST", path: "/api/posts/99999999999999999999/approve", token: fakeToken, body: `{}`, wantStatus: 400, wantError: "post id"},
		{name: "approve bad json", method: "POST", path: "/api/posts/1/approve", token: fakeToken, body: `{"response":`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "approve unknown field", method: "POST", path: "/api/posts/1/approve", token: fakeToken, body: `{"text":"x"}`, wantStatus: 400, wantError: "unknown field"},
		{name: "approve wrong type", method: "POST", path: "/api/posts/1/approve", token: fakeToken, body: `{"response":1}`, wantStatus: 400, wantError: `field "response"`},
		{name: "approve NUL in edit", method: "POST", path: "/api/posts/1/approve", token: fakeToken, body: `{"response":"a\u0000b"}`, wantStatus: 400, wantError: "control character U+0000"},
		{name: "approve by GET", method: "GET", path: "/api/posts/1/approve", token: fakeToken, wantStatus: 405, wantError: "method not allowed"},
		{name: "reject bad body", method: "POST", path: "/api/posts/1/reject", token: fakeToken, body: `nope`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "reject bad id", method: "POST", path: "/api/posts/-3/reject", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "generate without token", method: "POST", path: "/api/posts/profile/generate", wantStatus: 401, wantError: "authentication required"},
		{name: "logs negative offset", method: "GET", path: "/api/public/logs?offset=-15", wantStatus: 400, wantError: "offset must be an integer"},
		{name: "public stats by POST", method: "POST", path: "/api/public/stats", wantStatus: 405, wantError: "method not allowed"},
		{name: "public latest by DELETE", method: "DELETE", path: "/api/public/latest", wantStatus: 405, wantError: "method not allowed"},
		{name: "public logs by PUT", method: "PUT", path: "/api/public/logs", body: `{}`, wantStatus: 405, wantError: "method not allowed"},
		{name: "unknown public page", method: "GET", path: "/api/public/nothing", wantStatus: 404, wantError: "no such API route"},
		{name: "logs garbage offset", method: "GET", path: "/api/public/logs?offset=abc", wantStatus: 400, wantError: "offset must be an integer"},
		{name: "unknown API route", method: "GET", path: "/api/nothing/here", wantStatus: 404, wantError: "no such API route"},
		{name: "mark posted without token", method: "POST", path: "/api/posts/1/mark-posted", wantStatus: 401, wantError: "authentication required"},
		{name: "mark posted bad id", method: "POST", path: "/api/posts/x/mark-posted", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "mark posted bad json", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"response_post_id":`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "mark posted numeric id", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"response_post_id":123}`, wantStatus: 400, wantError: `field "response_post_id"`},
		{name: "mark posted empty id", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"response_post_id":""}`, wantStatus: 400, wantError: "response_post_id must be"},
		{name: "mark posted letters", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"response_post_id":"12a"}`, wantStatus: 400, wantError: "response_post_id must be"},
		{name: "mark posted long id", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"response_post_id":"` + strings.Repeat("1", 33) + `"}`, wantStatus: 400, wantError: "response_post_id must be"},
		{name: "mark posted unknown field", method: "POST", path: "/api/posts/1/mark-posted", token: fakeToken, body: `{"id":"1"}`, wantStatus: 400, wantError: "unknown field"},
		{name: "give up without token", method: "POST", path: "/api/posts/1/give-up", wantStatus: 401, wantError: "authentication required"},
		{name: "give up bad id", method: "POST", path: "/api/posts/0/give-up", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "give up array", method: "POST", path: "/api/posts/1/give-up", token: fakeToken, body: `[]`, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "give up blank reason", method: "POST", path: "/api/posts/1/give-up", token: fakeToken, body: `{"reason":"  "}`, wantStatus: 400, wantError: "reason: must be 1 to 500"},
		{name: "give up NUL reason", method: "POST", path: "/api/posts/1/give-up", token: fakeToken, body: `{"reason":"a\u0000"}`, wantStatus: 400, wantError: "reason: holds the control character U+0000"},
		{name: "give up long reason", method: "POST", path: "/api/posts/1/give-up", token: fakeToken, body: `{"reason":"` + strings.Repeat("r", 501) + `"}`, wantStatus: 400, wantError: "reason: must be 1 to 500"},
		{name: "spend without token", method: "GET", path: "/api/spend", wantStatus: 401, wantError: "authentication required"},
		{name: "spend by POST", method: "POST", path: "/api/spend", token: fakeToken, wantStatus: 405, wantError: "method not allowed"},
		{name: "resume without token", method: "POST", path: "/api/ops/resume", wantStatus: 401, wantError: "authentication required"},
		{name: "resume bad body", method: "POST", path: "/api/ops/resume", token: fakeToken, body: `{"now":true}`, wantStatus: 400, wantError: "unknown field"},
		{name: "pause without token", method: "POST", path: "/api/ops/pause", wantStatus: 401, wantError: "authentication required"},
		{name: "pause bad body", method: "POST", path: "/api/ops/pause", token: fakeToken, body: `{"platform":"x"}`, wantStatus: 400, wantError: "unknown field"},
		{name: "pause garbage", method: "POST", path: "/api/ops/pause", token: fakeToken, body: `[1,2`, wantStatus: 400},
		{name: "history without token", method: "GET", path: "/api/posts/1/history", wantStatus: 401, wantError: "authentication required"},
		{name: "history bad id", method: "GET", path: "/api/posts/x/history", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "history by POST", method: "POST", path: "/api/posts/1/history", token: fakeToken, wantStatus: 405, wantError: "method not allowed"},
		{name: "context without token", method: "GET", path: "/api/posts/1/context", wantStatus: 401, wantError: "authentication required"},
		{name: "context bad id", method: "GET", path: "/api/posts/-1/context", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "context garbage id", method: "GET", path: "/api/posts/1%00x/context", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "regenerate without token", method: "POST", path: "/api/posts/1/regenerate", wantStatus: 401, wantError: "authentication required"},
		{name: "regenerate bad id", method: "POST", path: "/api/posts/0/regenerate", token: fakeToken, wantStatus: 400, wantError: "post id"},
		{name: "regenerate garbage", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `shorter`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "regenerate array", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `["shorter"]`, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "regenerate unknown field", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `{"prompt":"x"}`, wantStatus: 400, wantError: "unknown field"},
		{name: "regenerate numeric instruction", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `{"instruction":5}`, wantStatus: 400, wantError: `field "instruction"`},
		{name: "regenerate two lines", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `{"instruction":"shorter\ncrueler"}`, wantStatus: 400, wantError: "instruction: must be one line"},
		{name: "regenerate long instruction", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `{"instruction":"` + strings.Repeat("é", 201) + `"}`, wantStatus: 400, wantError: "instruction: must be one line of at most 200"},
		{name: "regenerate NUL", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: `{"instruction":"a\u0000"}`, wantStatus: 400, wantError: "instruction"},
		{name: "regenerate bad UTF-8", method: "POST", path: "/api/posts/1/regenerate", token: fakeToken, body: "{\"instruction\":\"a\xff\"}", wantStatus: 400, wantError: "UTF-8"},
		{name: "bulk without token", method: "POST", path: "/api/posts/bulk", body: `{"ids":[1],"action":"approve"}`, wantStatus: 401, wantError: "authentication required"},
		{name: "bulk empty body", method: "POST", path: "/api/posts/bulk", token: fakeToken, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "bulk garbage", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `approve all`, wantStatus: 400, wantError: "malformed JSON"},
		{name: "bulk no ids", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"action":"approve"}`, wantStatus: 400, wantError: "ids must hold 1 to 100"},
		{name: "bulk null ids", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":null,"action":"reject"}`, wantStatus: 400, wantError: `field "ids" must not be null`},
		{name: "bulk empty ids", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[],"action":"reject"}`, wantStatus: 400, wantError: "ids must hold"},
		{name: "bulk too many ids", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[` + idList(101) + `],"action":"reject"}`, wantStatus: 400, wantError: "ids must hold 1 to 100"},
		{name: "bulk zero id", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1,0],"action":"reject"}`, wantStatus: 400, wantError: "ids[1] must be a positive integer"},
		{name: "bulk negative id", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[-4],"action":"reject"}`, wantStatus: 400, wantError: "ids[0] must be a positive integer"},
		{name: "bulk repeated id", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[3,4,3],"action":"reject"}`, wantStatus: 400, wantError: "ids[2] repeats post 3"},
		{name: "bulk string ids", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":["1"],"action":"reject"}`, wantStatus: 400, wantError: `field "ids`},
		{name: "bulk fractional id", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1.5],"action":"reject"}`, wantStatus: 400, wantError: `field "ids`},
		{name: "bulk ids object", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":{"1":true},"action":"reject"}`, wantStatus: 400, wantError: `field "ids"`},
		{name: "bulk unknown action", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1],"action":"delete"}`, wantStatus: 400, wantError: `action must be "approve" or "reject"`},
		{name: "bulk no action", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1]}`, wantStatus: 400, wantError: "action must be"},
		{name: "bulk unknown field", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1],"action":"approve","response":"x"}`, wantStatus: 400, wantError: "unknown field"},
		{name: "bulk override not a boolean", method: "POST", path: "/api/posts/bulk", token: fakeToken, body: `{"ids":[1],"action":"approve","override":"yes"}`, wantStatus: 400, wantError: `field "override"`},
		{name: "bulk by GET", method: "GET", path: "/api/posts/bulk", token: fakeToken, wantStatus: 405, wantError: "method not allowed"},
		{name: "settings without token", method: "GET", path: "/api/settings", wantStatus: 401, wantError: "authentication required"},
		{name: "put settings without token", method: "PUT", path: "/api/settings", body: `OK`, wantStatus: 401, wantError: "authentication required"},
		{name: "put settings empty body", method: "PUT", path: "/api/settings", token: fakeToken, wantStatus: 400, wantError: "request body must be a JSON object"},
		{name: "put settings unknown field", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"targets":[]}`, wantStatus: 400, wantError: "unknown field"},
		{name: "put settings unknown cap", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"caps":{"sends_per_hour":3}}`, wantStatus: 400, wantError: "unknown field"},
		{name: "put settings wrong type", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"search_topics":"monday"}`, wantStatus: 400, wantError: `field "search_topics"`},
		{name: "put settings missing field", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"caps":{}}`, wantStatus: 400, wantError: "blocked_phrases: is required"},
		{name: "put settings bad handle", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"target_usernames":["ok","no way"],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantStatus: 400, wantError: "target_usernames[1]: "},
		{name: "put settings bad cap", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_day":-5}}`, wantStatus: 400, wantError: "caps.sends_per_day: "},
		{name: "put settings fractional cap", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"target_usernames":[],"search_topics":[],"blocked_authors":[],"blocked_phrases":[],"caps":{"sends_per_day":2.5}}`, wantStatus: 400, wantError: `field "caps.sends_per_day"`},
		{name: "put settings quoted topic", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"target_usernames":[],"search_topics":["say \"hi\""],"blocked_authors":[],"blocked_phrases":[],"caps":{}}`, wantStatus: 400, wantError: "search_topics[0]: "},
		{name: "put settings oversized", method: "PUT", path: "/api/settings", token: fakeToken, body: `{"search_topics":["` + strings.Repeat("a", 70000) + `"]}`, wantStatus: 413, wantError: "larger than"},
		{name: "settings by POST", method: "POST", path: "/api/settings", token: fakeToken, body: `{}`, wantStatus: 405, wantError: "method not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(st.Calls())
			status, body := call(t, srv, tt.method, tt.path, tt.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
				t.Errorf("error %q, want it to contain %q", msg, tt.wantError)
			}
			if calls := st.Calls()[before:]; len(calls) != 0 {
				t.Errorf("a refused request reached %v", calls)
			}
		})
	}
}

// idList is "1,2,…,n".
func idList(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(ids, ",")
}

// Each admin tab's list asks the store for its own source, ten to a page,
// and a well-formed login reaches the login check.
func TestRequestsReachTheirCall(t *testing.T) {
	t.Parallel()
	srv, st := fakeServer(t)
	tests := []struct {
		name       string
		method     string
		path       string
		token      string
		body       string
		wantStatus int
		wantCall   string
	}{
		{name: "conversations", method: "GET", path: "/api/posts/pending", token: fakeToken, wantStatus: 200, wantCall: "ListPending conversation date 1 10"},
		{name: "mentions by likes", method: "GET", path: "/api/posts/mentions?sortBy=likes&page=3", token: fakeToken, wantStatus: 200, wantCall: "ListPending mention likes 3 10"},
		{name: "profile", method: "GET", path: "/api/posts/profile", token: fakeToken, wantStatus: 200, wantCall: "ListPending profile date 1 10"},
		{name: "targeted", method: "GET", path: "/api/posts/targeted?sortBy=engagement", token: fakeToken, wantStatus: 200, wantCall: "ListPending targeted engagement 1 10"},
		{name: "logs fifteen to a page", method: "GET", path: "/api/public/logs?offset=30", wantStatus: 200, wantCall: "Logs 30 15"},
		{name: "login", method: "POST", path: "/api/auth/login", body: `{"username":"admin","password":"x"}`, wantStatus: 401, wantCall: "Login admin"},
		{name: "mark posted without an id", method: "POST", path: "/api/posts/4/mark-posted", token: fakeToken, wantStatus: 200, wantCall: `MarkManualPosted 4 ""`},
		{name: "mark posted with the reply id", method: "POST", path: "/api/posts/4/mark-posted", token: fakeToken, body: `{"response_post_id":"1790000000000000001"}`, wantStatus: 200, wantCall: `MarkManualPosted 4 "1790000000000000001"`},
		{name: "give up", method: "POST", path: "/api/posts/5/give-up", token: fakeToken, body: `{}`, wantStatus: 200, wantCall: `GiveUp 5 "Given up: not posted by hand"`},
		{name: "give up with a reason", method: "POST", path: "/api/posts/5/give-up", token: fakeToken, body: `{"reason":"too late"}`, wantStatus: 200, wantCall: `GiveUp 5 "too late"`},
		{name: "resume", method: "POST", path: "/api/ops/resume", token: fakeToken, wantStatus: 200, wantCall: "Resume"},
		{name: "pause", method: "POST", path: "/api/ops/pause", token: fakeToken, wantStatus: 200, wantCall: `SetPause operator ""`},
		{name: "history", method: "GET", path: "/api/posts/6/history", token: fakeToken, wantStatus: 200, wantCall: "History 6; Decisions 6; Post 6"},
		{name: "settings", method: "GET", path: "/api/settings", token: fakeToken, wantStatus: 200, wantCall: "Settings"},
		{name: "telegram link", method: "GET", path: "/api/telegram", token: fakeToken, wantStatus: 200, wantCall: "Telegram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(st.Calls())
			status, body := call(t, srv, tt.method, tt.path, tt.token, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			// wantCall names the calls in order, joined by "; ".
			if calls := st.Calls()[before:]; strings.Join(calls, "; ") != tt.wantCall {
				t.Errorf("calls %v, want [%s]", calls, tt.wantCall)
			}
		})
	}
}

// The store's refusals reach the client as their facts, written by the API.
func TestStoreRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantError  string
	}{
		{name: "not pending", err: fmt.Errorf("store: approve post 7: %w", &post.StateError{ID: 7, Have: post.StatusApproved, Want: post.StatusPending}),
			wantStatus: 409, wantError: "it is approved, not pending"},
		{name: "rejected", err: fmt.Errorf("store: reject post 7: %w", &post.StateError{ID: 7, Have: post.StatusRejected, Want: post.StatusPending}),
			wantStatus: 409, wantError: "it is rejected, not pending"},
		{name: "too long", err: fmt.Errorf("store: approve post 7: %w", &post.LengthError{Length: 282, Max: twittertext.MaxLength}),
			wantStatus: 422, wantError: fmt.Sprintf("the response is 282 characters; it must be 1 to %d", twittertext.MaxLength)},
		{name: "too long for bluesky", err: fmt.Errorf("store: approve post 7: %w", &post.LengthError{Length: 301, Max: post.MaxLengthBluesky, Unit: "graphemes"}),
			wantStatus: 422, wantError: "the response is 301 graphemes; it must be 1 to 300"},
		{name: "empty", err: fmt.Errorf("store: approve post 7: %w", &post.LengthError{Length: 0, Max: twittertext.MaxLength}),
			wantStatus: 422, wantError: fmt.Sprintf("the response is 0 characters; it must be 1 to %d", twittertext.MaxLength)},
		{name: "not found", err: fmt.Errorf("store: approve post 7: %w", store.ErrNotFound), wantStatus: 404, wantError: "not found"},
		{name: "bare conflict", err: fmt.Errorf("store: approve post 7: %w: details for the log", store.ErrConflict), wantStatus: 409, wantError: "conflict"},
		{name: "bare invalid", err: fmt.Errorf("store: approve post 7: %w: details for the log", store.ErrInvalid), wantStatus: 422, wantError: "invalid"},
		{name: "unexpected", err: errors.New("disk on fire"), wantStatus: 500, wantError: "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, st := fakeServer(t)
			st.approveErr = tt.err
			status, body := call(t, srv, "POST", "/api/posts/7/approve", fakeToken, `{}`)
			if status != tt.wantStatus || errorOf(t, body) != tt.wantError {
				t.Errorf("got %d %s, want %d with error %q", status, body, tt.wantStatus, tt.wantError)
			}
			if strings.Contains(body, "store:") || strings.Contains(body, "details for the log") {
				t.Errorf("the store's wording leaked: %s", body)
			}
		})
	}
}
