package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// buildBinary compiles one of the commands into a temporary folder.
func buildBinary(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", out, "infernal/cmd/"+name)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, b)
	}
	return out
}

// The real worker binary, wired to the real X and OpenAI clients through the
// environment, gets SIGTERM while a reply is on its way to X: it lets the
// send finish, records it, and exits cleanly.
func TestWorkerProcessFinishesInFlightSendOnSIGTERM(t *testing.T) {
	worker := buildBinary(t, "worker")
	fx, llm := newFakeX(t), newFakeLLM(t)
	dbURL := storetest.NewDatabase(t)
	redisURL := taskstest.RedisURL(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer queue.Close()

	mortal := fx.addUser("mortal", "A Mortal")
	text := "@" + persona + " will you answer before you go?"
	llm.reply(text, "I always finish what I start. Especially damnation.")
	mention := fx.postAs(mortal, text)

	var logs bytes.Buffer
	cmd := exec.Command(worker)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "METRICS_ADDR=127.0.0.1:0", "PERSONA_HANDLE="+persona,
		"PLATFORM=x", "X_API_BASE_URL="+fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
		"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret,
		"WRITER=openai", "OPENAI_BASE_URL="+llm.srv.URL, "OPENAI_API_KEY="+liveLLMKey, "OPENAI_MODEL="+liveModel,
	)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
	}()

	if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
		t.Fatal(err)
	}
	var id int64
	deadline := time.Now().Add(liveWait)
	for id == 0 && time.Now().Before(deadline) {
		list, _, err := st.ListPending(ctx, post.SourceMention, post.SortDate, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list {
			if p.OriginalPostID == mention && p.Status == post.StatusPending {
				id = p.ID
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if id == 0 {
		t.Fatal("the worker never drafted the mention")
	}

	sending := make(chan struct{})
	fx.scriptPublish(func(http.Header) (int, string) {
		close(sending)
		// X takes its time; the worker is told to stop meanwhile.
		time.Sleep(2 * time.Second)
		return http.StatusCreated, `{"data":{"id":"1900000000000000001","text":"I always finish what I start. Especially damnation."}}`
	})
	if _, err := st.Approve(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
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
			cmd := exec.Command(buildBinary(t, tt.name))
			cmd.Env = append(os.Environ(), tt.env)
			out, err := cmd.CombinedOutput()
			exit, ok := err.(*exec.ExitError)
			if !ok || exit.ExitCode() != 1 || !bytes.Contains(out, []byte(tt.want)) {
				t.Fatalf("%s with %s: %v\n%s", tt.name, tt.env, err, out)
			}
		})
	}
}
