package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// processFixture is what a test of the worker binary runs against: the
// binary, fakes of X and the model, and a database and Redis of its own.
type processFixture struct {
	worker          string
	fx              *fakeX
	llm             *fakeLLM
	dbURL, redisURL string
	st              *store.Store
	queue           *tasks.Client
}

// webSystem serves the web tier in this process on the fixture's database
// and queue, with an administrator logged in: the admin API beside the
// worker binary.
func (f processFixture) webSystem(t *testing.T) *system {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	authn, err := auth.NewService(f.st, time.Hour, time.Now, auth.WithHashCost(auth.HashCost{MemoryKiB: 64, Passes: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authn.Bootstrap(context.Background(), "admin", "hellfire666", log); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(api.New(api.Config{Store: f.st, Auth: authn, Queue: f.queue, Log: log, Handle: persona, Platform: "x"}))
	t.Cleanup(web.Close)
	s := &system{t: t, store: f.st, queue: f.queue, web: web}
	s.token = s.login()
	return s
}

func newProcessFixture(t *testing.T) processFixture {
	t.Helper()
	f := processFixture{worker: buildBinary(t, "worker"), fx: newFakeX(t), llm: newFakeLLM(t),
		dbURL: storetest.NewDatabase(t), redisURL: taskstest.RedisURL(t)}
	var err error
	if f.st, err = store.Open(context.Background(), f.dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.st.Close)
	if f.queue, err = tasks.NewClient(f.redisURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.queue.Close(); err != nil {
			t.Errorf("close queue: %v", err)
		}
	})
	return f
}

// The real worker binary, wired to the real X and OpenAI clients through the
// environment, gets SIGTERM while a reply is on its way to X: it lets the
// send finish, records it, and exits cleanly.
func TestWorkerProcessFinishesInFlightSendOnSIGTERM(t *testing.T) {
	t.Parallel()
	f := newProcessFixture(t)
	worker, fx, llm, dbURL, redisURL, st, queue := f.worker, f.fx, f.llm, f.dbURL, f.redisURL, f.st, f.queue
	ctx := context.Background()

	mortal := fx.addUser("mortal", "A Mortal")
	text := "@" + persona + " will you answer before you go?"
	llm.reply(text, "I always finish what I start. Especially damnation.")
	mention := fx.postAs(mortal, text)

	var logs processLog
	cmd := startWorkerProcess(t, worker, dbURL, redisURL, fx, llm, &logs)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			t.Logf("%s killed at the end of the test: %v", cmd.Path, <-exited)
		}
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
	}()

	if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
		t.Fatal(err)
	}
	id := waitDrafted(t, st, mention)

	sending := make(chan struct{})
	fx.scriptPublish(func(http.Header) (int, string) {
		close(sending)
		// X takes its time; the worker is told to stop meanwhile.
		time.Sleep(2 * time.Second)
		return http.StatusCreated, `{"data":{"id":"1900000000000000001","text":"I always finish what I start. Especially damnation."}}`
	})
	approve(t, st, queue, id)
	if err := queue.EnqueueSend(ctx, id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sending:
	case <-time.After(liveWait):
		t.Fatal("the worker never sent the approved reply")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("worker exit after SIGTERM: %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the worker did not stop within its shutdown timeout")
	}
	p, err := st.Post(ctx, id)
	if err != nil || p.Status != post.StatusPosted || p.ResponsePostID != "1900000000000000001" {
		t.Fatalf("after shutdown the post is %s as %q (%v), want posted as X's id", p.Status, p.ResponsePostID, err)
	}
	if n := len(fx.publishesTo(mention)); n != 1 {
		t.Errorf("X got %d posts for the mention, want 1", n)
	}
}

// Each command refuses a bad setting at start, naming the variable, and
// exits non-zero before touching anything.
func TestCommandsRefuseBadConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  string
		want string
	}{
		{name: "web", env: "HTTP_ADDR=not-an-address", want: "HTTP_ADDR"},
		{name: "worker", env: "PLATFORM=myspace", want: "PLATFORM"},
		{name: "scheduler", env: "SCHEDULE_MENTIONS=every now and then", want: "SCHEDULE_MENTIONS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(buildBinary(t, tt.name))
			cmd.Env = append(os.Environ(), tt.env)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !bytes.Contains(out, []byte(tt.want)) {
				t.Fatalf("%s with %s: %v\n%s", tt.name, tt.env, err, out)
			}
		})
	}
}

