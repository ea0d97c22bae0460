package api_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/insights"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

func (f *fakeStore) CachedInsights(_ context.Context, k store.InsightsKey, _ time.Time) (store.CachedInsights, bool, error) {
	f.record("CachedInsights %d %q %s", k.Days, k.Source, k.TZ)
	return store.CachedInsights{}, false, nil
}

func (f *fakeStore) ComputeInsights(_ context.Context, k store.InsightsKey, _ time.Time) (store.CachedInsights, error) {
	f.record("ComputeInsights %d %q %s", k.Days, k.Source, k.TZ)
	return store.CachedInsights{}, nil
}

func (f *fakeStore) LookupPost(_ context.Context, platform, id string) (store.Fate, error) {
	f.record("LookupPost %s %s", platform, id)
	return store.Fate{}, store.ErrNotFound
}

func (f *fakeStore) LastScanOf(_ context.Context, platform, name string) (store.LastScan, error) {
	f.record("LastScanOf %s %s", platform, name)
	return store.LastScan{}, store.ErrNotFound
}

// Every garbage parameter of the insights and the lookup gets a 400 naming
// it, and reaches nothing.
func TestInsightsRefusals(t *testing.T) {
	t.Parallel()
	srv, st := fakeServer(t)
	tests := []struct {
		name, path, token string
		wantStatus        int
		wantError         string
	}{
		{name: "insights without token", path: "/api/insights?days=7", wantStatus: 401, wantError: "authentication required"},
		{name: "days 8", path: "/api/insights?days=8", token: fakeToken, wantStatus: 400, wantError: "days must be 7, 30 or 90"},
		{name: "days word", path: "/api/insights?days=week", token: fakeToken, wantStatus: 400, wantError: "days must be"},
		{name: "days negative", path: "/api/insights?days=-7", token: fakeToken, wantStatus: 400, wantError: "days must be"},
		{name: "days padded", path: "/api/insights?days=%207", token: fakeToken, wantStatus: 400, wantError: "days must be"},
		{name: "days empty given", path: "/api/insights?days=", token: fakeToken, wantStatus: 400, wantError: "days must be"},
		{name: "source profile", path: "/api/insights?days=30&source=profile", token: fakeToken, wantStatus: 400, wantError: "source must be"},
		{name: "source garbage", path: "/api/insights?source=%00", token: fakeToken, wantStatus: 400, wantError: "source must be"},
		{name: "tz unknown", path: "/api/insights?tz=Mars/Olympus", token: fakeToken, wantStatus: 400, wantError: "tz must be"},
		{name: "tz local", path: "/api/insights?tz=Local", token: fakeToken, wantStatus: 400, wantError: "tz must be"},
		{name: "tz path", path: "/api/insights?tz=../../etc/passwd", token: fakeToken, wantStatus: 400, wantError: "tz must be"},
		{name: "tz long", path: "/api/insights?tz=" + strings.Repeat("A", 65), token: fakeToken, wantStatus: 400, wantError: "tz must be"},
		{name: "lookup without token", path: "/api/mentions/lookup?q=1", wantStatus: 401, wantError: "authentication required"},
		{name: "lookup no q", path: "/api/mentions/lookup", token: fakeToken, wantStatus: 400, wantError: "q must be"},
		{name: "lookup letters", path: "/api/mentions/lookup?q=abc", token: fakeToken, wantStatus: 400, wantError: "q must be"},
		{name: "lookup other site", path: "/api/mentions/lookup?q=https://evil.example/a/status/1", token: fakeToken, wantStatus: 400, wantError: "q must be"},
		{name: "lookup huge id", path: "/api/mentions/lookup?q=" + strings.Repeat("9", 21), token: fakeToken, wantStatus: 400, wantError: "q must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(st.Calls())
			status, body := call(t, srv, "GET", tt.path, tt.token, "")
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if msg := errorOf(t, body); !strings.Contains(msg, tt.wantError) {
				t.Errorf("error %q, want it to contain %q", msg, tt.wantError)
			}
			if calls := st.Calls()[before:]; len(calls) != 0 {
				t.Errorf("a refused request reached %v", calls)
			}
		})
	}
}

// Well-formed requests reach the store with their range, source and zone.
func TestInsightsReachTheStore(t *testing.T) {
	t.Parallel()
	srv, st := fakeServer(t)
	tests := []struct {
		name, path string
		wantCalls  []string
	}{
		{name: "defaults", path: "/api/insights", wantCalls: []string{`CachedInsights 7 "" UTC`, `ComputeInsights 7 "" UTC`}},
		{name: "90 days of mentions in Paris", path: "/api/insights?days=90&source=mention&tz=Europe/Paris", wantCalls: []string{`CachedInsights 90 "mention" Europe/Paris`, `ComputeInsights 90 "mention" Europe/Paris`}},
		{name: "30 days", path: "/api/insights?days=30", wantCalls: []string{`CachedInsights 30 "" UTC`, `ComputeInsights 30 "" UTC`}},
		{name: "lookup by address", path: "/api/mentions/lookup?q=https://x.com/m/status/123", wantCalls: []string{"LookupPost sandbox 123", "LastScanOf sandbox mentions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(st.Calls())
			status, body := call(t, srv, "GET", tt.path, fakeToken, "")
			if status != 200 {
				t.Fatalf("got %d %s", status, body)
			}
			calls := st.Calls()[before:]
			if strings.Join(calls, "|") != strings.Join(tt.wantCalls, "|") {
				t.Errorf("calls %v, want %v", calls, tt.wantCalls)
			}
		})
	}
}

