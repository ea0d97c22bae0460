package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/bluesky"
	"infernal/pkg/platform/bluesky/devnet"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// blueskyWait bounds every poll of the Bluesky flow: the AppView indexes a
// write within about 0.1 s, a scan and a draft take a moment more.
const blueskyWait = 60 * time.Second

// atRef is a strong reference to a record.
type atRef struct {
	URI string `json:"uri"`
	CID string `json:"cid"`
}

// TestBluesky runs the end-to-end tests on Bluesky's development network at
// once, on one network: it takes 7 to 30 s to start, and each test makes
// accounts of its own on it, so neither sees the other's posts.
func TestBluesky(t *testing.T) {
	t.Parallel()
	n := devnet.Start(t)
	t.Run("MentionToPostedReply", func(t *testing.T) {
		t.Parallel()
		testBlueskyMentionToPostedReply(t, n)
	})
	t.Run("OnePersonaOnXBlueskyAndMastodon", func(t *testing.T) {
		t.Parallel()
		testOnePersonaOnXBlueskyAndMastodon(t, n)
	})
}

// The real worker binary with PLATFORM=bluesky, against Bluesky's
// development network: a mortal's thread and a thin mention under it are
// scanned and drafted with the thread as context; the approved reply is
// posted once, under the key stored before the send, with the right root
// and parent references.
func testBlueskyMentionToPostedReply(t *testing.T, n *devnet.Network) {
	persona := n.CreateAccount(t, "infernal.test")
	mortal := n.CreateAccount(t, "mortal.test")
	ctx := context.Background()
	dbURL, redisURL := storetest.NewDatabase(t), taskstest.RedisURL(t)
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = queue.Close() })

	postAs := func(text string, facets []any, reply map[string]any) atRef {
		t.Helper()
		rec := map[string]any{"$type": "app.bsky.feed.post", "text": text, "createdAt": time.Now().UTC().Format(time.RFC3339Nano)}
		if facets != nil {
			rec["facets"] = facets
		}
		if reply != nil {
			rec["reply"] = reply
		}
		var out atRef
		if err := n.XRPC(ctx, mortal.AccessJWT, http.MethodPost, "com.atproto.repo.createRecord",
			map[string]any{"repo": mortal.DID, "collection": "app.bsky.feed.post", "record": rec}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rootText := "My cat knocked my coffee onto the keyboard during the board meeting."
	root := postAs(rootText, nil, nil)
	thinText := "@infernal.test thoughts?"
	thin := postAs(thinText, []any{map[string]any{
		"index":    map[string]any{"byteStart": 0, "byteEnd": len("@infernal.test")},
		"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": persona.DID}},
	}}, map[string]any{"root": root, "parent": root})

	// The persona's profile is indexed before the worker asks who it is.
	deadline := time.Now().Add(blueskyWait)
	for n.XRPC(ctx, "", http.MethodGet, "com.atproto.identity.resolveHandle", map[string]any{"handle": "infernal.test"}, nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the persona's handle never resolved")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The worker reaches the PDS through a proxy that can let a reply's
	// write through and then hold its answer, as a worker killed mid-send
	// never hears it.
	pds, err := url.Parse(n.PDS)
	if err != nil {
		t.Fatal(err)
	}
	front := &holdingProxy{next: httputil.NewSingleHostReverseProxy(pds), pds: n.PDS, written: make(chan string, 1), release: make(chan struct{})}
	proxy := httptest.NewServer(front)
	t.Cleanup(proxy.Close)
	t.Cleanup(front.releaseAll)
	bin := buildBinary(t, "worker")
	var logs bytes.Buffer
	startWorker := func() (*exec.Cmd, chan error) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(),
			"DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "METRICS_ADDR=127.0.0.1:0", "PERSONA_HANDLE=infernal",
			"PLATFORM=bluesky", "BLUESKY_PDS_URL="+proxy.URL, "BLUESKY_HANDLE="+persona.Handle, "BLUESKY_APP_PASSWORD="+persona.AppPassword,
			"WRITER=offline",
		)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		return cmd, exited
	}
	cmd, exited := startWorker()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("the worker did not stop cleanly: %v", err)
		}
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), persona.AppPassword) {
			t.Errorf("the worker logged the app password")
		}
	})

	// Scans run until the AppView has the mention (a scan that found nothing
	// moves no cursor).
	drafted := func(uri string) int64 {
		t.Helper()
		deadline := time.Now().Add(blueskyWait)
		for {
			if time.Now().After(deadline) {
				var raw json.RawMessage
				err := n.XRPC(ctx, persona.AccessJWT, http.MethodGet, "app.bsky.notification.listNotifications", map[string]any{"limit": 10}, &raw)
				cursor, cerr := st.Cursor(ctx, "bluesky", "mentions")
				c, _ := bluesky.New(bluesky.Config{PDSURL: n.PDS, Handle: persona.Handle, AppPassword: persona.AppPassword})
				page, perr := c.Mentions(ctx, persona.DID, platform.Range{SinceID: cursor})
				t.Fatalf("the worker never drafted %s; cursor %q (%v), a read since it: %+v (%v); the persona's notifications: %s (%v)", uri, cursor, cerr, page, perr, raw, err)
			}
			if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			list, _, err := st.ListPending(ctx, post.SourceMention, post.SortDate, 1, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range list {
				if p.OriginalPostID == uri && p.Status == post.StatusPending {
					return p.ID
				}
			}
		}
	}
	id := drafted(thin.URI)
	p, err := st.Post(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Platform != "bluesky" || p.AuthorUsername != "mortal.test" || p.ConversationID != root.URI || p.ProposedResponse == "" {
		t.Fatalf("the draft = %+v", p)
	}
	// The thread's root was read with the mention: it is known as context.
	known, err := st.ContextPosts(ctx, "bluesky", []string{root.URI})
	if err != nil {
		t.Fatal(err)
	}
	if known[root.URI].Text != rootText {
		t.Fatalf("the root is not kept as context: %+v", known)
	}

	approve(t, st, queue, id)
	if err := queue.EnqueueSend(ctx, id); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(blueskyWait)
	for p.Status != post.StatusPosted {
		if time.Now().After(deadline) {
			t.Fatalf("the reply was never posted: %s %q", p.Status, p.Error)
		}
		time.Sleep(200 * time.Millisecond)
		if p, err = st.Post(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	key, err := st.SendKey(ctx, id, "unused")
	if err != nil || !strings.HasSuffix(p.ResponsePostID, "/"+key) {
		t.Fatalf("posted as %s; stored key %q (%v)", p.ResponsePostID, key, err)
	}
	var rec struct {
		Value struct {
			Text  string `json:"text"`
			Reply struct {
				Root, Parent atRef
			} `json:"reply"`
		} `json:"value"`
	}
	if err := n.XRPC(ctx, "", http.MethodGet, "com.atproto.repo.getRecord",
		map[string]any{"repo": persona.DID, "collection": "app.bsky.feed.post", "rkey": key}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Value.Reply.Root != root || rec.Value.Reply.Parent != thin || rec.Value.Text != p.ProposedResponse {
		t.Fatalf("the reply = %+v; want root %+v, parent %+v, text %q", rec.Value, root, thin, p.ProposedResponse)
	}
	var feed struct {
		Feed []struct {
			Post struct {
				URI string `json:"uri"`
			} `json:"post"`
		} `json:"feed"`
	}
	if err := n.XRPC(ctx, persona.AccessJWT, http.MethodGet, "app.bsky.feed.getAuthorFeed", map[string]any{"actor": persona.DID}, &feed); err != nil {
		t.Fatal(err)
	}
	if len(feed.Feed) > 1 {
		t.Fatalf("the persona posted %d times, want once", len(feed.Feed))
	}

	// A second mention; its send is written, then the worker is killed
	// (SIGKILL) before it hears the answer. Once asynq hands the dead
	// worker's task back (its lease lapses after 30 s, the recoverer waits
	// 30 s more), a new worker sends again under the stored key: one post.
	// A thread of its own: the persona answers once per conversation.
	second := postAs("@infernal.test and what of mondays?", []any{map[string]any{
		"index":    map[string]any{"byteStart": 0, "byteEnd": len("@infernal.test")},
		"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": persona.DID}},
	}}, nil)
	id2 := drafted(second.URI)
	approve(t, st, queue, id2)
	front.holdNext()
	if err := queue.EnqueueSend(ctx, id2); err != nil {
		t.Fatal(err)
	}
	var written string
	select {
	case written = <-front.written:
	case <-time.After(blueskyWait):
		t.Fatal("the worker never wrote the second reply")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("worker killed mid-send: %v", <-exited)
	killed := time.Now()
	front.releaseAll()
	if p2, err := st.Post(ctx, id2); err != nil || p2.Status != post.StatusApproved {
		t.Fatalf("after the kill the post is %s (%v), want approved", p2.Status, err)
	}
	time.Sleep(time.Until(killed.Add(62 * time.Second)))
	cmd, exited = startWorker()
	deadline = time.Now().Add(blueskyWait)
	p2, err := st.Post(ctx, id2)
	for err == nil && p2.Status != post.StatusPosted {
		if time.Now().After(deadline) {
			t.Fatalf("the retried send never finished: %s %q", p2.Status, p2.Error)
		}
		time.Sleep(200 * time.Millisecond)
		p2, err = st.Post(ctx, id2)
	}
	if err != nil || p2.ResponsePostID != written {
		t.Fatalf("posted as %q (%v), want the record the dead worker wrote, %s", p2.ResponsePostID, err, written)
	}
	var thread struct {
		Thread struct {
			Replies []json.RawMessage `json:"replies"`
		} `json:"thread"`
	}
	deadline = time.Now().Add(blueskyWait)
	for len(thread.Thread.Replies) == 0 && time.Now().Before(deadline) {
		if err := n.XRPC(ctx, persona.AccessJWT, http.MethodGet, "app.bsky.feed.getPostThread", map[string]any{"uri": second.URI}, &thread); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(thread.Thread.Replies) != 1 {
		t.Fatalf("the second mention has %d replies, want 1", len(thread.Thread.Replies))
	}

	// The mortal opts out ("stop", after a handle that is a domain), then
	// changes handle: the opt-out holds, kept by the DID.
	mention := func(text string) string {
		t.Helper()
		return postAs(text, []any{map[string]any{
			"index":    map[string]any{"byteStart": 0, "byteEnd": len("@infernal.test")},
			"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": persona.DID}},
		}}, nil).URI
	}
	settled := func(uri string) post.Post {
		t.Helper()
		deadline := time.Now().Add(blueskyWait)
		for time.Now().Before(deadline) {
			if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			// A fresh database numbers its posts from 1.
			for rowID := int64(1); rowID <= 10; rowID++ {
				if p, err := st.Post(ctx, rowID); err == nil && p.OriginalPostID == uri && p.Status != post.StatusDrafting {
					return p
				}
			}
		}
		t.Fatalf("%s was never scanned and judged", uri)
		return post.Post{}
	}
	stop := settled(mention("@infernal.test stop"))
	if stop.Status != post.StatusSkipped || stop.SkipReason != `opt-out: "stop"` || stop.AuthorID != mortal.DID {
		t.Fatalf("the opt-out: %s %q by %q", stop.Status, stop.SkipReason, stop.AuthorID)
	}
	if err := n.XRPC(ctx, mortal.AccessJWT, http.MethodPost, "com.atproto.identity.updateHandle", map[string]any{"handle": "renamed.test"}, nil); err != nil {
		t.Fatal(err)
	}
	var renamed struct {
		Handle string `json:"handle"`
	}
	deadline = time.Now().Add(blueskyWait)
	for renamed.Handle != "renamed.test" && time.Now().Before(deadline) {
		if err := n.XRPC(ctx, persona.AccessJWT, http.MethodGet, "app.bsky.actor.getProfile", map[string]any{"actor": mortal.DID}, &renamed); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	again := settled(mention("@infernal.test hello again, it is me"))
	if again.Status != post.StatusSkipped || again.SkipReason != "blocked author: @mortal.test" || again.AuthorUsername != "renamed.test" {
		t.Fatalf("after the rename: %s %q by @%s, want skipped as the blocked author", again.Status, again.SkipReason, again.AuthorUsername)
	}
}

// holdingProxy passes every request on to the PDS; once told to hold, it
// lets the next putRecord through to the PDS, reports the uri written, and
// holds its answer until released.
type holdingProxy struct {
	next    http.Handler
	pds     string
	mu      sync.Mutex
	hold    bool
	written chan string
	release chan struct{}
	once    sync.Once
}

func (h *holdingProxy) holdNext() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = true
}

func (h *holdingProxy) releaseAll() { h.once.Do(func() { close(h.release) }) }

func (h *holdingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	hold := h.hold && r.URL.Path == "/xrpc/com.atproto.repo.putRecord"
	if hold {
		h.hold = false
	}
	h.mu.Unlock()
	if !hold {
		h.next.ServeHTTP(w, r)
		return
	}
	req, err := http.NewRequestWithContext(context.Background(), r.Method, h.pds+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var out atRef
	err = json.NewDecoder(resp.Body).Decode(&out)
	_ = resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	h.written <- out.URI
	<-h.release
	http.Error(w, "held", http.StatusServiceUnavailable)
}
