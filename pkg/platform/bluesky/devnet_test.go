package bluesky_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/bluesky"
	"infernal/pkg/platform/bluesky/devnet"
	"infernal/pkg/platform/platformtest"
	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

// ref is a strong reference to a record.
type ref struct {
	URI string `json:"uri"`
	CID string `json:"cid"`
}

// poster writes posts as a mortal account on the development network.
type poster struct {
	n    *devnet.Network
	acct devnet.Account
}

// post creates a post of text (with facets for its @mentions of accounts
// in dids), as a reply to parent under root when they are set, quoting
// quote when it is set.
func (p poster) post(t *testing.T, text string, dids map[string]string, root, parent, quote *ref) ref {
	t.Helper()
	// Bluesky's app writes the poster's languages into every post.
	rec := map[string]any{"$type": "app.bsky.feed.post", "text": text, "createdAt": time.Now().UTC().Format(time.RFC3339Nano),
		"langs": []string{"en"}}
	var facets []any
	for _, s := range bluesky.MentionSpans(text) {
		if did, ok := dids[s.Value]; ok {
			facets = append(facets, map[string]any{
				"index":    map[string]any{"byteStart": s.Start, "byteEnd": s.End},
				"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": did}},
			})
		}
	}
	if facets != nil {
		rec["facets"] = facets
	}
	if parent != nil {
		rec["reply"] = map[string]any{"root": root, "parent": parent}
	}
	if quote != nil {
		rec["embed"] = map[string]any{"$type": "app.bsky.embed.record", "record": quote}
	}
	return p.create(t, "app.bsky.feed.post", rec)
}

func (p poster) create(t *testing.T, collection string, rec map[string]any) ref {
	t.Helper()
	var out ref
	err := p.n.XRPC(context.Background(), p.acct.AccessJWT, http.MethodPost, "com.atproto.repo.createRecord",
		map[string]any{"repo": p.acct.DID, "collection": collection, "record": rec}, &out)
	if err != nil {
		t.Fatalf("create %s: %v", collection, err)
	}
	return out
}

// onePixelPNG is a valid 1x1 PNG, an image the PDS accepts as a blob.
var onePixelPNG = []byte("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82")

