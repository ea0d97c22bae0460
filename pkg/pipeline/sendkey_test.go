package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// keyedPlatform is a platform with keyed sends, as Bluesky's putRecord
// with swapRecord null behaves: a resend under a key already written
// answers with the post written there, and makes none. lose makes the next
// send write its post and then fail, as a worker killed mid-send does.
type keyedPlatform struct {
	*faultyPlatform
	mu      sync.Mutex
	written map[string]platform.Post
	keys    int
	lose    bool
}

func (k *keyedPlatform) NewPublishKey() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys++
	return fmt.Sprintf("key-%d", k.keys)
}

func (k *keyedPlatform) PublishKeyed(ctx context.Context, key, text, inReplyTo string) (platform.Post, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.written[key]; ok {
		return p, nil
	}
	p, err := k.Publish(ctx, text, inReplyTo)
	if err != nil {
		return platform.Post{}, err
	}
	k.written[key] = p
	if k.lose {
		k.lose = false
		return platform.Post{}, &platform.Error{Err: errors.New("connection reset after the write")}
	}
	return p, nil
}

func TestKeyedSendPostsOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	kp := &keyedPlatform{faultyPlatform: e.plat, written: map[string]platform.Post{}, lose: true}
	pipe := pipeline.New(pipeline.Config{
		Store: e.store, Platform: kp, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
	})
	// The first attempt writes the post but loses the answer.
	if err := pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err == nil {
		t.Fatal("a lost answer must leave the send to be retried")
	}
	if p, _ := e.store.Post(ctx, id); p.Status != post.StatusApproved {
		t.Fatalf("after a lost answer the post is %s", p.Status)
	}
	// The retry chooses a new key, but the stored one wins: the same post.
	if err := pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Post(ctx, id)
	if err != nil || p.Status != post.StatusPosted {
		t.Fatalf("after the retry: %+v %v", p, err)
	}
	if got := e.plat.published.Load(); got != 1 {
		t.Fatalf("published %d times, want 1", got)
	}
	if kp.written["key-1"].ID != p.ResponsePostID || len(kp.written) != 1 {
		t.Fatalf("posted %q; written %+v, want one post under key-1", p.ResponsePostID, kp.written)
	}
	if key, err := e.store.SendKey(ctx, id, "another"); err != nil || key != "key-1" {
		t.Fatalf("stored key = %q %v, want key-1", key, err)
	}
}

func TestSendGatedReplyFails(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	var gated error = &platform.Error{Status: 403, Title: "ReplyNotAllowed", Detail: "the thread's gate (threadgate) does not let the persona reply"}
	e.plat.err.Store(&gated)
	if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Post(ctx, id)
	if err != nil || p.Status != post.StatusFailed || p.Error == "" || p.Error[:len("Bluesky does not let")] != "Bluesky does not let" {
		t.Fatalf("a gated reply: %s %q %v, want failed with the gate's reason (not hand-posting)", p.Status, p.Error, err)
	}
}

// versionKeyedPlatform derives its keys from the post and its draft
// version, as Mastodon's Idempotency-Key is.
type versionKeyedPlatform struct {
	*keyedPlatform
}

func (v *versionKeyedPlatform) PublishKeyFor(postID int64, draftVersion int) string {
	return fmt.Sprintf("infernal-%d-v%d", postID, draftVersion)
}

// A platform whose keys derive from the draft version sends under that
// key, nothing is stored, and a lost answer's retry makes no second post.
func TestVersionKeyedSendPostsOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	kp := &versionKeyedPlatform{&keyedPlatform{faultyPlatform: e.plat, written: map[string]platform.Post{}, lose: true}}
	pipe := pipeline.New(pipeline.Config{
		Store: e.store, Platform: kp, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
	})
	if err := pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err == nil {
		t.Fatal("a lost answer must leave the send to be retried")
	}
	if err := pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Post(ctx, id)
	if err != nil || p.Status != post.StatusPosted {
		t.Fatalf("after the retry: %+v %v", p, err)
	}
	want := fmt.Sprintf("infernal-%d-v%d", id, p.DraftVersion)
	if kp.written[want].ID != p.ResponsePostID || len(kp.written) != 1 || e.plat.published.Load() != 1 || kp.keys != 0 {
		t.Fatalf("posted %q; written %+v (%d random keys), want one post under %s", p.ResponsePostID, kp.written, kp.keys, want)
	}
	if key, err := e.store.SendKey(ctx, id, "another"); err != nil || key != "another" {
		t.Fatalf("stored key = %q %v, want none stored before", key, err)
	}
}
