package e2e

// The test in this file runs the real web, worker and scheduler binaries on
// a Redis behind three sentinels and a PostgreSQL primary with a
// synchronous standby (ha_servers_test.go), kills each primary during a
// burst of mentions and a stream of approvals, and checks that nothing was
// lost or done twice.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
	"infernal/pkg/store"
)

// failoverWait bounds each wait of the failover test: a guard against a
// hang, not a speed requirement.
const failoverWait = 90 * time.Second

// failoverWave is how many mentions arrive at each step of the test.
const failoverWave = 8

// haSystem is the product running on the HA servers, seen from the test.
type haSystem struct {
	t   *testing.T
	fx  *fakeX
	st  *store.Store
	web *webClient
	// webs are every web process: approvals alternate between them, on
	// web's session (kept in PostgreSQL, so any web process knows it).
	webs []*webClient
	// ids maps each mention to its post, once drafted.
	ids map[string]int64
	// approved holds the posts whose approval landed.
	approved map[int64]bool
	// readyz counts the answers of /readyz by status, polled through the test.
	readyz map[int]int
	// approvals counts the answers to approvals by status.
	approvals map[int]int
}

// TestFailoverLosesNothing: two workers, two web processes and a scheduler
// run on the HA servers. A wave of mentions is drafted and approved (through
// both web processes); the Redis primary is killed (Sentinel promotes the
// replica) while the next wave comes in and is approved; then the
// PostgreSQL primary is killed and the standby promoted by hand, with a
// third wave. Every mention is drafted once, every approval posted once on
// X, and /readyz, 503 while no database takes writes, is 200 again without
// any process restarted; the workers' and scheduler's health checks pass.
func TestFailoverLosesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two Redis servers, three sentinels and two PostgreSQL servers")
	}
	rds := startRedisSentinel(t)
	pg := startPostgresHA(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.PrimaryURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE infernal`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	dbURL, redisURL := pg.URL("infernal"), rds.URL()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	// The caps stay out of the way: every approval goes out at once.
	set, err := st.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.Caps.SendsPer3Hours, set.Caps.SendsPerDay = 1000, 1000
	if err := st.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}

	s := &haSystem{t: t, fx: newFakeX(t), st: st, ids: map[string]int64{}, approved: map[int64]bool{}, readyz: map[int]int{}, approvals: map[int]int{}}
	worker, scheduler, web := buildBinary(t, "worker"), buildBinary(t, "scheduler"), buildBinary(t, "web")
	common := []string{"DATABASE_URL=" + dbURL, "REDIS_URL=" + redisURL, "PERSONA_HANDLE=" + persona, "PLATFORM=x", "LOG_LEVEL=debug"}
	// Two of each but the scheduler, as on several machines.
	var workerEnvs [][]string
	for i := range 2 {
		env := append(common[:len(common):len(common)],
			"METRICS_ADDR="+freeAddr(t), "X_API_BASE_URL="+s.fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
			"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret, "WRITER=offline")
		startProc(t, fmt.Sprintf("worker%d", i+1), worker, env...)
		workerEnvs = append(workerEnvs, env)
	}
	schedulerEnv := append(common[:len(common):len(common)],
		"SCHEDULE_MENTIONS=@every 2s", "SCHEDULE_CONVERSATIONS=@every 1h", "SCHEDULE_TARGETED=@every 1h",
		"SCHEDULE_PROFILE=@every 1h", "SCHEDULE_METRICS=@every 1h", "SCHEDULE_RECONCILE=@every 2s")
	startProc(t, "scheduler", scheduler, schedulerEnv...)
	for i := range 2 {
		addr := freeAddr(t)
		startProc(t, fmt.Sprintf("web%d", i+1), web, append(common, "HTTP_ADDR="+addr, "ADMIN_PASSWORD=hellfire666", "STATIC_DIR="+t.TempDir())...)
		s.webs = append(s.webs, &webClient{t: t, base: "http://" + addr})
	}
	s.web = s.webs[0]
	for _, w := range s.webs {
		s.waitReady(w, http.StatusOK)
	}
	s.login()

	var mentions []string
	wave := func(n int) {
		for i := range failoverWave {
			u := s.fx.addUser(fmt.Sprintf("mortal%d_%d", n, i), "Mortal")
			mentions = append(mentions, s.fx.postAs(u, fmt.Sprintf("@%s wave %d, soul %d: is there air conditioning down there?", persona, n, i)))
		}
	}

	wave(1)
	s.approveAll(mentions)

	// The Redis primary dies while wave 1 goes out; wave 2 is scanned,
	// drafted and approved through the failover.
	t.Log("wave 1 approved; killing the Redis primary")
	old := rds.KillPrimary(t)
	wave(2)
	s.approveAll(mentions[:len(mentions)-failoverWave/2])
	t.Logf("sentinels promoted %s in place of %s", rds.WaitPromoted(t, old, failoverWait), old)

	// The PostgreSQL primary dies while wave 2 goes out, the rest of its
	// drafts waiting for approval and wave 3 coming in. Those approvals are
	// sent while no server takes writes.
	held := s.waitDrafted(mentions)
	t.Logf("killing the PostgreSQL primary with %d drafts to approve", len(held))
	killed := time.Now()
	pg.KillPrimary(t)
	wave(3)
	type answer struct {
		id     int64
		status int
		body   []byte
		took   time.Duration
	}
	answers := make(chan answer, len(held))
	for _, id := range held {
		go func() {
			start := time.Now()
			status, body := s.approveOnce(id)
			answers <- answer{id, status, body, time.Since(start)}
		}()
	}
	// No server takes writes until the standby is promoted: readiness says so.
	s.waitReady(s.web, http.StatusServiceUnavailable)
	t.Logf("/readyz is 503 %v after the kill; promoting the standby", time.Since(killed).Round(time.Millisecond))
	promoted := time.Now()
	pg.Promote(t)
	s.waitReady(s.web, http.StatusOK)
	t.Logf("/readyz is 200 again %v after the promotion began", time.Since(promoted).Round(time.Millisecond))
	for range held {
		a := <-answers
		t.Logf("approval of post %d sent mid-failover: %d after %v", a.id, a.status, a.took.Round(time.Millisecond))
		s.judgeApproval(a.id, a.status, a.body)
		if !s.approved[a.id] {
			// Answered 503 or not at all: sent again, it lands now, or is
			// answered 409 because the first one landed after all.
			s.approve(a.id)
		}
	}
	s.approveAll(mentions)

	s.waitPostedOnce(mentions)
	// The processes' own health checks pass again, none restarted.
	for _, w := range s.webs {
		s.waitReady(w, http.StatusOK)
	}
	for i, env := range workerEnvs {
		waitHealthcheck(t, fmt.Sprintf("worker%d", i+1), worker, env)
	}
	waitHealthcheck(t, "scheduler", scheduler, schedulerEnv)
	t.Logf("/readyz answered %v; approvals %v", s.readyz, s.approvals)
}

// waitHealthcheck runs bin -healthcheck, as a container's check does, until
// it passes.
func waitHealthcheck(t *testing.T, name, bin string, env []string) {
	t.Helper()
	deadline := time.Now().Add(failoverWait)
	for {
		cmd := exec.Command(bin, "-healthcheck")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s -healthcheck never passed after the failovers: %v\n%s", name, err, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// probe asks w's /readyz once and counts the answer; 0 when nothing answered.
func (s *haSystem) probe(w *webClient) int {
	status := w.readyz()
	s.readyz[status]++
	return status
}

// waitReady polls w's /readyz until it answers want.
func (s *haSystem) waitReady(w *webClient, want int) {
	s.t.Helper()
	deadline := time.Now().Add(failoverWait)
	for s.probe(w) != want {
		if time.Now().After(deadline) {
			s.t.Fatalf("/readyz never answered %d; answers so far %v", want, s.readyz)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// login opens the admin session.
func (s *haSystem) login() {
	s.t.Helper()
	status, body := s.web.request("POST", "/api/auth/login", `{"username":"admin","password":"hellfire666"}`)
	var login struct{ Token string }
	if err := json.Unmarshal(body, &login); status != http.StatusOK || err != nil || login.Token == "" {
		s.t.Fatalf("login: %d %s (%v)", status, body, err)
	}
	for _, w := range s.webs {
		w.token = login.Token
	}
}

// webFor is the web process that approves post id.
func (s *haSystem) webFor(id int64) *webClient {
	return s.webs[int(id)%len(s.webs)]
}

// pending lists every pending mention draft, page by page; nil when the
// API could not answer (mid-failover).
func (s *haSystem) pending() []liveView {
	var all []liveView
	for page := 1; ; page++ {
		status, body := s.web.request("GET", "/api/posts/mentions?page="+strconv.Itoa(page), "")
		if status != http.StatusOK {
			return nil
		}
		var list struct{ Posts []liveView }
		if err := json.Unmarshal(body, &list); err != nil {
			s.t.Fatalf("pending: %s (%v)", body, err)
		}
		if len(list.Posts) == 0 {
			return all
		}
		all = append(all, list.Posts...)
	}
}

// approveAll approves every mention's draft as it appears, until each of
// mentions has an approval that landed. An approval answered 503 (or not
// at all) is sent again; one answered 409 is checked: the earlier attempt
// landed after all, or the test fails.
func (s *haSystem) approveAll(mentions []string) {
	s.t.Helper()
	deadline := time.Now().Add(failoverWait * 2)
	for {
		left := 0
		for _, m := range mentions {
			if id, ok := s.ids[m]; !ok || !s.approved[id] {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d of %d mentions were never drafted and approved; drafts seen %v", left, len(mentions), s.ids)
		}
		s.approveRound(mentions)
		time.Sleep(300 * time.Millisecond)
	}
}

// approveRound approves every pending draft of mentions the API lists now.
func (s *haSystem) approveRound(mentions []string) {
	s.t.Helper()
	s.probe(s.web)
	for _, v := range s.drafts() {
		if v.Status == string(post.StatusPending) && !s.approved[v.ID] && slices.Contains(mentions, v.OriginalPostID) {
			s.approve(v.ID)
		}
	}
}

// drafts lists the pending mention drafts and notes each one's post,
// failing the test when a mention has two.
func (s *haSystem) drafts() []liveView {
	s.t.Helper()
	list := s.pending()
	for _, v := range list {
		if prev, ok := s.ids[v.OriginalPostID]; ok && prev != v.ID {
			s.t.Errorf("mention %s drafted as post %d and as post %d", v.OriginalPostID, prev, v.ID)
		}
		s.ids[v.OriginalPostID] = v.ID
	}
	return list
}

// waitDrafted waits until every one of mentions is drafted, approving
// none, and returns the posts still to approve.
func (s *haSystem) waitDrafted(mentions []string) []int64 {
	s.t.Helper()
	deadline := time.Now().Add(failoverWait)
	for {
		s.drafts()
		var held []int64
		drafted := 0
		for _, m := range mentions {
			if id, ok := s.ids[m]; ok {
				drafted++
				if !s.approved[id] {
					held = append(held, id)
				}
			}
		}
		if drafted == len(mentions) {
			return held
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d of %d mentions drafted", drafted, len(mentions))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// approveOnce sends one approval, from any goroutine, and answers its
// status and body (0 when no answer came); approve judges them.
func (s *haSystem) approveOnce(id int64) (int, []byte) {
	status, body, err := s.webFor(id).send("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", "{}")
	if err != nil {
		return 0, nil
	}
	return status, body
}

// approve sends one approval and judges the answer.
func (s *haSystem) approve(id int64) {
	status, body := s.approveOnce(id)
	s.judgeApproval(id, status, body)
}

// judgeApproval notes post id approved when the answer to its approval
// says it landed; an answer that cannot be fails the test.
func (s *haSystem) judgeApproval(id int64, status int, body []byte) {
	s.approvals[status]++
	switch status {
	case http.StatusOK:
		s.approved[id] = true
	case http.StatusConflict:
		// Answered 409: an earlier attempt, answered 503 or not at all, landed.
		p, err := s.st.Post(context.Background(), id)
		if err != nil {
			s.t.Fatal(err)
		}
		if p.Status != post.StatusApproved && p.Status != post.StatusPosted {
			s.t.Fatalf("approve %d: 409 %s, and the post is %s", id, body, p.Status)
		}
		s.approved[id] = true
	case http.StatusServiceUnavailable, 0:
		// Mid-failover: the next round sends it again.
	default:
		s.t.Fatalf("approve %d: %d %s", id, status, body)
	}
}

// waitPostedOnce waits until every mention's post is posted, then checks
// that X got exactly one reply to each, and each post has one draft.
func (s *haSystem) waitPostedOnce(mentions []string) {
	s.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(failoverWait * 2)
	for _, m := range mentions {
		id := s.ids[m]
		for {
			p, err := s.st.Post(ctx, id)
			if err != nil {
				s.t.Fatal(err)
			}
			if p.Status == post.StatusPosted {
				break
			}
			if time.Now().After(deadline) {
				s.t.Fatalf("post %d of mention %s is %s (error %q), never posted", id, m, p.Status, p.Error)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if n := len(s.fx.publishesTo(m)); n != 1 {
			s.t.Errorf("X got %d replies to mention %s, want exactly 1", n, m)
		}
		history, err := s.st.History(ctx, id)
		if err != nil {
			s.t.Fatal(err)
		}
		if len(history) != 1 {
			s.t.Errorf("post %d of mention %s has %d versions, want the one draft: %+v", id, m, len(history), history)
		}
	}
	if n := len(s.fx.allPublishes()); n != len(mentions) {
		s.t.Errorf("X got %d posts in all, want %d", n, len(mentions))
	}
}
