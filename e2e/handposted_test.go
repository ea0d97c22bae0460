package e2e

// The test in this file runs the real web, worker and scheduler binaries
// against the fake X of live_clients_test.go and the offline writer, and
// follows a reply the API may not send from its draft to the public log,
// through the administrator's hand.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/post"
)

// handPostedWait bounds how long the hand-posted reply may take to show in
// the public log: a few of the 3-second schedules the processes run at, and
// the hand-posting lookup's own interval, which the test's processes are
// given as 3 seconds too.
const handPostedWait = 60 * time.Second

// proc is one binary started by a test, stopped with SIGTERM at its end.
type proc struct {
	name   string
	cmd    *exec.Cmd
	logs   *bytes.Buffer
	exited chan error
}

// startProc runs bin with the environment env added to the test's, and
// stops it (SIGTERM, then SIGKILL after 40 s) when the test ends, showing
// its output if the test failed.
func startProc(t *testing.T, name, bin string, env ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin), logs: &bytes.Buffer{}, exited: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Logf("%s: %v", p.name, err)
		}
		var err error
		select {
		case err = <-p.exited:
		case <-time.After(40 * time.Second):
			if kerr := p.cmd.Process.Kill(); kerr != nil {
				t.Logf("%s: %v", p.name, kerr)
			}
			err = <-p.exited
		}
		if err != nil {
			t.Logf("%s stopped: %v", p.name, err)
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", p.name, p.logs.String())
		}
	})
	return p
}

// webClient speaks to the web binary: the admin API with a session token,
// the public API without.
type webClient struct {
	t     *testing.T
	base  string
	token string
}

