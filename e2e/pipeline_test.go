// Package e2e runs the whole product in one test process: the web tier on a
// real HTTP listener, the worker as an asynq server, and the scheduler, on
// the sandbox platform and the offline writer, against real PostgreSQL and
// Redis.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer/offline"
)

const persona = "infernal_ai"

var entries = []corpus.Entry{
	{Username: "sinner1", Name: "Sinner One", Kind: "mention", Text: "@{persona} is monday a punishment?"},
	{Username: "sinner2", Name: "Sinner Two", Kind: "mention", Text: "hey @{persona}, my coffee is cold ☕"},
	{Username: "topic1", Name: "Topic One", Kind: "topic", Text: "deadlines are a social construct"},
	{Username: "target1", Name: "Target One", Kind: "target", Text: "new gym, new me 💪"},
}

// crashAfterPublish wraps a platform so that its next Publish posts and then
// fails as if the worker died before it could record the reply.
type crashAfterPublish struct {
	platform.Platform
	armed atomic.Bool
}

func (c *crashAfterPublish) Publish(ctx context.Context, text, inReplyTo string) (platform.Post, error) {
	p, err := c.Platform.Publish(ctx, text, inReplyTo)
	if err == nil && c.armed.CompareAndSwap(true, false) {
		panic("worker killed between posting and recording")
	}
	return p, err
}

type system struct {
	t         *testing.T
	store     *store.Store
	queue     *tasks.Client
	redisURL  string
	plat      *crashAfterPublish
	sandbox   *sandbox.Sandbox
	pipe      *pipeline.Pipeline
	web       *httptest.Server
	token     string
	workerSrv *tasks.Server
}