// waitDrafted waits for the mention to be drafted and returns its row id.
func waitDrafted(t *testing.T, st *store.Store, mention string) int64 {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for time.Now().Before(deadline) {
		list, _, err := st.ListPending(context.Background(), post.SourceMention, post.SortDate, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list {
			if p.OriginalPostID == mention && p.Status == post.StatusPending {
				return p.ID
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the worker never drafted the mention")
	return 0
}

// processLog is a process's output, written by the process's copying
// goroutines while the test reads it: a bytes.Buffer under a mutex.
type processLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *processLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything written so far.
func (l *processLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// startWorkerProcess runs the worker binary against the fakes, logging into logs.
func startWorkerProcess(t *testing.T, bin, dbURL, redisURL string, fx *fakeX, llm *fakeLLM, logs *processLog) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "METRICS_ADDR=127.0.0.1:0", "PERSONA_HANDLE="+persona,
		"PLATFORM=x", "X_API_BASE_URL="+fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
		"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret,
		"WRITER=openai", "OPENAI_BASE_URL="+llm.srv.URL, "OPENAI_API_KEY="+liveLLMKey, "OPENAI_MODEL="+liveModel,
	)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// The worker binary is killed (SIGKILL) after X accepted the reply but
// before the worker could record it. Once asynq gives the dead worker's task
// back (its lease lapses after 30 s, and the recoverer waits 30 s more), a
// new worker asks X first, finds the reply, and records it: posted exactly
// once. This test waits out asynq's lease, about a minute.
func TestWorkerKilledMidSendPostsOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits a minute for asynq's lease to lapse")
	}
	f := newProcessFixture(t)
	worker, fx, llm, dbURL, redisURL, st, queue := f.worker, f.fx, f.llm, f.dbURL, f.redisURL, f.st, f.queue
	ctx := context.Background()

	mortal := fx.addUser("mortal", "A Mortal")
	text := "@" + persona + " what happens if you die mid-sentence?"
	reply := "Then I rise again and finish it. Once."
	llm.reply(text, reply)
	mention := fx.postAs(mortal, text)

	var logsA, logsB processLog
	a := startWorkerProcess(t, worker, dbURL, redisURL, fx, llm, &logsA)
	exitedA := make(chan error, 1)
	go func() { exitedA <- a.Wait() }()
	if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
		t.Fatal(err)
	}
	id := waitDrafted(t, st, mention)

	posted := make(chan string, 1)
	hang := make(chan struct{})
	defer close(hang)
	var answered int
	fx.scriptPublish(func(http.Header) (int, string) {
		answered++
		// X takes the reply, then the worker dies before hearing back.
		fx.mu.Lock()
		tw := fx.add(livePersonaID, reply, mention)
		fx.mu.Unlock()
		posted <- strconv.FormatInt(tw.id, 10)
		<-hang
		return http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503}`
	})
	approve(t, st, queue, id)
	if err := queue.EnqueueSend(ctx, id); err != nil {
		t.Fatal(err)
	}
	var replyID string
	select {
	case replyID = <-posted:
	case <-time.After(liveWait):
		t.Fatalf("worker A never sent the reply\n%s", logsA.String())
	}
	if err := a.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("worker A killed: %v", <-exitedA)
	killed := time.Now()
	if p, err := st.Post(ctx, id); err != nil || p.Status != post.StatusApproved || p.SendStartedAt == nil {
		t.Fatalf("after the kill the post is %s, marked %v (%v); want approved and marked as being sent", p.Status, p.SendStartedAt, err)
	}

	// Start the new worker once asynq will hand the orphaned task back.
	time.Sleep(time.Until(killed.Add(62 * time.Second)))
	b := startWorkerProcess(t, worker, dbURL, redisURL, fx, llm, &logsB)
	exitedB := make(chan error, 1)
	go func() { exitedB <- b.Wait() }()
	defer func() {
		_ = b.Process.Signal(syscall.SIGTERM)
		if err := <-exitedB; err != nil {
			t.Errorf("worker B did not stop cleanly on SIGTERM: %v", err)
		}
		if t.Failed() {
			t.Logf("worker B output:\n%s", logsB.String())
		}
	}()
	deadline := time.Now().Add(45 * time.Second)
	var p post.Post
	var err error
	for time.Now().Before(deadline) {
		if p, err = st.Post(ctx, id); err == nil && p.Status == post.StatusPosted {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if p.Status != post.StatusPosted || p.ResponsePostID != replyID {
		t.Fatalf("the post is %s as %q, want posted as the reply X already has (%s)", p.Status, p.ResponsePostID, replyID)
	}
	if answered != 1 || len(fx.publishesTo(mention)) != 0 {
		t.Errorf("X was asked to post %d times (%d finished); want the one attempt of the dead worker only", answered, len(fx.publishesTo(mention)))
	}
}
