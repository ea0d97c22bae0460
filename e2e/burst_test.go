package e2e

// The tests in this file run the real worker and scheduler binaries against
// the fake X of live_clients_test.go, which pages as X does, with bursts far
// beyond what one scan reads.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// burstWait bounds how long a burst may take to be drafted in these tests;
// it is a guard against a hang, not a speed requirement.
const burstWait = 4 * time.Minute

// maxConcurrent is the most reads of the timeline at path (and search
// query) the fake X has answered at once.
func (f *fakeX) maxConcurrent(path, query string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxInFlight[path+"?"+query]
}

// setReadDelay holds every timeline read of the fake X for d.
func (f *fakeX) setReadDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readDelay = d
}

// burstProcess is one worker or scheduler binary started by a burst test.
type burstProcess struct {
	name   string
	cmd    *exec.Cmd
	logs   *bytes.Buffer
	exited chan error
}

// startBurstProcess runs bin against the fake X with the offline writer,
// every scan scheduled every 3 seconds. It is stopped with SIGTERM (or
// killed) at the end of the test, and its output shown if the test failed.
func startBurstProcess(t *testing.T, name, bin string, f processFixture, targets string) *burstProcess {
	t.Helper()
	p := &burstProcess{name: name, cmd: exec.Command(bin), logs: &bytes.Buffer{}, exited: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(),
		"DATABASE_URL="+f.dbURL, "REDIS_URL="+f.redisURL, "METRICS_ADDR=127.0.0.1:0", "PERSONA_HANDLE="+persona,
		"PLATFORM=x", "X_API_BASE_URL="+f.fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
		"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret,
		"WRITER=offline", "SEARCH_TOPICS="+liveSearchTopic, "TARGET_USERNAMES="+targets,
		"SCHEDULE_MENTIONS=@every 3s", "SCHEDULE_CONVERSATIONS=@every 3s", "SCHEDULE_TARGETED=@every 3s",
		// The burst reads and drafts far past the defaults' bounds, which are not what it tests.
		"DRAFT_CAP_PER_HOUR=100000", "X_DAILY_BUDGET_USD=none", "X_MONTHLY_BUDGET_USD=none",
	)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			var err error
			select {
			case err = <-p.exited:
			case <-time.After(40 * time.Second):
				_ = p.cmd.Process.Kill()
				err = <-p.exited
			}
			if err != nil {
				t.Logf("%s stopped: %v", p.name, err)
			}
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", p.name, p.logs.String())
		}
	})
	return p
}

// kill ends the process with SIGKILL, as a crash would.
func (p *burstProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s killed: %v", p.name, <-p.exited)
}

// waitCursor waits until the scan of timeline name has kept a cursor.
func waitCursor(t *testing.T, st *store.Store, name string) {
	t.Helper()
	deadline := time.Now().Add(liveWait * 2)
	for time.Now().Before(deadline) {
		if c, err := st.Cursor(context.Background(), "x", name); err != nil {
			t.Fatal(err)
		} else if c != "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no scan of %s kept a cursor", name)
}

