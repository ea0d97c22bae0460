package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/tasks"
)

// newestNamingX is an X that knows only its newest OpenAPI's naming
// (post.fields, referenced_posts): the documented naming is a 400 naming
// the parameter. A mention answers a thread whose parent comes in
// includes.posts, with its author in includes.users; a lookup answers the
// thread's root with its author.
func newestNamingX(t *testing.T, refused, mentionReads *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		for name, vals := range q {
			if name == "tweet.fields" || strings.Contains(strings.Join(vals, ","), "referenced_tweets") {
				refused.Add(1)
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"errors":[{"parameters":{"`+name+`":["`+strings.Join(vals, ",")+`"]},"message":"The query parameter [`+name+`] is not one of [post.fields,expansions,user.fields,media.fields]"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`) // a hung-up client fails its read, reported there
				return
			}
		}
		body := `{"meta":{"result_count":0}}`
		switch r.URL.Path {
		case "/2/users/me":
			body = `{"data":{"id":"42","username":"devil","name":"Devil"}}`
		case "/2/users/42/mentions":
			mentionReads.Add(1)
			body = `{"data":[{"id":"1900000000000000003","text":"@devil thoughts?","author_id":"7","conversation_id":"1900000000000000001",
  "referenced_posts":[{"type":"replied_to","id":"1900000000000000002"}],"entities":{"mentions":[{"username":"devil","id":"42"}]}}],
 "includes":{"users":[{"id":"7","username":"asker","name":"A"},{"id":"8","username":"parent_author","name":"P"}],
  "posts":[{"id":"1900000000000000002","text":"cold brew is a personality","author_id":"8","conversation_id":"1900000000000000001",
    "referenced_posts":[{"type":"replied_to","id":"1900000000000000001"}]}]},
 "meta":{"newest_id":"1900000000000000003","oldest_id":"1900000000000000003","result_count":1}}`
		case "/2/tweets":
			body = `{"data":[{"id":"1900000000000000001","text":"coffee after 4pm is a sin","author_id":"9","conversation_id":"1900000000000000001"}],
 "includes":{"users":[{"id":"9","username":"root_author","name":"R"}]}}`
		}
		_, _ = io.WriteString(w, body) // a hung-up client fails its read, reported there
	}))
	t.Cleanup(srv.Close)
	return srv
}

// On an X that speaks only the newest naming, mentions are read after one
// refused call, drafted with their context and its authors, and no
// timeline pauses.
func TestNewestNamingMentionsDraftedWithContext(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	var refused, mentionReads atomic.Int32
	srv := newestNamingX(t, &refused, &mentionReads)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts",
		Namings: e.queue})
	if err != nil {
		t.Fatal(err)
	}
	w := &contextWriter{}
	pipe := pipeline.New(pipeline.Config{Store: e.store, Platform: c, Writer: w, Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil"})
	for range 2 {
		if err := pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
			t.Fatalf("ScanMentions: %v", err)
		}
	}
	if mentionReads.Load() != 2 || refused.Load() != 1 {
		t.Errorf("%d mentions read, %d refused; want both scans read (no pause) and one refusal in all", mentionReads.Load(), refused.Load())
	}
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 10)
	if err != nil || len(ids) != 1 {
		t.Fatalf("drafting %v, %v; want the mention", ids, err)
	}
	if err := pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: ids[0]})); err != nil {
		t.Fatal(err)
	}
	want := "ancestor:root_author:coffee after 4pm is a sin | parent:parent_author:cold brew is a personality"
	if got := w.last(); got != want {
		t.Errorf("draft context:\n got %q\nwant %q", got, want)
	}
	if refused.Load() != 1 {
		t.Errorf("%d refusals, want 1: the lookup asked in the naming found", refused.Load())
	}
	// The card's conversation is read from these rows.
	rows, err := e.store.ContextPosts(ctx, c.Name(), []string{"1900000000000000001", "1900000000000000002"})
	if err != nil {
		t.Fatal(err)
	}
	if rows["1900000000000000002"].AuthorUsername != "parent_author" || rows["1900000000000000001"].AuthorUsername != "root_author" {
		t.Errorf("the card's context authors %+v, want the parent's and the root's", rows)
	}
}

// A targeted username X does not know is looked up once, not at every
// scan; again an hour later, or at once after the settings change.
func TestUnknownTargetLookedUpHourly(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	var lookups atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/2/users/by/username/") {
			lookups.Add(1)
			_, _ = io.WriteString(w, `{"errors":[{"value":"ghost_acct","detail":"Could not find user with username: [ghost_acct].","title":"Not Found Error","resource_type":"user","parameter":"username","resource_id":"ghost_acct","type":"https://api.twitter.com/2/problems/resource-not-found"}]}`) // a hung-up client fails its read, reported there
			return
		}
		_, _ = io.WriteString(w, `{"meta":{"result_count":0}}`) // as above
	}))
	t.Cleanup(srv.Close)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	e.pipe.Scanner.Platform = c
	e.pipe.Scanner.Self = pipeline.NewSelf(c)
	e.pipe.Scanner.Now = func() time.Time { return now }
	set := settings.Settings{TargetUsernames: []string{"ghost_acct"}, Caps: settings.DefaultCaps()}
	if err := e.store.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	scan := func() {
		t.Helper()
		if err := e.pipe.Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
			t.Fatalf("ScanTargeted: %v", err)
		}
	}
	steps := []struct {
		name    string
		advance time.Duration
		change  bool
		want    int32
	}{
		{name: "first scan looks it up", want: 1},
		{name: "a minute later, not again", advance: time.Minute, want: 1},
		{name: "59 minutes after the lookup, not again", advance: 58 * time.Minute, want: 1},
		{name: "an hour after the lookup, again", advance: time.Minute, want: 2},
		{name: "right after, not again", want: 2},
		{name: "after a settings change, at once", change: true, want: 3},
	}
	for _, st := range steps {
		now = now.Add(st.advance)
		if st.change {
			set.SearchTopics = []string{"coffee"}
			if err := e.store.PutSettings(ctx, set); err != nil {
				t.Fatal(err)
			}
		}
		scan()
		if got := lookups.Load(); got != st.want {
			t.Errorf("%s: %d lookups, want %d", st.name, got, st.want)
		}
	}
	missing, err := e.store.TargetsNotFound(ctx, c.Name())
	if err != nil || len(missing) != 1 || missing[0] != "ghost_acct" {
		t.Errorf("TargetsNotFound = %v, %v; want ghost_acct", missing, err)
	}
}

// Targets given by id are read by that id without a lookup, targets given
// by handle are looked up once and their id kept, and Bluesky's entries
// (a domain handle, a DID) are left to a Bluesky scanner.
func TestTargetsByHandleOrID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	var mu sync.Mutex
	var lookups, timelines []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.URL.Path == "/2/users/me":
			_, _ = io.WriteString(w, `{"data":{"id":"1","name":"Infernal","username":"infernal"}}`) // as below
		case strings.HasPrefix(r.URL.Path, "/2/users/by/username/"):
			lookups = append(lookups, strings.TrimPrefix(r.URL.Path, "/2/users/by/username/"))
			_, _ = io.WriteString(w, `{"data":{"id":"99","name":"Known","username":"known_acct"}}`) // a hung-up client fails its read, reported there
		case strings.HasSuffix(r.URL.Path, "/tweets"):
			timelines = append(timelines, strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/2/users/"), "/tweets"))
			_, _ = io.WriteString(w, `{"meta":{"result_count":0}}`) // as above
		default:
			_, _ = io.WriteString(w, `{"meta":{"result_count":0}}`) // as above
		}
	}))
	t.Cleanup(srv.Close)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	e.pipe.Scanner.Platform = c
	e.pipe.Scanner.Self = pipeline.NewSelf(c)
	set, err := settings.Settings{TargetUsernames: []string{"@Known_Acct", "12345", "alice.bsky.social", "did:plc:z72i7hdynmk6r22z27h6tvur"}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := e.pipe.Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
			t.Fatalf("ScanTargeted: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(lookups, []string{"known_acct"}) {
		t.Errorf("lookups %q, want known_acct once", lookups)
	}
	if !slices.Equal(timelines, []string{"99", "12345", "99", "12345"}) {
		t.Errorf("timelines read %q, want 99 (looked up) and 12345 (given), twice", timelines)
	}
	target, err := e.store.Target(ctx, c.Name(), "known_acct")
	if err != nil || target.UserID != "99" {
		t.Errorf("the looked-up target %+v %v, want id 99 kept", target, err)
	}
}