// A reference is looked up on the platform it names, among the platforms
// run: an id or an X address on X (the sandbox's alone), a Bluesky address
// or at:// URI on Bluesky; a reference to a platform not run is a 400.
func TestLookupOnItsPlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		platforms []string
		q         string
		wantCalls []string
	}{
		{name: "an id on x and bluesky", platforms: []string{"x", "bluesky"}, q: "123",
			wantCalls: []string{"LookupPost x 123", "LastScanOf x mentions"}},
		{name: "a bsky.app address on x and bluesky", platforms: []string{"x", "bluesky"}, q: "https://bsky.app/profile/mortal.test/post/3kq2x",
			wantCalls: []string{"LookupPost bluesky at://mortal.test/app.bsky.feed.post/3kq2x", "LastScanOf bluesky mentions"}},
		{name: "an at uri on bluesky", platforms: []string{"bluesky"}, q: "at://did:plc:abc234/app.bsky.feed.post/3kq2x",
			wantCalls: []string{"LookupPost bluesky at://did:plc:abc234/app.bsky.feed.post/3kq2x", "LastScanOf bluesky mentions"}},
		{name: "an id on the sandbox", platforms: []string{"sandbox"}, q: "42",
			wantCalls: []string{"LookupPost sandbox 42", "LastScanOf sandbox mentions"}},
		{name: "an id on bluesky alone", platforms: []string{"bluesky"}, q: "123"},
		{name: "a bsky.app address on x alone", platforms: []string{"x"}, q: "https://bsky.app/profile/mortal.test/post/3kq2x"},
		{name: "a bsky.app address without a post", platforms: []string{"bluesky"}, q: "https://bsky.app/profile/mortal.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, st := fakeServerOn(t, tt.platforms...)
			status, body := call(t, srv, "GET", "/api/mentions/lookup?q="+url.QueryEscape(tt.q), fakeToken, "")
			if tt.wantCalls == nil {
				if status != 400 || !strings.Contains(body, "q must be") {
					t.Errorf("got %d %s, want 400 q must be…", status, body)
				}
				return
			}
			if status != 200 {
				t.Fatalf("got %d %s", status, body)
			}
			var calls []string
			for _, c := range st.Calls() {
				if strings.HasPrefix(c, "LookupPost") || strings.HasPrefix(c, "LastScanOf") {
					calls = append(calls, c)
				}
			}
			if strings.Join(calls, "|") != strings.Join(tt.wantCalls, "|") {
				t.Errorf("calls %v, want %v", calls, tt.wantCalls)
			}
		})
	}
}

// A run by hand is for the platform named, one the persona answers on:
// a profile post for the first platform by default, a targeted scan on
// every platform; any other platform is a 400 that runs nothing.
func TestRunsByHandOnAPlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantCalls  []string
	}{
		{name: "profile for the first platform", path: "/api/posts/profile/generate", wantStatus: 500, wantCalls: []string{"CreateProfileDraft x"}},
		{name: "profile for bluesky", path: "/api/posts/profile/generate?platform=bluesky", wantStatus: 500, wantCalls: []string{"CreateProfileDraft bluesky"}},
		{name: "profile for a platform not run", path: "/api/posts/profile/generate?platform=sandbox", wantStatus: 400},
		{name: "profile for garbage", path: "/api/posts/profile/generate?platform=%00x", wantStatus: 400},
		{name: "targeted on every platform", path: "/api/posts/targeted/generate", wantStatus: 202,
			wantCalls: []string{"EnqueuePeriodicOn scan:targeted x", "EnqueuePeriodicOn scan:targeted bluesky"}},
		{name: "targeted on bluesky", path: "/api/posts/targeted/generate?platform=bluesky", wantStatus: 202,
			wantCalls: []string{"EnqueuePeriodicOn scan:targeted bluesky"}},
		{name: "targeted on a platform not run", path: "/api/posts/targeted/generate?platform=myspace", wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, st := fakeServerOn(t, "x", "bluesky")
			status, body := call(t, srv, "POST", tt.path, fakeToken, "")
			if status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", status, body, tt.wantStatus)
			}
			if status == 400 && !strings.Contains(body, "platform must be one the persona answers on: x, bluesky") {
				t.Errorf("400 says %s", body)
			}
			var calls []string
			for _, c := range st.Calls() {
				if strings.HasPrefix(c, "CreateProfileDraft") || strings.HasPrefix(c, "EnqueuePeriodicOn") {
					calls = append(calls, c)
				}
			}
			if strings.Join(calls, "|") != strings.Join(tt.wantCalls, "|") {
				t.Errorf("calls %v, want %v", calls, tt.wantCalls)
			}
		})
	}
}