// uploadBlob uploads data as an image blob of the mortal's
// (com.atproto.repo.uploadBlob, a raw body) and returns the blob to embed.
func (p poster) uploadBlob(t *testing.T, data []byte) map[string]any {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.n.PDS+"/xrpc/com.atproto.repo.uploadBlob", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "image/png")
	req.Header.Set("Authorization", "Bearer "+p.acct.AccessJWT)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		Blob map[string]any `json:"blob"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Blob == nil {
		t.Fatalf("uploadBlob: %d %v %v", resp.StatusCode, out, err)
	}
	return out.Blob
}

// eventually polls cond until it holds, for a bounded number of tries: the
// AppView indexes a write within about 0.1 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 300 {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("never happened: %s", what)
}

func TestAgainstDevnet(t *testing.T) {
	t.Parallel()
	n := devnet.Start(t)
	persona := n.CreateAccount(t, "infernal.test")
	mortal := poster{n: n, acct: n.CreateAccount(t, "mortal.test")}
	dids := map[string]string{"infernal.test": persona.DID, "mortal.test": mortal.acct.DID}
	ctx := context.Background()

	c, err := bluesky.New(bluesky.Config{PDSURL: n.PDS, Handle: persona.Handle, AppPassword: persona.AppPassword})
	if err != nil {
		t.Fatal(err)
	}
	var me platform.User
	eventually(t, "the AppView indexes the persona's profile", func() bool {
		me, err = c.Me(ctx)
		return err == nil
	})
	if me.ID != persona.DID || me.Username != "infernal.test" {
		t.Fatalf("Me = %+v, want %s infernal.test", me, persona.DID)
	}

	root := mortal.post(t, "The abyss stares back, and it is bored.", nil, nil, nil, nil)
	thin := mortal.post(t, "@infernal.test thoughts?", dids, &root, &root, nil)
	var first platform.Page
	eventually(t, "the mention reaches listNotifications", func() bool {
		first, err = c.Mentions(ctx, me.ID, platform.Range{})
		if err != nil {
			t.Fatal(err)
		}
		return len(first.Posts) > 0
	})

	t.Run("mention with its thread", func(t *testing.T) {
		got := first.Posts[0]
		if got.ID != thin.URI || got.InReplyToID != root.URI || got.ConversationID != root.URI {
			t.Fatalf("mention = %+v; want id %s answering %s", got, thin.URI, root.URI)
		}
		if got.Author.ID != mortal.acct.DID || got.Author.Username != "mortal.test" {
			t.Fatalf("author = %+v", got.Author)
		}
		if !got.Summons(me) {
			t.Fatalf("the mention does not summon the persona: %+v", got.Mentions)
		}
		if len(first.Included) != 1 || first.Included[0].ID != root.URI || first.Included[0].Text != "The abyss stares back, and it is bored." {
			t.Fatalf("included = %+v, want the root post", first.Included)
		}
		if first.NewestID == "" || first.More {
			t.Fatalf("page bounds: newest %q more %v", first.NewestID, first.More)
		}
	})

	t.Run("newest since", func(t *testing.T) {
		again, err := c.Mentions(ctx, me.ID, platform.Range{SinceID: first.NewestID})
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Posts) != 0 || again.NewestID != "" {
			t.Fatalf("a read since the newest found %+v", again)
		}
		// A quote that also mentions the persona comes as a mention: the
		// record says it quotes.
		quote := mortal.post(t, "look at this @infernal.test", dids, nil, nil, &root)
		var next platform.Page
		eventually(t, "the quote is listed", func() bool {
			next, err = c.Mentions(ctx, me.ID, platform.Range{SinceID: first.NewestID})
			if err != nil {
				t.Fatal(err)
			}
			return len(next.Posts) > 0
		})
		if len(next.Posts) != 1 || next.Posts[0].ID != quote.URI || next.Posts[0].QuotedID != root.URI || next.Posts[0].QuotedAuthorID != mortal.acct.DID {
			t.Fatalf("since-read = %+v, want only the quote of %s", next.Posts, root.URI)
		}
		if next.NewestID <= first.NewestID {
			t.Fatalf("newest %q does not follow %q", next.NewestID, first.NewestID)
		}
		older, err := c.Mentions(ctx, me.ID, platform.Range{UntilID: next.NewestID})
		if err != nil {
			t.Fatal(err)
		}
		if len(older.Posts) != 1 || older.Posts[0].ID != thin.URI {
			t.Fatalf("until-read = %+v, want only the first mention", older.Posts)
		}
	})

	t.Run("reply exactly once", func(t *testing.T) {
		key := c.NewPublishKey()
		text := "Bored? @mortal.test, boredom is the first circle. ñ 🔥 https://infernal.test/circles."
		sent, err := c.PublishKeyed(ctx, key, text, thin.URI)
		if err != nil {
			t.Fatal(err)
		}
		if sent.InReplyToID != thin.URI || sent.ConversationID != root.URI || !strings.HasSuffix(sent.ID, "/"+key) {
			t.Fatalf("sent = %+v", sent)
		}
		// A retry after a crash writes the same key: the same post, not a second.
		again, err := c.PublishKeyed(ctx, key, text, thin.URI)
		if err != nil {
			t.Fatalf("identical resend: %v", err)
		}
		if again.ID != sent.ID {
			t.Fatalf("resend made %s, first %s", again.ID, sent.ID)
		}
		_, err = c.PublishKeyed(ctx, key, text+" (edited)", thin.URI)
		var pe *platform.Error
		if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest || pe.Title != "InvalidSwap" {
			t.Fatalf("a different record at the key: %v, want 400 InvalidSwap", err)
		}

		var rec struct {
			Value struct {
				Text  string `json:"text"`
				Reply struct {
					Root, Parent ref
				} `json:"reply"`
				Facets []struct {
					Index struct {
						ByteStart, ByteEnd int
					} `json:"index"`
					Features []map[string]any `json:"features"`
				} `json:"facets"`
			} `json:"value"`
		}
		if err := n.XRPC(ctx, "", http.MethodGet, "com.atproto.repo.getRecord", map[string]any{"repo": persona.DID, "collection": "app.bsky.feed.post", "rkey": key}, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Value.Reply.Root != root || rec.Value.Reply.Parent != thin {
			t.Fatalf("reply refs = %+v, want root %+v parent %+v", rec.Value.Reply, root, thin)
		}
		if len(rec.Value.Facets) != 2 {
			t.Fatalf("facets = %+v, want a mention and a link", rec.Value.Facets)
		}
		for _, f := range rec.Value.Facets {
			span := text[f.Index.ByteStart:f.Index.ByteEnd]
			feat := f.Features[0]
			switch feat["$type"] {
			case "app.bsky.richtext.facet#mention":
				if span != "@mortal.test" || feat["did"] != mortal.acct.DID {
					t.Errorf("mention facet covers %q with %v", span, feat)
				}
			case "app.bsky.richtext.facet#link":
				if span != "https://infernal.test/circles" || feat["uri"] != span {
					t.Errorf("link facet covers %q with %v", span, feat)
				}
			default:
				t.Errorf("unexpected facet %v", feat)
			}
		}

		eventually(t, "FindPublished finds the reply once indexed", func() bool {
			found, ok, err := c.FindPublished(ctx, me.ID, thin.URI, text)
			if err != nil {
				t.Fatal(err)
			}
			if ok && found.ID != sent.ID {
				t.Fatalf("FindPublished found %s, want %s", found.ID, sent.ID)
			}
			return ok
		})
		eventually(t, "the reply is counted", func() bool {
			m, err := c.Metrics(ctx, []string{thin.URI})
			if err != nil {
				t.Fatal(err)
			}
			return m[thin.URI].Replies == 1
		})
	})

	t.Run("over 300 graphemes", func(t *testing.T) {
		// 300 flags of 2 code points each are 300 graphemes: allowed; one more is not.
		text := strings.Repeat("🇫🇷", bluesky.MaxLength)
		if got := bluesky.Length(text); got != bluesky.MaxLength {
			t.Fatalf("Length = %d", got)
		}
		_, err := c.Publish(ctx, text+"!", "")
		var pe *platform.Error
		if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest {
			t.Fatalf("301 graphemes: %v, want a 400 refusal", err)
		}
	})

	t.Run("threadgate", func(t *testing.T) {
		gated := mortal.post(t, "Nobody may answer this, @infernal.test.", dids, nil, nil, nil)
		rkey := gated.URI[strings.LastIndex(gated.URI, "/")+1:]
		err := n.XRPC(ctx, mortal.acct.AccessJWT, http.MethodPost, "com.atproto.repo.createRecord", map[string]any{
			"repo": mortal.acct.DID, "collection": "app.bsky.feed.threadgate", "rkey": rkey,
			"record": map[string]any{"$type": "app.bsky.feed.threadgate", "post": gated.URI, "allow": []any{}, "createdAt": time.Now().UTC().Format(time.RFC3339Nano)},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the gate is indexed", func() bool {
			_, err = c.Publish(ctx, "Gates mean nothing below.", gated.URI)
			return platform.Classify(err) == platform.RefusalReplyGated
		})
	})

	t.Run("deleted post", func(t *testing.T) {
		doomed := mortal.post(t, "soon gone", nil, nil, nil, nil)
		eventually(t, "the post is indexed", func() bool {
			got, err := c.Lookup(ctx, []string{doomed.URI})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) == 1
		})
		rkey := doomed.URI[strings.LastIndex(doomed.URI, "/")+1:]
		if err := n.XRPC(ctx, mortal.acct.AccessJWT, http.MethodPost, "com.atproto.repo.deleteRecord",
			map[string]any{"repo": mortal.acct.DID, "collection": "app.bsky.feed.post", "rkey": rkey}, nil); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the deletion is indexed", func() bool {
			got, err := c.Lookup(ctx, []string{doomed.URI})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) == 0
		})
		_, err := c.Publish(ctx, "Too late.", doomed.URI)
		if platform.Classify(err) != platform.RefusalOriginalGone {
			t.Fatalf("reply to a deleted post: %v, want %s", err, platform.RefusalOriginalGone)
		}
	})

	t.Run("images, link cards and quotes with media", func(t *testing.T) {
		blob := mortal.uploadBlob(t, onePixelPNG)
		facet := func(text string) []any {
			i := strings.Index(text, "@infernal.test")
			return []any{map[string]any{"index": map[string]any{"byteStart": i, "byteEnd": i + len("@infernal.test")},
				"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": persona.DID}}}}
		}
		images := map[string]any{"$type": "app.bsky.embed.images", "images": []any{
			map[string]any{"image": blob, "alt": "a goat in a red cape"},
			map[string]any{"image": blob, "alt": ""},
		}}
		mk := func(text string, embed map[string]any) ref {
			return mortal.create(t, "app.bsky.feed.post", map[string]any{"$type": "app.bsky.feed.post", "text": text,
				"createdAt": time.Now().UTC().Format(time.RFC3339Nano), "facets": facet(text), "embed": embed})
		}
		pics := mk("@infernal.test what is this", images)
		card := mk("@infernal.test read this", map[string]any{"$type": "app.bsky.embed.external", "external": map[string]any{
			"uri": "https://pit.example/hours", "title": "The pit's hours", "description": "Open all night."}})
		both := mk("@infernal.test and this", map[string]any{"$type": "app.bsky.embed.recordWithMedia",
			"record": map[string]any{"$type": "app.bsky.embed.record", "record": root}, "media": images})
		var got []platform.Post
		eventually(t, "the three posts are indexed", func() bool {
			got, err = c.Lookup(ctx, []string{pics.URI, card.URI, both.URI})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) == 3
		})
		by := map[string]platform.Post{}
		for _, p := range got {
			by[p.ID] = p
		}
		for _, uri := range []string{pics.URI, both.URI} {
			p := by[uri]
			if len(p.Media) != 2 || p.Media[0].Alt != "a goat in a red cape" || p.Media[1].Alt != "" ||
				!strings.HasPrefix(p.Media[0].URL, "http") || !strings.HasPrefix(p.Media[0].PreviewURL, "http") || p.Media[0].Type != platform.MediaPhoto {
				t.Errorf("%s: media %+v, want two photos (fullsize, thumb) with the first's alt text", uri, p.Media)
			}
			if p.MediaURL != p.Media[0].PreviewURL {
				t.Errorf("%s: media_url %q, want the first image's thumb", uri, p.MediaURL)
			}
		}
		if q := by[both.URI]; q.QuotedID != root.URI {
			t.Errorf("record with media quotes %q, want %s", q.QuotedID, root.URI)
		}
		l := by[card.URI].Link
		if l == nil || l.URL != "https://pit.example/hours" || l.Title != "The pit's hours" || l.Description != "Open all night." {
			t.Errorf("link card %+v", l)
		}
	})

	t.Run("contract", func(t *testing.T) {
		platformtest.Run(t, contractHarness(t, n, c, mortal, dids))
	})

	t.Run("one session", func(t *testing.T) {
		if got := c.SessionsCreated(); got != 1 {
			t.Fatalf("sessions created = %d, want 1", got)
		}
	})
}

// contractHarness lets the platform contract act on the development network
// as mortal, and meet Bluesky's rate limits through a stand-in PDS (the
// development network enforces none).
func contractHarness(t *testing.T, n *devnet.Network, c *bluesky.Client, mortal poster, dids map[string]string) platformtest.Harness {
	refs := map[string]ref{}  // every post made, by uri
	roots := map[string]ref{} // the thread root of each post made
	write := func(t *testing.T, text, parent string) string {
		t.Helper()
		if parent == "" {
			r := mortal.post(t, text, dids, nil, nil, nil)
			refs[r.URI], roots[r.URI] = r, r
			return r.URI
		}
		p, root := refs[parent], roots[parent]
		r := mortal.post(t, text, dids, &root, &p, nil)
		refs[r.URI], roots[r.URI] = r, root
		return r.URI
	}
	return platformtest.Harness{
		Platform: c,
		Post:     func(t *testing.T, text string) string { return write(t, text, "") },
		Mention:  write,
		Delete: func(t *testing.T, id string) {
			rkey := id[strings.LastIndex(id, "/")+1:]
			if err := n.XRPC(context.Background(), mortal.acct.AccessJWT, http.MethodPost, "com.atproto.repo.deleteRecord",
				map[string]any{"repo": mortal.acct.DID, "collection": "app.bsky.feed.post", "rkey": rkey}, nil); err != nil {
				t.Fatal(err)
			}
		},
		Language:   "en",
		Eventually: eventually,
		RateLimited: func(t *testing.T, kind platformtest.RateLimitKind) platform.Platform {
			reset := time.Now().Add(10 * time.Minute)
			p := &pds{expired: map[string]bool{}}
			cfg := bluesky.Config{Handle: "infernal.test", AppPassword: appPassword}
			switch kind {
			case platformtest.LimitAnswered:
				p.status = http.StatusTooManyRequests
				p.headers = http.Header{"Ratelimit-Limit": {"3000"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)}}
			case platformtest.LimitWindowClosed:
				windows, err := ratelimit.Open(taskstest.RedisURL(t), 1)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = windows.Close() })
				// Another process was told the window is used up.
				if err := windows.Record(context.Background(), "bluesky app.bsky.notification.listNotifications", http.Header{
					"X-Rate-Limit-Limit": {"3000"}, "X-Rate-Limit-Remaining": {"0"}, "X-Rate-Limit-Reset": {strconv.FormatInt(reset.Unix(), 10)},
				}); err != nil {
					t.Fatal(err)
				}
				cfg.Limiter = windows
			}
			srv := httptest.NewServer(p)
			t.Cleanup(srv.Close)
			cfg.PDSURL = srv.URL
			limited, err := bluesky.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			// The stand-in's persona is did:plc:persona; the contract asks for the real one.
			return personaAs{Client: limited, did: "did:plc:persona"}
		},
	}
}

// personaAs is a client whose Mentions reads the stand-in persona's
// notifications, whatever user id the contract names.
type personaAs struct {
	*bluesky.Client
	did string
}

func (p personaAs) Mentions(ctx context.Context, _ string, r platform.Range) (platform.Page, error) {
	return p.Client.Mentions(ctx, p.did, r)
}
