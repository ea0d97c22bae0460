// Package platformtest is the platform contract: one suite of tests that
// every implementation of platform.Platform (the sandbox, the X client
// against its stand-in, the Bluesky client against Bluesky's development
// network) must pass alike, as river's shared driver tests do for its
// database drivers. Each implementation's tests call Run with a Harness
// that lets the suite act as a mortal on that platform.
package platformtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"infernal/pkg/platform"
)

// Harness is one platform under test and the means to act on it as mortals do.
type Harness struct {
	// Platform is the persona's client.
	Platform platform.Platform
	// Post makes a mortal's post that does not mention the persona (a
	// thread's root) and returns its id.
	Post func(t *testing.T, text string) string
	// Mention makes a mortal's post that mentions the persona, as a reply to
	// parent when parent is not empty, and returns its id.
	Mention func(t *testing.T, text, parent string) string
	// Delete deletes a mortal's post.
	Delete func(t *testing.T, id string)
	// Language is the language the platform gives the posts Post and
	// Mention make (post.Language's form), "" for a platform that names
	// none.
	Language string
	// Eventually retries cond until it holds, a bounded number of times,
	// for a platform that shows a write a moment later (an AppView that
	// indexes); nil when writes show at once.
	Eventually func(t *testing.T, what string, cond func() bool)
	// RateLimited returns a client of the platform whose next read meets a
	// rate-limit refusal of the given kind; nil for a platform without rate
	// limits (the sandbox).
	RateLimited func(t *testing.T, kind RateLimitKind) platform.Platform
}

// RateLimitKind names a way the platform refuses a call for its rate limits.
type RateLimitKind string

// The kinds of rate-limit refusal every platform with limits must report
// as platform.RateLimited with the time the window opens.
const (
	// LimitAnswered is a 429 the platform answered, with its reset.
	LimitAnswered RateLimitKind = "answered 429"
	// LimitWindowClosed is a window another process was told is used up:
	// the call is refused without being sent.
	LimitWindowClosed RateLimitKind = "closed window"
)

func (h Harness) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if h.Eventually != nil {
		h.Eventually(t, what, cond)
		return
	}
	if !cond() {
		t.Fatalf("not so: %s", what)
	}
}

func ids(posts []platform.Post) []string {
	out := make([]string, 0, len(posts))
	for _, p := range posts {
		out = append(out, p.ID)
	}
	return out
}