// insightsAnswer is the part of GET /api/insights the tests read.
type insightsAnswer struct {
	Funnel insights.Funnel `json:"funnel"`
	Judge  []struct {
		Score         int      `json:"score"`
		Drafts        int64    `json:"drafts"`
		ApprovedShare *float64 `json:"approved_share"`
	} `json:"judge"`
	Heatmap struct {
		Seen [7][24]int64 `json:"seen"`
	} `json:"heatmap"`
	Daily []struct {
		Day      string `json:"day"`
		Mentions int64  `json:"mentions"`
		Posted   int64  `json:"posted"`
	} `json:"daily"`
	Gaps []struct {
		Platform string `json:"platform"`
		Reason   string `json:"reason"`
	} `json:"gaps"`
}

// The funnel of a real database counts each post once at its fate, and its
// sums agree; a lookup answers a drafted post and a post never seen.
func TestInsightsOfRecordedPosts(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a := e.pending("1001", post.SourceMention, 1, "the furnace hums")
	b := e.pending("1002", post.SourceMention, 2, "the furnace sings")
	e.pending("1003", post.SourceConversation, 3, "ash to ash")
	if _, err := e.decide().Approve(ctx, a, decision.Approval{Edited: ptr("the furnace roars"), By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.decide().Reject(ctx, b, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "1004",
		AuthorUsername: "m4", CreatedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.RecordDropped(ctx, "sandbox", post.SourceMention, []store.Dropped{{PostID: "1005", Reason: insights.DropRetweet}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.OpenMetricGap(ctx, "x", "paused: X credits ran out", e.clock.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}

	// The posts were stamped by the database's clock, ahead of the test's.
	e.clock.Add(time.Minute)
	tests := []struct {
		name, query string
		want        insights.Funnel
	}{
		{name: "every source", query: "days=7", want: insights.Funnel{Seen: 5, Waiting: 1, Skipped: map[string]int64{"retweet": 1},
			Drafted: 3, Pending: 1, Approved: 1, Edited: 1, Rejected: 1, Sending: 1}},
		{name: "conversations", query: "days=30&source=conversation", want: insights.Funnel{Seen: 1, Skipped: map[string]int64{},
			Drafted: 1, Pending: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("GET", "/api/insights?"+tt.query, e.token, "")
			if status != 200 {
				t.Fatalf("%d %s", status, body)
			}
			var got insightsAnswer
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if !got.Funnel.Check() {
				t.Errorf("the funnel's sums disagree: %+v", got.Funnel)
			}
			if g, w := mustJSON(t, got.Funnel), mustJSON(t, tt.want); g != w {
				t.Errorf("funnel\n got %s\nwant %s", g, w)
			}
			if len(got.Judge) != 5 || len(got.Gaps) != 1 || got.Gaps[0].Reason != "paused: X credits ran out" || got.Gaps[0].Platform != "x" {
				t.Errorf("judge %+v, gaps %+v; want five scores and the pause", got.Judge, got.Gaps)
			}
			var seen int64
			for _, row := range got.Heatmap.Seen {
				for _, n := range row {
					seen += n
				}
			}
			var daily int64
			for _, d := range got.Daily {
				daily += d.Mentions
			}
			if seen != tt.want.Seen || daily != tt.want.Seen {
				t.Errorf("heatmap holds %d, days %d; want %d", seen, daily, tt.want.Seen)
			}
		})
	}

	lookups := []struct {
		name, q, want string
	}{
		{name: "approved", q: "https://x.com/mortal/status/1001", want: `"seen":true,"platform_post_id":"1001","status":"sending","reason":""`},
		{name: "dropped retweet", q: "1005", want: `"seen":true,"platform_post_id":"1005","status":"skipped","reason":"retweet"`},
		{name: "never seen", q: "999", want: `{"seen":false,"platform_post_id":"999","last_scan_at":null,"newest_id":""}`},
	}
	for _, tt := range lookups {
		t.Run("lookup "+tt.name, func(t *testing.T) {
			status, body := e.do("GET", "/api/mentions/lookup?q="+tt.q, e.token, "")
			if status != 200 || !strings.Contains(body, tt.want) {
				t.Errorf("%d %s, want it to hold %s", status, body, tt.want)
			}
		})
	}
	if err := e.store.NoteScan(ctx, "sandbox", "mentions", "1004", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if status, body := e.do("GET", "/api/mentions/lookup?q=999", e.token, ""); status != 200 || !strings.Contains(body, `"newest_id":"1004"`) {
		t.Errorf("after a scan: %d %s, want the newest id it covered", status, body)
	}
}

func ptr[T any](v T) *T { return &v }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
