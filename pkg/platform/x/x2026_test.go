package x

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/platform"
	"infernal/pkg/ratelimit"
	"infernal/pkg/spend"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks/taskstest"
)

// searchAnswer is a page of recent search as X sends it, with the fields
// eligibility needs: a mention of the persona (id 42, @devil), a quote of one
// of its posts, and a plain post.
const searchAnswer = `{"data":[
 {"id":"1800000000000000003","text":"@devil why mondays","author_id":"7","conversation_id":"1800000000000000003","created_at":"2026-03-01T10:00:00.000Z",
  "entities":{"mentions":[{"start":0,"end":6,"username":"devil","id":"42"}]}},
 {"id":"1800000000000000002","text":"look at this","author_id":"8","conversation_id":"1800000000000000002","created_at":"2026-03-01T09:00:00.000Z",
  "referenced_tweets":[{"type":"quoted","id":"1700000000000000001"}]},
 {"id":"1800000000000000001","text":"mondays again","author_id":"9","conversation_id":"1800000000000000001","created_at":"2026-03-01T08:00:00.000Z"}],
 "includes":{"users":[{"id":"7","username":"m1","name":"M"},{"id":"8","username":"q1","name":"Q"},{"id":"9","username":"t1","name":"T"}],
  "tweets":[{"id":"1700000000000000001","text":"a thought from below","author_id":"42"}]},
 "meta":{"newest_id":"1800000000000000003","oldest_id":"1800000000000000001","result_count":3}}`

// Each found post knows whether it summons the persona, under both policies.
func TestEligibility(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("tweet.fields"); !containsAll(got, "entities", "referenced_tweets", "author_id", "conversation_id") {
			t.Errorf("tweet.fields %q lacks what eligibility needs", got)
		}
		if got := r.URL.Query().Get("expansions"); !containsAll(got, "referenced_tweets.id", "author_id") {
			t.Errorf("expansions %q lacks referenced_tweets.id", got)
		}
		writeJSON(w, http.StatusOK, searchAnswer)
	})
	page, err := f.client(t).Search(t.Context(), "mondays", platform.Range{})
	if err != nil || len(page.Posts) != 3 {
		t.Fatalf("Search: %+v %v", page, err)
	}
	me := platform.User{ID: "42", Username: "devil"}
	tests := []struct {
		name     string
		post     platform.Post
		summoned bool
		open     bool
	}{
		{name: "mention", post: page.Posts[0], summoned: true, open: true},
		{name: "quote of the persona", post: page.Posts[1], summoned: true, open: true},
		{name: "plain conversation", post: page.Posts[2], summoned: false, open: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := platform.ReplySummoned.AllowsAPIReply(tt.post, me); got != tt.summoned {
				t.Errorf("summoned policy: %v, want %v (%+v)", got, tt.summoned, tt.post)
			}
			if got := platform.ReplyOpen.AllowsAPIReply(tt.post, me); got != tt.open {
				t.Errorf("open policy: %v, want %v", got, tt.open)
			}
		})
	}
}

func containsAll(list string, want ...string) bool {
	have := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		have[f] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}

// windowedClient is one worker's client: its own connection to the shared Redis.
func windowedClient(t *testing.T, f *fakeX, redisURL string, margin int, meter Meter) *Client {
	t.Helper()
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() }) // closing a test's connection fails only when already closed
	c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret,
		Limiter: ratelimit.New(rdb, margin, nil), Meter: meter, MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Three workers scanning every 150 ms against a stand-in that announces a
