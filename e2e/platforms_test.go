package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/platform/bluesky/devnet"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/post"
)

// One worker and one scheduler with PLATFORM=x,bluesky,mastodon: the
// scheduler runs each platform's scans, a mention on X (its stand-in), one
// on Bluesky (its development network) and one on Mastodon (its stand-in)
// reach the one review queue with their platform, each approved reply is
// posted once, on its own platform, and a direct mention on Mastodon never
// gets a public answer (nor, with platforms.mastodon.reply_to_direct off, any).
func testOnePersonaOnXBlueskyAndMastodon(t *testing.T, n *devnet.Network) {
	masto := mastodontest.New()
	t.Cleanup(masto.Close)
	// Behind a content warning: kept apart from the text, and the reply carries it.
	onMasto := masto.PostWithWarning("mortal", "@"+masto.Persona().Username+" and on the fediverse?", "hellfire", "en")
	whisper := masto.Post("secret", "@"+masto.Persona().Username+" between us", "", "direct")
	// Handles of its own: TestBluesky's other test makes infernal.test and mortal.test.
	personaBsky := n.CreateAccount(t, "persona-both.test")
	mortalBsky := n.CreateAccount(t, "mortal-both.test")
	f := newProcessFixture(t)
	ctx := context.Background()

	// The persona's Bluesky handle is resolvable before the worker asks who it is.
	deadline := time.Now().Add(blueskyWait)
	for n.XRPC(ctx, "", http.MethodGet, "com.atproto.identity.resolveHandle", map[string]any{"handle": personaBsky.Handle}, nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the persona's handle never resolved")
		}
		time.Sleep(100 * time.Millisecond)
	}
	mortalX := f.fx.addUser("mortal", "A Mortal")
	onX := f.fx.postAs(mortalX, "@"+persona+" which of your platforms burns hotter?")
	var onBsky atRef
	if err := n.XRPC(ctx, mortalBsky.AccessJWT, http.MethodPost, "com.atproto.repo.createRecord", map[string]any{
		"repo": mortalBsky.DID, "collection": "app.bsky.feed.post",
		"record": map[string]any{"$type": "app.bsky.feed.post", "text": "@persona-both.test are you here too?",
			"createdAt": time.Now().UTC().Format(time.RFC3339Nano),
			"facets": []any{map[string]any{
				"index":    map[string]any{"byteStart": 0, "byteEnd": len("@persona-both.test")},
				"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": personaBsky.DID}},
			}}},
	}, &onBsky); err != nil {
		t.Fatal(err)
	}

	env := append(os.Environ(),
		"DATABASE_URL="+f.dbURL, "REDIS_URL="+f.redisURL, "METRICS_ADDR=127.0.0.1:0", "PERSONA_HANDLE="+persona,
		"PLATFORM=x,bluesky,mastodon",
		"MASTODON_SERVER="+masto.URL, "MASTODON_ACCESS_TOKEN="+mastodontest.Token,
		"X_API_BASE_URL="+f.fx.srv.URL, "X_API_KEY="+liveConsumerKey, "X_API_SECRET="+liveConsumerSecret,
		"X_ACCESS_TOKEN="+liveAccessToken, "X_ACCESS_SECRET="+liveAccessSecret,
		"BLUESKY_PDS_URL="+n.PDS, "BLUESKY_HANDLE="+personaBsky.Handle, "BLUESKY_APP_PASSWORD="+personaBsky.AppPassword,
		"WRITER=offline", "SCHEDULE_MENTIONS=@every 2s",
	)
	start := func(name, bin string) {
		var logs bytes.Buffer
		cmd := exec.Command(bin)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			if err := <-exited; err != nil {
				t.Errorf("the %s did not stop cleanly: %v", name, err)
			}
			if t.Failed() {
				t.Logf("%s output:\n%s", name, logs.String())
			}
		})
	}
	start("worker", f.worker)
	start("scheduler", buildBinary(t, "scheduler"))

	// The three mentions reach the one review queue, each with its platform.
	want := map[string]string{onX: "x", onBsky.URI: "bluesky", onMasto: "mastodon"}
	ids := map[string]int64{}
	deadline = time.Now().Add(blueskyWait)
	for len(ids) < len(want) {
		if time.Now().After(deadline) {
			t.Fatalf("drafted %v of the mentions %v", ids, want)
		}
		time.Sleep(200 * time.Millisecond)
		list, _, err := f.st.ListPending(ctx, post.SourceMention, post.SortDate, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list {
			if p.Platform == "mastodon" && p.OriginalPostID == whisper {
				t.Fatalf("the direct mention %s reached the queue", whisper)
			}
			platform, ok := want[p.OriginalPostID]
			if !ok || p.Status != post.StatusPending {
				continue
			}
			if p.Platform != platform {
				t.Fatalf("the mention %s is on %q, want %q", p.OriginalPostID, p.Platform, platform)
			}
			// The Mastodon mention keeps its warning apart, its page, and the server's limit less the warning.
			if p.Platform == "mastodon" && (p.ContentWarning != "hellfire" || p.PageURL() != masto.URL+"/@mortal/"+onMasto ||
				p.MaxLength != mastodontest.MaxCharacters || p.Limit() != mastodontest.MaxCharacters-len("hellfire")) {
				t.Errorf("the Mastodon mention: warning %q, page %q, limit %d (%d)", p.ContentWarning, p.PageURL(), p.MaxLength, p.Limit())
			}
			ids[p.OriginalPostID] = p.ID
		}
	}
	for _, id := range ids {
		approve(t, f.st, f.queue, id)
		if err := f.queue.EnqueueSend(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for uri, id := range ids {
		deadline := time.Now().Add(blueskyWait)
		p, err := f.st.Post(ctx, id)
		for err == nil && p.Status != post.StatusPosted {
			if time.Now().After(deadline) {
				t.Fatalf("the reply to %s was never posted: %s %q", uri, p.Status, p.Error)
			}
			time.Sleep(200 * time.Millisecond)
			p, err = f.st.Post(ctx, id)
		}
		if err != nil {
			t.Fatal(err)
		}
		if onAT := strings.HasPrefix(p.ResponsePostID, "at://"+personaBsky.DID+"/"); onAT != (p.Platform == "bluesky") {
			t.Errorf("the reply on %s was posted as %q", p.Platform, p.ResponsePostID)
		}
	}
	if got := len(f.fx.publishesTo(onX)); got != 1 || len(f.fx.allPublishes()) != 1 {
		t.Errorf("X got %d replies to its mention and %d posts in all, want 1 and 1", got, len(f.fx.allPublishes()))
	}
	var replies []mastodontest.Status
	for _, s := range masto.Statuses() {
		if s.InReplyToID != "" {
			replies = append(replies, s)
		}
	}
	if len(replies) != 1 || replies[0].InReplyToID != onMasto || replies[0].Visibility != "public" || !strings.HasPrefix(replies[0].Text, "@mortal ") ||
		replies[0].SpoilerText != "hellfire" {
		t.Errorf("Mastodon got the replies %+v, want one public reply to %s starting @mortal, under its warning", replies, onMasto)
	}
	var thread struct {
		Thread struct {
			Replies []any `json:"replies"`
		} `json:"thread"`
	}
	deadline = time.Now().Add(blueskyWait)
	for len(thread.Thread.Replies) == 0 && time.Now().Before(deadline) {
		if err := n.XRPC(ctx, personaBsky.AccessJWT, http.MethodGet, "app.bsky.feed.getPostThread", map[string]any{"uri": onBsky.URI}, &thread); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(thread.Thread.Replies) != 1 {
		t.Errorf("the Bluesky mention has %d replies, want 1", len(thread.Thread.Replies))
	}
}