// pendingOf returns how many times each original post of source is listed
// for the admin, pending or failed, after all are drafted: it waits until
// want are listed and none of source is still drafting.
func pendingOf(t *testing.T, st *store.Store, source post.Source, want int) (map[string]int, []post.Post) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(burstWait)
	for {
		_, total, err := st.ListPending(ctx, source, post.SortDate, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if total >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	seen := map[string]int{}
	var failed []post.Post
	for page := 1; ; page++ {
		list, _, err := st.ListPending(ctx, source, post.SortDate, page, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list {
			seen[p.OriginalPostID]++
			if p.Status != post.StatusPending {
				failed = append(failed, p)
			}
		}
		if len(list) < 100 {
			return seen, failed
		}
	}
}

// checkOnce fails unless every id of want is listed exactly once, and
// nothing else.
func checkOnce(t *testing.T, what string, seen map[string]int, failed []post.Post, want []string) {
	t.Helper()
	missing, twice := 0, 0
	for _, id := range want {
		switch seen[id] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	if missing > 0 || twice > 0 || len(seen) != len(want) {
		t.Errorf("%s: %d of %d never reached the admin, %d listed more than once, %d listed in all", what, missing, len(want), twice, len(seen))
	}
	for _, p := range failed {
		t.Errorf("%s: post %s is %s: %s", what, p.OriginalPostID, p.Status, p.Error)
	}
}

// Three workers and two schedulers, every scan scheduled every 3 seconds,
// while 1,500 mentions, 700 search results and 150 posts of a targeted
// account arrive at once, far beyond one scan's bound of reads. Every post
// reaches the admin exactly once, no gap is left open, and the fake X never
// answers two reads of one timeline at the same time, although each scan
// of the backlog outlasts the schedule (every read is held 300 ms).
func TestBurstThreeWorkersTwoSchedulers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs five processes through a burst of 2,350 posts")
	}
	f := newProcessFixture(t)
	scheduler := buildBinary(t, "scheduler")
	fx, st := f.fx, f.st
	mortal, sinner := fx.addUser("mortal", "A Mortal"), fx.addUser("sinner", "A Sinner")
	// The settings are stored before any worker seeds them from its
	// environment, so they must name the topic and the target themselves.
	err := st.PutSettings(context.Background(), settings.Settings{
		TargetUsernames: []string{sinner.Username}, SearchTopics: []string{liveSearchTopic}, Caps: settings.DefaultCaps(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// One mortal sends the whole burst: the reply caps are not what is tested.
	storetest.UncapReplies(t, st)
	mentions := []string{fx.postAs(mortal, "@"+persona+" first of all")}
	results := []string{fx.postAs(mortal, liveSearchTopic+" for breakfast")}
	targeted := []string{fx.postAs(sinner, "a post before the storm")}

	for i := range 3 {
		startBurstProcess(t, fmt.Sprintf("worker %d", i+1), f.worker, f, sinner.Username)
	}
	for i := range 2 {
		startBurstProcess(t, fmt.Sprintf("scheduler %d", i+1), scheduler, f, sinner.Username)
	}
	for _, name := range []string{"mentions", "search:" + liveSearchQuery, "targeted:" + sinner.Username} {
		waitCursor(t, st, name)
	}
	fx.setReadDelay(300 * time.Millisecond)
	for i := range 1_500 {
		mentions = append(mentions, fx.postAs(mortal, fmt.Sprintf("@%s burst mention %d", persona, i)))
		if i < 700 {
			results = append(results, fx.postAs(mortal, fmt.Sprintf("%s burst result %d", liveSearchTopic, i)))
		}
		if i < 150 {
			targeted = append(targeted, fx.postAs(sinner, fmt.Sprintf("targeted burst post %d", i)))
		}
	}

	seen, failed := pendingOf(t, st, post.SourceMention, len(mentions))
	checkOnce(t, "mentions", seen, failed, mentions)
	seen, failed = pendingOf(t, st, post.SourceConversation, len(results))
	checkOnce(t, "search results", seen, failed, results)
	seen, failed = pendingOf(t, st, post.SourceTargeted, len(targeted))
	checkOnce(t, "targeted posts", seen, failed, targeted)

	for _, tl := range []struct{ cursor, path, query string }{
		{"mentions", "/2/users/" + livePersonaID + "/mentions", ""},
		{"search:" + liveSearchQuery, "/2/tweets/search/recent", liveSearchQuery},
		{"targeted:" + sinner.Username, "/2/users/" + sinner.ID + "/tweets", ""},
	} {
		if n := fx.maxConcurrent(tl.path, tl.query); n != 1 {
			t.Errorf("%s: the fake X answered %d reads at once, want 1", tl.cursor, n)
		}
		gaps, err := st.Gaps(context.Background(), "x", tl.cursor)
		if err != nil || len(gaps) != 0 {
			t.Errorf("%s: gaps left open %+v (%v)", tl.cursor, gaps, err)
		}
	}
}

// The only worker is killed (SIGKILL) in the middle of a backlog of 1,500
// mentions, once its scan has read the newest and left a gap. A new worker
// continues the backlog where the dead one stopped: every mention reaches
// the admin exactly once. It waits out the dead worker's scan lease and
// asynq's recovery of its tasks, about a minute.
func TestBurstWorkerKilledMidBacklog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits a minute for the dead worker's leases to lapse")
	}
	f := newProcessFixture(t)
	// One mortal sends the whole burst: the reply caps are not what is tested.
	storetest.UncapReplies(t, f.st)
	scheduler := buildBinary(t, "scheduler")
	fx, st := f.fx, f.st
	mortal := fx.addUser("mortal", "A Mortal")
	mentions := []string{fx.postAs(mortal, "@"+persona+" first of all")}

	startBurstProcess(t, "scheduler", scheduler, f, "")
	a := startBurstProcess(t, "worker A", f.worker, f, "")
	waitCursor(t, st, "mentions")
	fx.setReadDelay(300 * time.Millisecond)
	for i := range 1_500 {
		mentions = append(mentions, fx.postAs(mortal, fmt.Sprintf("@%s burst mention %d", persona, i)))
	}
	deadline := time.Now().Add(liveWait * 2)
	for {
		gaps, err := st.Gaps(context.Background(), "x", "mentions")
		if err != nil {
			t.Fatal(err)
		}
		if len(gaps) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("worker A never left a gap in the mentions")
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.kill(t)
	startBurstProcess(t, "worker B", f.worker, f, "")

	seen, failed := pendingOf(t, st, post.SourceMention, len(mentions))
	checkOnce(t, "mentions", seen, failed, mentions)
	gaps, err := st.Gaps(context.Background(), "x", "mentions")
	if err != nil || len(gaps) != 0 {
		t.Errorf("gaps left open %+v (%v)", gaps, err)
	}
	if cur, err := st.Cursor(context.Background(), "x", "mentions"); err != nil || cur != mentions[len(mentions)-1] {
		t.Errorf("mentions cursor %q (%v), want the newest mention %s", cur, err, mentions[len(mentions)-1])
	}
}
