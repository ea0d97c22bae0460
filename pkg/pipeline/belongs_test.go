package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// A post approved on a platform the worker does not run (left over after
// PLATFORM changed from x to sandbox) is never handed to the running
// platform's client: its send fails, naming the platform, and nothing is
// published; the sandbox's own posts still go out.
func TestSendRefusesAPostOfAnotherPlatform(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	own := e.approvedMention(t)
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: post.XPlatform, Source: post.SourceMention, OriginalPostID: "1900000000000000001",
		ConversationID: "1900000000000000001", OriginalPostText: "@devil hello from X", AuthorUsername: "mortal", AuthorID: "42",
		CreatedAt: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "burn", Category: "wrath"}); err != nil {
		t.Fatal(err)
	}
	approve(t, e.store, e.queue, id)
	for range 2 {
		// A redelivery finds it failed and sends nothing either.
		if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
			t.Fatal(err)
		}
	}
	p, err := e.store.Post(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != post.StatusFailed || !strings.Contains(p.Error, "is on x, a platform that is not running here") {
		t.Errorf("post is %s with error %q, want failed naming x", p.Status, p.Error)
	}
	if got := e.plat.published.Load(); got != 0 {
		t.Errorf("the sandbox published %d replies to an X post", got)
	}

	if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: own})); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.Post(ctx, own); p.Status != post.StatusPosted || e.plat.published.Load() != 1 {
		t.Errorf("the sandbox's own post is %s, published %d", p.Status, e.plat.published.Load())
	}
}