// closed window make not one call inside it, and call again once it opens.
func TestNoCallInsideAnnouncedWindow(t *testing.T) {
	t.Parallel()
	redisURL := taskstest.RedisURL(t)
	var (
		mu             sync.Mutex
		reset          time.Time
		inside, after  atomic.Int32
		announcedCalls atomic.Int32
	)
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		if reset.IsZero() {
			// The first call is told the window is spent until two seconds from now.
			reset = time.Unix(now.Add(2*time.Second).Unix()+1, 0)
			announcedCalls.Add(1)
		} else if now.Before(reset) {
			inside.Add(1)
		} else {
			after.Add(1)
		}
		at := reset
		mu.Unlock()
		w.Header().Set("x-rate-limit-limit", "300")
		remaining := "0"
		if !now.Before(at) {
			remaining = "299"
		}
		w.Header().Set("x-rate-limit-remaining", remaining)
		w.Header().Set("x-rate-limit-reset", strconv.FormatInt(at.Unix(), 10))
		if r.URL.Query().Get("max_results") != "10" {
			t.Errorf("max_results %q, want the configured 10", r.URL.Query().Get("max_results"))
		}
		writeJSON(w, http.StatusOK, `{"meta":{"result_count":0}}`)
	})
	// The announcement.
	if _, err := windowedClient(t, f, redisURL, 1, nil).Search(t.Context(), "mondays", platform.Range{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	end := reset.Add(1500 * time.Millisecond)
	mu.Unlock()
	var wg sync.WaitGroup
	var skipped atomic.Int32
	for range 3 {
		c := windowedClient(t, f, redisURL, 1, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				_, err := c.Search(context.Background(), "mondays", platform.Range{})
				if _, limited := platform.RateLimited(err); limited {
					skipped.Add(1)
				} else if err != nil {
					t.Errorf("Search: %v", err)
					return
				}
				time.Sleep(150 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if n := inside.Load(); n != 0 {
		t.Errorf("%d calls inside the announced window, want 0", n)
	}
	if skipped.Load() == 0 || after.Load() == 0 {
		t.Errorf("%d scans skipped and %d calls after the reset; want both, so the window was both honoured and lifted", skipped.Load(), after.Load())
	}
}

// fixedClock is a clock a test moves by hand.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fixedClock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// The spend totals equal the resources the stand-in returned, each counted
// once per UTC day.
func TestSpendCountsResourcesOncePerDay(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	clk := &fixedClock{t: time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)}
	meter := &spend.Meter{Ledger: st, Prices: spend.DefaultPrices(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.now}
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/2/tweets/search/recent":
			writeJSON(w, http.StatusOK, searchAnswer)
		case "/2/tweets":
			writeJSON(w, http.StatusCreated, `{"data":{"id":"1900000000000000001","text":"see hell.example.com"}}`)
		default:
			writeJSON(w, http.StatusNotFound, `{"title":"Not Found Error","type":"about:blank","status":404,"detail":"no"}`)
		}
	})
	c := windowedClient(t, f, taskstest.RedisURL(t), 1, meter)
	ctx := t.Context()
	for range 2 {
		if _, err := c.Search(ctx, "mondays", platform.Range{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Publish(ctx, "see hell.example.com", ""); err != nil {
		t.Fatal(err)
	}
	spent, err := meter.Spent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Three posts, the quoted post and three users of includes read once
	// (the second search is free the same day), one post with a link created.
	if want := 4*0.005 + 3*0.010 + 0.20; !near(spent.Today.XUSD, want) {
		t.Errorf("today %v, want %v", spent.Today.XUSD, want)
	}
	byEndpoint := map[string][2]int{}
	for _, e := range spent.Today.ByEndpoint {
		byEndpoint[e.Endpoint] = [2]int{e.Calls, e.Resources}
	}
	if byEndpoint["GET /2/tweets/search/recent"] != [2]int{2, 7} || byEndpoint["POST /2/tweets"] != [2]int{1, 1} {
		t.Errorf("by endpoint %v", byEndpoint)
	}
	// The next UTC day bills the same posts again.
	clk.set(clk.now().Add(2 * time.Hour))
	if _, err := c.Search(ctx, "mondays", platform.Range{}); err != nil {
		t.Fatal(err)
	}
	spent, err = meter.Spent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !near(spent.Today.XUSD, 4*0.005+3*0.010) || !near(spent.Month.XUSD, 2*(4*0.005+3*0.010)+0.20) {
		t.Errorf("next day: today %v month %v", spent.Today.XUSD, spent.Month.XUSD)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A 429 that claims 50 calls are left closes the window all the same: the
// next call through the same windows is not sent before the announced reset.
func TestRefusedWindowStaysClosed(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(10 * time.Minute)
	var calls atomic.Int32
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("x-rate-limit-limit", "300")
		w.Header().Set("x-rate-limit-remaining", "50")
		w.Header().Set("x-rate-limit-reset", strconv.FormatInt(reset.Unix(), 10))
		writeJSON(w, http.StatusTooManyRequests, `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`)
	})
	redisURL := taskstest.RedisURL(t)
	tests := []struct {
		name      string
		wantCalls int32
	}{
		{name: "the 429 itself", wantCalls: 1},
		{name: "the next scan", wantCalls: 1},
		{name: "another worker's scan", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := windowedClient(t, f, redisURL, 1, nil).Search(t.Context(), "mondays", platform.Range{})
			at, limited := platform.RateLimited(err)
			if !limited || at.Unix() != reset.Unix() {
				t.Errorf("Search: %v (retry at %v), want a rate limit until %v", err, at, reset)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("%d calls sent, want %d", got, tt.wantCalls)
			}
		})
	}
}

// mixedPage holds a post of the author's own, a repost (which a user
// timeline asked with exclude=retweets never holds, but mentions and search
// do), and a reply quoting a post, under the names of X's newest OpenAPI
// (referenced_posts, includes.posts).
const mixedPage = `{"data":[
 {"id":"1800000000000000003","text":"RT @m2: hell is other people","author_id":"7","created_at":"2026-03-01T10:00:00.000Z",
  "referenced_tweets":[{"type":"retweeted","id":"1700000000000000009"}]},
 {"id":"1800000000000000002","text":"@devil read this","author_id":"7","created_at":"2026-03-01T09:00:00.000Z",
  "referenced_posts":[{"type":"replied_to","id":"1700000000000000002"},{"type":"quoted","id":"1700000000000000001"}]},
 {"id":"1800000000000000001","text":"mondays &amp; me","author_id":"7","created_at":"2026-03-01T08:00:00.000Z"}],
 "includes":{"users":[{"id":"7","username":"m1","name":"M"},{"id":"8","username":"m2","name":"M2"},{"id":"42","username":"devil","name":"Devil"}],
  "posts":[{"id":"1700000000000000001","text":"a thought from below","author_id":"42"},
   {"id":"1700000000000000002","text":"why mondays","author_id":"8","conversation_id":"1700000000000000002"}]},
 "meta":{"newest_id":"1800000000000000003","oldest_id":"1800000000000000001","result_count":3}}`

// Every timeline drops reposts, asks X to leave them out where X can
// (user timelines, not mentions), reads both names of referenced posts and
// includes, and returns the included posts with their authors.
func TestTimelinesDropRetweets(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, mixedPage)
	})
	c := f.client(t)
	tests := []struct {
		name        string
		read        func(context.Context) (platform.Page, error)
		wantExclude string
	}{
		{name: "a user's posts", wantExclude: "retweets",
			read: func(ctx context.Context) (platform.Page, error) { return c.UserPosts(ctx, "7", platform.Range{}) }},
		{name: "mentions", wantExclude: "",
			read: func(ctx context.Context) (platform.Page, error) { return c.Mentions(ctx, "42", platform.Range{}) }},
		{name: "search", wantExclude: "",
			read: func(ctx context.Context) (platform.Page, error) { return c.Search(ctx, "mondays", platform.Range{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := tt.read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if got := reqs[len(reqs)-1].Query.Get("exclude"); got != tt.wantExclude {
				t.Errorf("exclude %q, want %q", got, tt.wantExclude)
			}
			var ids []string
			for _, p := range page.Posts {
				ids = append(ids, p.ID)
			}
			if want := []string{"1800000000000000002", "1800000000000000001"}; !slices.Equal(ids, want) {
				t.Fatalf("posts %v, want %v (the repost left out)", ids, want)
			}
			reply := page.Posts[0]
			if reply.InReplyToID != "1700000000000000002" || reply.QuotedID != "1700000000000000001" || reply.QuotedAuthorID != "42" {
				t.Errorf("reply %+v: referenced_posts not read", reply)
			}
			if !reply.Summons(platform.User{ID: "42", Username: "devil"}) {
				t.Error("a quote of the persona's post read from includes.posts does not summon it")
			}
			included := map[string]platform.Post{}
			for _, p := range page.Included {
				included[p.ID] = p
			}
			parent := included["1700000000000000002"]
			if len(page.Included) != 2 || parent.Text != "why mondays" || parent.Author.Username != "m2" || included["1700000000000000001"].Author.Username != "devil" {
				t.Errorf("included %+v, want the parent by @m2 and the quoted post by @devil", page.Included)
			}
		})
	}
}

// A 400 naming an invalid expansion is a configuration refusal, with the
// parameter named; one naming a read's own bound is not.
func TestRejectedParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		wantInvalid []string
		want        platform.Refusal
	}{
		{name: "expansion X no longer knows", wantInvalid: []string{"expansions"}, want: platform.RefusalBadRequestConfig,
			body: "{\"errors\":[{\"parameters\":{\"expansions\":[\"referenced_tweets.id\"]},\"message\":\"The `expansions` query parameter value [referenced_tweets.id] is not one of [author_id]\"}],\"title\":\"Invalid Request\",\"detail\":\"One or more parameters to your request was invalid.\",\"type\":\"https://api.twitter.com/2/problems/invalid-request\"}"},
		{name: "stale since_id", wantInvalid: []string{"since_id"}, want: "",
			body: `{"errors":[{"parameters":{"since_id":["1"]},"message":"Invalid 'since_id':'1'."}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusBadRequest, tt.body) })
			_, err := f.client(t).Mentions(t.Context(), "42", platform.Range{})
			var pe *platform.Error
			if !errors.As(err, &pe) || !slices.Equal(pe.Invalid, tt.wantInvalid) {
				t.Fatalf("Mentions: %v, want a refusal naming %v", err, tt.wantInvalid)
			}
			if got := platform.Classify(err); got != tt.want {
				t.Errorf("Classify = %q, want %q", got, tt.want)
			}
		})
	}
}

// xBill is what the stand-in bills, as X does: every resource returned
// (data and the posts and users of includes) once per kind and UTC day,
// and each post created at its price.
type xBill struct {
	mu     sync.Mutex
	billed map[string]bool
	usd    float64
}

func (b *xBill) add(kind string, usd float64, ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		if !b.billed[kind+":"+id] {
			b.billed[kind+":"+id] = true
			b.usd += usd
		}
	}
}

func (b *xBill) total() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.usd
}

// Lookup reads 150 ids in two batches, leaves out the ids X reports
// deleted, and is billed as post reads (with the users and posts of
// includes), each once a day, as the stand-in bills it; a summoned reply
// costs $0.010.
func TestLookupBilledAsXBills(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	clk := &fixedClock{t: time.Date(2026, 4, 20, 12, 0, 0, 0, time.UTC)}
	meter := &spend.Meter{Ledger: st, Prices: spend.DefaultPrices(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.now}
	bill := &xBill{billed: map[string]bool{}}
	var batches atomic.Int32
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			// The replied-to post mentioned the persona: a summoned reply.
			bill.add("post_create", 0.010, "1900000000000000001")
			writeJSON(w, http.StatusCreated, `{"data":{"id":"1900000000000000001","text":"burn"}}`)
			return
		}
		if r.URL.Path != "/2/tweets" || r.URL.Query().Get("expansions") == "" {
			t.Errorf("request %s %s, want a lookup with expansions", r.Method, r.URL)
		}
		batches.Add(1)
		var data, errs []string
		for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
			if strings.HasSuffix(id, "7") {
				errs = append(errs, `{"value":"`+id+`","detail":"Could not find tweet with ids: [`+id+`].","title":"Not Found Error","resource_type":"tweet","parameter":"ids","resource_id":"`+id+`","type":"https://api.twitter.com/2/problems/resource-not-found"}`)
				continue
			}
			data = append(data, `{"id":"`+id+`","text":"post `+id+`","author_id":"8","referenced_tweets":[{"type":"replied_to","id":"1600000000000000001"}]}`)
			bill.add("post", 0.005, id)
		}
		bill.add("post", 0.005, "1600000000000000001")
		bill.add("user", 0.010, "8", "9")
		writeJSON(w, http.StatusOK, `{"data":[`+strings.Join(data, ",")+`],"errors":[`+strings.Join(errs, ",")+`],
			"includes":{"users":[{"id":"8","username":"m8","name":"M8"},{"id":"9","username":"m9","name":"M9"}],
			"tweets":[{"id":"1600000000000000001","text":"the parent","author_id":"9"}]}}`)
	})
	c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret,
		Meter: meter, RepliesSummon: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 150)
	for i := range ids {
		ids[i] = strconv.Itoa(1800000000000000000 + i)
	}
	tests := []struct {
		name        string
		wantBatches int32
		wantUSD     float64
	}{
		// 150 ids less 15 deleted, the parent, two users.
		{name: "first lookup", wantBatches: 2, wantUSD: 136*0.005 + 2*0.010},
		{name: "the same posts again the same day", wantBatches: 4, wantUSD: 136*0.005 + 2*0.010},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			posts, err := c.Lookup(t.Context(), ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(posts) != 135 || posts[0].Author.Username != "m8" || posts[0].InReplyToID != "1600000000000000001" {
				t.Errorf("Lookup: %d posts (first %+v), want 135 with authors", len(posts), posts[0])
			}
			if got := batches.Load(); got != tt.wantBatches {
				t.Errorf("%d batches, want %d", got, tt.wantBatches)
			}
			spent, err := meter.Spent(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !near(spent.Today.XUSD, tt.wantUSD) || !near(spent.Today.XUSD, bill.total()) {
				t.Errorf("meter %v, X bills %v, want %v", spent.Today.XUSD, bill.total(), tt.wantUSD)
			}
		})
	}
	if _, err := c.Publish(t.Context(), "burn", "1800000000000000001"); err != nil {
		t.Fatal(err)
	}
	spent, err := meter.Spent(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !near(spent.Today.XUSD, bill.total()) {
		t.Errorf("after a summoned reply the meter says %v, X bills %v", spent.Today.XUSD, bill.total())
	}
}