// putSettings stores the administrator's topics and targets for a test,
// with send caps far above what any test sends: the tests of the caps set
// their own.
func putSettings(t *testing.T, st *store.Store, topics, targets []string) {
	t.Helper()
	caps := settings.DefaultCaps()
	caps.SendsPer3Hours, caps.SendsPerDay = 1000, 1000
	s, err := settings.Settings{SearchTopics: topics, TargetUsernames: targets, Caps: caps}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSettings(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T) *system {
	t.Helper()
	st := storetest.New(t)
	putSettings(t, st, []string{"anything"}, []string{"target1"})
	redisURL := taskstest.RedisURL(t)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sb, err := sandbox.New(st.Pool(), persona, 50*time.Millisecond, entries, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	plat := &crashAfterPublish{Platform: sb}
	s := &system{t: t, store: st, queue: queue, redisURL: redisURL, plat: plat, sandbox: sb}
	s.pipe = pipeline.New(pipeline.Config{
		Store: st, Platform: plat, Writer: offline.New(persona), Queue: queue, Log: log, Now: time.Now, Handle: persona,
		HandPosting: []post.Source{post.SourceConversation, post.SourceTargeted},
	})
	s.startWeb(log, "sandbox")
	return s
}

// startWeb serves the web tier for the test and signs the administrator in.
func (s *system) startWeb(log *slog.Logger, platformName string) {
	s.t.Helper()
	authn, err := auth.NewService(s.store, time.Hour, time.Now, auth.WithHashCost(auth.HashCost{MemoryKiB: 64, Passes: 1}))
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := authn.Bootstrap(context.Background(), "admin", "hellfire666", log); err != nil {
		s.t.Fatal(err)
	}
	s.web = httptest.NewServer(api.New(api.Config{Store: s.store, Auth: authn, Queue: s.queue, Log: log, Handle: persona, Platform: platformName}))
	s.t.Cleanup(s.web.Close)
	s.token = s.login()
}

// startWorker runs the pipeline in the worker's server until the test ends
// or stopWorker; failed tasks are retried after fixedRetry.
func (s *system) startWorker() {
	s.t.Helper()
	s.runServer(tasks.ServerConfig{RetryDelay: fixedRetry})
}

// runServer runs the pipeline in the worker's server, built by
// tasks.NewServer as the worker builds it, with cfg's test settings.
func (s *system) runServer(cfg tasks.ServerConfig) {
	s.t.Helper()
	cfg.RedisURL, cfg.Register = s.redisURL, s.pipe.Register
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := tasks.NewServer(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.workerSrv = srv
	s.t.Cleanup(s.stopWorker)
}

func (s *system) stopWorker() {
	if s.workerSrv != nil {
		s.workerSrv.Shutdown()
		s.workerSrv = nil
	}
}

func (s *system) login() string {
	resp, err := http.Post(s.web.URL+"/api/auth/login", "application/json", strings.NewReader(`{"username":"admin","password":"hellfire666"}`))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		s.t.Fatalf("login: %d %v", resp.StatusCode, err)
	}
	return out.Token
}

func (s *system) call(method, path string) (int, []byte) {
	s.t.Helper()
	return s.do(method, path, "{}")
}

// do sends an admin request with a JSON body and returns the status and body.
func (s *system) do(method, path, body string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.web.URL+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, b
}

type listed struct {
	ID               int64  `json:"id"`
	ProposedResponse string `json:"proposed_response"`
	OriginalPostID   string `json:"original_post_id"`
	Category         string `json:"category"`
}

// waitForList polls an admin list until it holds at least n posts.
func (s *system) waitForList(path string, n int) []listed {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	for time.Now().Before(deadline) {
		status, body := s.call("GET", path)
		if status != 200 {
			s.t.Fatalf("%s: %d %s", path, status, body)
		}
		var out struct{ Posts []listed }
		if err := json.Unmarshal(body, &out); err != nil {
			s.t.Fatal(err)
		}
		if len(out.Posts) >= n {
			return out.Posts
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("%s never held %d posts", path, n)
	return nil
}

func (s *system) waitForStatus(id int64, want post.Status) post.Post {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	var p post.Post
	var err error
	for time.Now().Before(deadline) {
		if p, err = s.store.Post(context.Background(), id); err == nil && p.Status == want {
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("post %d is %s (%v), want %s", id, p.Status, err, want)
	return p
}

// personaReplies counts the persona's replies to a sandbox post.
func (s *system) personaReplies(originalID string) int {
	s.t.Helper()
	replies, err := s.sandbox.PersonaReplies(context.Background(), originalID)
	if err != nil {
		s.t.Fatal(err)
	}
	return len(replies)
}

func (s *system) runScans() {
	s.t.Helper()
	for _, typ := range []string{tasks.TypeScanMentions, tasks.TypeScanConversations, tasks.TypeScanTargeted} {
		if err := s.queue.EnqueuePeriodic(context.Background(), typ); err != nil {
			s.t.Fatal(err)
		}
	}
}

func TestMentionToPostedReply(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.startWorker()
	sched, err := tasks.NewScheduler(s.queue, s.redisURL, []tasks.Schedule{
		{Type: tasks.TypeScanMentions, Spec: "@every 1s"},
		{Type: tasks.TypeScanConversations, Spec: "@every 1s"},
		{Type: tasks.TypeScanTargeted, Spec: "@every 1s"},
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sched.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("scheduler: %v", err)
		}
	}()

	mentions := s.waitForList("/api/posts/mentions", 2)
	s.waitForList("/api/posts/pending", 1)
	s.waitForList("/api/posts/targeted", 1)
	for _, m := range mentions {
		if m.ProposedResponse == "" || m.Category == "" || twittertext.WeightedLength(m.ProposedResponse) > twittertext.MaxLength {
			t.Fatalf("draft not written: %+v", m)
		}
	}
	approve, reject := mentions[0], mentions[1]
	if status, body := s.call("POST", "/api/posts/"+strconv.FormatInt(approve.ID, 10)+"/approve"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	if status, body := s.call("POST", "/api/posts/"+strconv.FormatInt(reject.ID, 10)+"/reject"); status != 200 {
		t.Fatalf("reject: %d %s", status, body)
	}
	p := s.waitForStatus(approve.ID, post.StatusPosted)
	if p.ResponsePostID == "" || p.PostedAt == nil {
		t.Errorf("posted without its platform id or time: %+v", p)
	}
	// Give the worker a moment in which a duplicate send would show.
	time.Sleep(500 * time.Millisecond)
	if n := s.personaReplies(approve.OriginalPostID); n != 1 {
		t.Errorf("approved mention answered %d times, want exactly once", n)
	}
	if n := s.personaReplies(reject.OriginalPostID); n != 0 {
		t.Errorf("rejected mention answered %d times, want never", n)
	}
	if got := s.waitForStatus(reject.ID, post.StatusRejected); got.PostedAt != nil {
		t.Errorf("rejected post has a posted time")
	}
	status, body := s.call("GET", "/api/public/logs")
	if status != 200 || !strings.Contains(string(body), "MORTAL_INTERACTION") {
		t.Errorf("public logs after posting: %d %s", status, body)
	}
}

func TestCrashBetweenPostingAndRecording(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.startWorker()
	s.runScans()
	m := s.waitForList("/api/posts/mentions", 1)[0]
	s.plat.armed.Store(true)
	if status, body := s.call("POST", "/api/posts/"+strconv.FormatInt(m.ID, 10)+"/approve"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	s.waitForStatus(m.ID, post.StatusPosted)
	if s.plat.armed.Load() {
		t.Fatal("the crash never happened")
	}
	if n := s.personaReplies(m.OriginalPostID); n != 1 {
		t.Errorf("after a crash mid-send the mention was answered %d times, want exactly once", n)
	}
}

func TestRedisFlushedAfterApproval(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.startWorker()
	s.runScans()
	m := s.waitForList("/api/posts/mentions", 1)[0]
	s.stopWorker()
	if status, body := s.call("POST", "/api/posts/"+strconv.FormatInt(m.ID, 10)+"/approve"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	opt, err := redis.ParseURL(s.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	defer rc.Close()
	if err := rc.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	// The approval outlives Redis in Postgres; reconcile (after its grace period) sends it.
	s.pipe.Maintainer.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if err := s.queue.EnqueuePeriodic(context.Background(), tasks.TypeReconcile); err != nil {
		t.Fatal(err)
	}
	s.startWorker()
	s.waitForStatus(m.ID, post.StatusPosted)
	if n := s.personaReplies(m.OriginalPostID); n != 1 {
		t.Errorf("answered %d times, want once", n)
	}
}

func TestPoisonPayloads(t *testing.T) {
	t.Parallel()
	s := start(t)
	opt, err := asynq.ParseRedisURI(s.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	client := asynq.NewClient(opt)
	defer client.Close()
	poison := []*asynq.Task{
		asynq.NewTask(tasks.TypeSendPost, []byte("garbage"), asynq.Queue(tasks.QueueCritical)),
		asynq.NewTask(tasks.TypeDraftPost, []byte(`{"post_id":-1}`), asynq.Queue(tasks.QueueDefault)),
		asynq.NewTask(tasks.TypeDraftPost, []byte(`{"post_id":1,"extra":true}`), asynq.Queue(tasks.QueueDefault)),
		asynq.NewTask(tasks.TypeScanMentions, []byte(`[1,2]`), asynq.Queue(tasks.QueueLow)),
		asynq.NewTask(tasks.TypeSendPost, []byte(`{"post_id":987654}`), asynq.Queue(tasks.QueueCritical)),
		asynq.NewTask(tasks.TypeRegeneratePost, []byte(`{"post_id":1,"instruction":["x"]}`), asynq.Queue(tasks.QueueHigh)),
		asynq.NewTask(tasks.TypeRegeneratePost, []byte(`{"post_id":987654}`), asynq.Queue(tasks.QueueHigh)),
	}
	for _, task := range poison {
		if _, err := client.Enqueue(task, asynq.MaxRetry(5)); err != nil {
			t.Fatal(err)
		}
	}
	s.startWorker()
	s.runScans()
	// The pipeline goes on: a mention is drafted and can be sent.
	m := s.waitForList("/api/posts/mentions", 1)[0]
	if status, body := s.call("POST", "/api/posts/"+strconv.FormatInt(m.ID, 10)+"/approve"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	s.waitForStatus(m.ID, post.StatusPosted)
	archived := 0
	for _, q := range []string{tasks.QueueCritical, tasks.QueueHigh, tasks.QueueDefault, tasks.QueueLow} {
		list, err := s.queue.Inspector().ListArchivedTasks(q)
		if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) {
			t.Fatal(err)
		}
		for _, info := range list {
			if info.Retried != 0 {
				t.Errorf("poison task %s was retried %d times before archiving", info.Type, info.Retried)
			}
		}
		archived += len(list)
	}
	if archived != len(poison) {
		t.Errorf("%d tasks archived, want the %d poison ones", archived, len(poison))
	}
}