// Run runs the contract against h.
func Run(t *testing.T, h Harness) {
	ctx := context.Background()
	p := h.Platform
	me, err := p.Me(ctx)
	if err != nil {
		t.Fatalf("Me: %v", err)
	}
	root := h.Post(t, "The contract's thread starts here.")
	reply := h.Mention(t, "@"+me.Username+" what of the contract?", root)
	alone := h.Mention(t, "@"+me.Username+" a second, alone.", "")

	var first platform.Page
	h.eventually(t, "the mentions are read", func() bool {
		first, err = p.Mentions(ctx, me.ID, platform.Range{})
		if err != nil {
			t.Fatalf("Mentions: %v", err)
		}
		got := ids(first.Posts)
		return slices.Contains(got, reply) && slices.Contains(got, alone)
	})

	t.Run("paging and cursors", func(t *testing.T) {
		got := ids(first.Posts)
		if slices.Index(got, alone) > slices.Index(got, reply) {
			t.Fatalf("mentions %v are not newest first: %s came after %s", got, alone, reply)
		}
		if first.NewestID == "" || first.OldestID == "" {
			t.Fatalf("a read that found posts names no bounds: newest %q oldest %q", first.NewestID, first.OldestID)
		}
		// Newest-since: nothing already read comes again.
		again, err := p.Mentions(ctx, me.ID, platform.Range{SinceID: first.NewestID})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(again.Posts), reply) || slices.Contains(ids(again.Posts), alone) {
			t.Fatalf("a read since %q found posts already read: %v", first.NewestID, ids(again.Posts))
		}
		later := h.Mention(t, "@"+me.Username+" and a third.", "")
		var next platform.Page
		h.eventually(t, "the later mention is read since the cursor", func() bool {
			next, err = p.Mentions(ctx, me.ID, platform.Range{SinceID: first.NewestID})
			if err != nil {
				t.Fatal(err)
			}
			return slices.Contains(ids(next.Posts), later)
		})
		if slices.Contains(ids(next.Posts), reply) || slices.Contains(ids(next.Posts), alone) {
			t.Fatalf("the read since the cursor found older posts: %v", ids(next.Posts))
		}
		// Until (exclusive) reads back from a bound: the gap a bounded read leaves.
		older, err := p.Mentions(ctx, me.ID, platform.Range{UntilID: next.NewestID})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(older.Posts); slices.Contains(got, later) || !slices.Contains(got, reply) || !slices.Contains(got, alone) {
			t.Fatalf("a read until %q found %v; want the two older mentions without the newest", next.NewestID, got)
		}
	})

	t.Run("context lookup", func(t *testing.T) {
		i := slices.Index(ids(first.Posts), reply)
		m := first.Posts[i]
		if m.InReplyToID != root || m.ConversationID != root {
			t.Fatalf("the mention answers %q in conversation %q; want %q in %q", m.InReplyToID, m.ConversationID, root, root)
		}
		if !m.Summons(me) {
			t.Fatalf("the mention does not summon the persona: %+v", m)
		}
		if m.Language != h.Language {
			t.Fatalf("the mention's language is %q, want %q", m.Language, h.Language)
		}
		got, err := p.Lookup(ctx, []string{root, reply, root})
		if err != nil {
			t.Fatal(err)
		}
		if g := ids(got); len(g) != 2 || !slices.Contains(g, root) || !slices.Contains(g, reply) {
			t.Fatalf("Lookup = %v, want the root and the mention once each", g)
		}
		for _, post := range got {
			if post.ID == root && (post.Text != "The contract's thread starts here." || post.Author.ID == "") {
				t.Fatalf("the root reads %+v", post)
			}
		}
	})

	var sent platform.Post
	t.Run("reply references", func(t *testing.T) {
		sent, err = p.Publish(ctx, "The contract binds below as above.", reply)
		if err != nil {
			t.Fatal(err)
		}
		if sent.ID == "" || sent.InReplyToID != reply {
			t.Fatalf("sent = %+v, want a reply to %s", sent, reply)
		}
		var read []platform.Post
		h.eventually(t, "the reply is visible", func() bool {
			read, err = p.Lookup(ctx, []string{sent.ID})
			if err != nil {
				t.Fatal(err)
			}
			return len(read) == 1
		})
		if read[0].InReplyToID != reply || read[0].ConversationID != root {
			t.Fatalf("the reply reads as answering %q in %q; want %q in %q", read[0].InReplyToID, read[0].ConversationID, reply, root)
		}
	})

	t.Run("idempotent sends", func(t *testing.T) {
		if sent.ID == "" {
			t.Skip("no reply was sent")
		}
		if kp, ok := p.(platform.KeyedPublisher); ok {
			key := kp.NewPublishKey()
			a, err := kp.PublishKeyed(ctx, key, "Once, and only once.", alone)
			if err != nil {
				t.Fatal(err)
			}
			b, err := kp.PublishKeyed(ctx, key, "Once, and only once.", alone)
			if err != nil || b.ID != a.ID {
				t.Fatalf("a resend under the same key made %q (%v), the first %q", b.ID, err, a.ID)
			}
			return
		}
		// Without keys a retry first asks whether the reply exists.
		var found platform.Post
		var ok bool
		h.eventually(t, "the reply is found", func() bool {
			found, ok, err = p.FindPublished(ctx, me.ID, reply, sent.Text)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
		if found.ID != sent.ID {
			t.Fatalf("FindPublished found %q, want %q", found.ID, sent.ID)
		}
	})

	t.Run("deleted posts", func(t *testing.T) {
		doomed := h.Mention(t, "@"+me.Username+" soon gone.", "")
		h.eventually(t, "the post is visible", func() bool {
			got, err := p.Lookup(ctx, []string{doomed})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) == 1
		})
		h.Delete(t, doomed)
		h.eventually(t, "the deleted post is gone from lookups", func() bool {
			got, err := p.Lookup(ctx, []string{doomed})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) == 0
		})
		_, err := p.Publish(ctx, "Too late, mortal.", doomed)
		if r := platform.Classify(err); r != platform.RefusalOriginalGone {
			t.Fatalf("a reply to a deleted post: %v (%q), want %q", err, r, platform.RefusalOriginalGone)
		}
	})

	t.Run("rate-limit refusals", func(t *testing.T) {
		if h.RateLimited == nil {
			t.Skip("this platform has no rate limits")
		}
		for _, kind := range []RateLimitKind{LimitAnswered, LimitWindowClosed} {
			limited := h.RateLimited(t, kind)
			_, err := limited.Mentions(ctx, me.ID, platform.Range{})
			at, ok := platform.RateLimited(err)
			if !ok || !at.After(time.Now()) || !platform.Temporary(err) {
				t.Errorf("%s: %v (retry at %v), want a temporary rate limit that lifts later", kind, err, at)
			}
			var pe *platform.Error
			if !errors.As(err, &pe) || pe.Status != 429 {
				t.Errorf("%s: %v, want a *platform.Error 429", kind, err)
			}
		}
	})
}