// request sends method path with body (JSON, none when empty) and returns
// the status and the answer's body; the test fails when none came.
func (c *webClient) request(method, path, body string) (int, []byte) {
	c.t.Helper()
	status, b, err := c.send(method, path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	return status, b
}

// send is request for any goroutine: it answers the error instead of
// failing the test.
func (c *webClient) send(method, path, body string) (int, []byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, errors.Join(err, resp.Body.Close())
}

// readyz asks /readyz once and answers its status, 0 when nothing answered.
func (c *webClient) readyz() int {
	status, _, err := c.send("GET", "/readyz", "")
	if err != nil {
		return 0
	}
	return status
}

// logMessage is one message of the public log as GET /api/public/logs shows it.
type logMessage struct {
	ID               int64  `json:"id"`
	OriginalPostID   string `json:"original_post_id"`
	ProposedResponse string `json:"proposed_response"`
}

// A search result that does not summon the persona (route manual) is
// drafted by the offline writer, approved through the admin API of the web
// binary, and answered by hand on X with a text of the administrator's own.
// The worker's periodic lookup, run by the scheduler binary, finds that
// reply on the persona's timeline: the post becomes posted with the
// reply's id, and the public log shows the reply as it was posted.
func TestHandPostedReplyEndToEnd(t *testing.T) {
	t.Parallel()
	f := newProcessFixture(t)
	scheduler, web := buildBinary(t, "scheduler"), buildBinary(t, "web")
	fx := f.fx
	topic := fx.addUser("topic1", "Topic One")
	original := fx.postAs(topic, "is "+liveSearchTopic+" a renewable energy source?")

	common := []string{
		"DATABASE_URL=" + f.dbURL, "REDIS_URL=" + f.redisURL, "PERSONA_HANDLE=" + persona, "PLATFORM=x",
		"LOG_LEVEL=debug",
	}
	schedules := []string{
		"SCHEDULE_MENTIONS=@every 3s", "SCHEDULE_CONVERSATIONS=@every 3s", "SCHEDULE_TARGETED=@every 3s",
		"SCHEDULE_PROFILE=@every 1h", "SCHEDULE_METRICS=@every 3s", "SCHEDULE_RECONCILE=@every 3s",
	}
	startProc(t, "worker", f.worker, append(common,
		"METRICS_ADDR=127.0.0.1:0", "X_API_BASE_URL="+fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
		"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret,
		"WRITER=offline", "SEARCH_TOPICS="+liveSearchTopic, "HAND_POSTING_INTERVAL=3s")...)
	startProc(t, "scheduler", scheduler, append(common, schedules...)...)
	addr := freeAddr(t)
	startProc(t, "web", web, append(common, "HTTP_ADDR="+addr, "ADMIN_PASSWORD=hellfire666", "STATIC_DIR="+t.TempDir())...)

	c := &webClient{t: t, base: "http://" + addr}
	deadline := time.Now().Add(liveWait * 2)
	for c.readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the web binary never got ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	status, body := c.request("POST", "/api/auth/login", `{"username":"admin","password":"hellfire666"}`)
	var login struct{ Token string }
	if err := json.Unmarshal(body, &login); status != http.StatusOK || err != nil || login.Token == "" {
		t.Fatalf("login: %d %s (%v)", status, body, err)
	}
	c.token = login.Token

	// The scheduler's conversation scan finds the result; the offline writer drafts it.
	var drafted liveView
	deadline = time.Now().Add(liveWait * 2)
	for drafted.ID == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the search result was never drafted")
		}
		time.Sleep(200 * time.Millisecond)
		status, body := c.request("GET", "/api/posts/pending", "")
		var list struct{ Posts []liveView }
		if err := json.Unmarshal(body, &list); status != http.StatusOK || err != nil {
			t.Fatalf("pending: %d %s (%v)", status, body, err)
		}
		for _, v := range list.Posts {
			if v.OriginalPostID == original && v.Status == string(post.StatusPending) {
				drafted = v
			}
		}
	}
	if drafted.ReplyRoute == nil || *drafted.ReplyRoute != "manual" {
		t.Fatalf("the result is routed %v, want manual", drafted.ReplyRoute)
	}
	status, body = c.request("POST", "/api/posts/"+strconv.FormatInt(drafted.ID, 10)+"/approve", "{}")
	var approved liveView
	if err := json.Unmarshal(body, &approved); status != http.StatusOK || err != nil || approved.Status != string(post.StatusAwaitingManual) {
		t.Fatalf("approve: %d %s (%v), want awaiting_manual", status, body, err)
	}

	handText := "Renewable? Brimstone is the only fuel that never runs out. Ask anyone down here."
	if handText == drafted.ProposedResponse {
		t.Fatal("the hand-posted text must differ from the draft")
	}
	handID := fx.postByHand(handText, original)

	var got []logMessage
	deadline = time.Now().Add(handPostedWait)
	for {
		p, err := f.st.Post(t.Context(), drafted.ID)
		if err != nil {
			t.Fatal(err)
		}
		status, body := c.request("GET", "/api/public/logs", "")
		var logs struct {
			Threads []struct{ Messages []logMessage }
		}
		if err := json.Unmarshal(body, &logs); status != http.StatusOK || err != nil {
			t.Fatalf("public logs: %d %s (%v)", status, body, err)
		}
		got = got[:0]
		for _, th := range logs.Threads {
			got = append(got, th.Messages...)
		}
		if p.Status == post.StatusPosted && len(got) > 0 {
			if p.ResponsePostID != handID {
				t.Errorf("posted as %q, want the hand-posted reply %s", p.ResponsePostID, handID)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the post is %s as %q (error %q); the public log holds %+v", handPostedWait, p.Status, p.ResponsePostID, p.Error, got)
		}
		time.Sleep(500 * time.Millisecond)
	}
	want := logMessage{ID: drafted.ID, OriginalPostID: original, ProposedResponse: handText}
	if len(got) != 1 || got[0] != want {
		t.Errorf("public log holds %+v, want only %+v", got, want)
	}
	if n := len(fx.publishesTo(original)); n != 0 {
		t.Errorf("X got %d API replies to the post the API may not answer", n)
	}
}
