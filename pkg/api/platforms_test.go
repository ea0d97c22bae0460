package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/ratelimit"
	"infernal/pkg/spend"
	"infernal/pkg/store"
)

// onPlatform makes a pending post of platform and source.
func (e *env) onPlatform(platform, id string, src post.Source) int64 {
	e.t.Helper()
	ctx := context.Background()
	rowID, _, err := e.store.UpsertFound(ctx, post.Post{Platform: platform, Source: src, OriginalPostID: platform + id,
		ConversationID: "c" + id, OriginalPostText: "mortal says " + id, OriginalPostUser: "Mortal " + id,
		AuthorUsername: "mortal" + id, CreatedAt: e.clock.Now().Add(-time.Hour), Likes: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, rowID, store.Draft{Response: "burn " + id, Category: "wrath"}); err != nil {
		e.t.Fatal(err)
	}
	return rowID
}

// platformsOf reads a list answer's total and its posts' platforms.
func platformsOf(t *testing.T, body string) (int, []string) {
	t.Helper()
	var out struct {
		Posts []struct {
			Platform string `json:"platform"`
		} `json:"posts"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("list %s: %v", body, err)
	}
	platforms := []string{}
	for _, p := range out.Posts {
		platforms = append(platforms, p.Platform)
	}
	return out.Pagination.Total, platforms
}

// Every admin list takes platform= as a filter: absent lists every
// platform, a platform keeps its posts (and counts them alone), anything
// else is a 400 that names the platforms.
func TestAdminListsFilterByPlatform(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.onPlatform(post.XPlatform, "m1", post.SourceMention)
	e.onPlatform(post.XPlatform, "m2", post.SourceMention)
	e.onPlatform(post.BlueskyPlatform, "m3", post.SourceMention)
	for _, p := range []string{post.XPlatform, post.BlueskyPlatform} {
		if _, err := e.decide().Approve(ctx, e.onPlatform(p, "q", post.SourceConversation), decision.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.FailDraft(ctx, e.onPlatformDrafting(post.BlueskyPlatform, "f"), "the writer failed"); err != nil {
		t.Fatal(err)
	}
	garbage := "platform must be one of " + strings.Join(post.Platforms(), ", ")
	tests := []struct {
		list, query   string
		wantStatus    int
		wantTotal     int
		wantPlatforms []string
	}{
		{list: "mentions", query: "", wantStatus: 200, wantTotal: 3, wantPlatforms: []string{"bluesky", "x", "x"}},
		{list: "mentions", query: "&platform=", wantStatus: 200, wantTotal: 3, wantPlatforms: []string{"bluesky", "x", "x"}},
		{list: "mentions", query: "&platform=x", wantStatus: 200, wantTotal: 2, wantPlatforms: []string{"x", "x"}},
		{list: "mentions", query: "&platform=bluesky", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"bluesky"}},
		{list: "mentions", query: "&platform=sandbox", wantStatus: 200, wantTotal: 0, wantPlatforms: []string{}},
		{list: "mentions", query: "&platform=X", wantStatus: 400},
		{list: "pending", query: "&platform=bluesky", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"bluesky"}},
		{list: "pending", query: "&platform=x", wantStatus: 200, wantTotal: 0, wantPlatforms: []string{}},
		{list: "profile", query: "&platform=myspace", wantStatus: 400},
		{list: "targeted", query: "&platform=%27%20OR%201=1", wantStatus: 400},
		{list: "skipped", query: "", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"bluesky"}},
		{list: "skipped", query: "&platform=x", wantStatus: 200, wantTotal: 0, wantPlatforms: []string{}},
		{list: "skipped", query: "&platform=bluesky", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"bluesky"}},
		{list: "skipped", query: "&platform=all", wantStatus: 400},
		{list: "queued", query: "", wantStatus: 200, wantTotal: 2, wantPlatforms: []string{"x", "bluesky"}},
		{list: "queued", query: "&platform=bluesky", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"bluesky"}},
		{list: "queued", query: "&platform=x", wantStatus: 200, wantTotal: 1, wantPlatforms: []string{"x"}},
		{list: "queued", query: "&platform=twitter", wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.list+tt.query, func(t *testing.T) {
			status, body := e.do("GET", "/api/posts/"+tt.list+"?page=1"+tt.query, e.token, "")
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tt.wantStatus, body)
			}
			if status == 400 {
				if msg := errorOf(t, body); msg != garbage {
					t.Errorf("error %q, want %q", msg, garbage)
				}
				return
			}
			total, platforms := platformsOf(t, body)
			slices.Sort(platforms)
			want := slices.Clone(tt.wantPlatforms)
			slices.Sort(want)
			if total != tt.wantTotal || !slices.Equal(platforms, want) {
				t.Errorf("total %d platforms %v, want %d %v", total, platforms, tt.wantTotal, want)
			}
		})
	}
}

// onPlatformDrafting makes a post of platform still in drafting.
func (e *env) onPlatformDrafting(platform, id string) int64 {
	e.t.Helper()
	rowID, _, err := e.store.UpsertFound(context.Background(), post.Post{Platform: platform, Source: post.SourceConversation,
		OriginalPostID: platform + id, ConversationID: "c" + id, OriginalPostText: "mortal says " + id,
		AuthorUsername: "mortal" + id, CreatedAt: e.clock.Now().Add(-time.Hour)})
	if err != nil {
		e.t.Fatal(err)
	}
	return rowID
}

// The admin's counts name the platforms configured, for its filter.
func TestAdminStatsNamePlatforms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		configure func(*api.Config)
		want      []string
	}{
		{name: "the platform alone", want: []string{"sandbox"}},
		{name: "two platforms", configure: func(c *api.Config) { c.Platform, c.Platforms = "x", []string{"x", "bluesky"} },
			want: []string{"x", "bluesky"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setupWith(t, tt.configure)
			status, body := e.do("GET", "/api/posts/stats", e.token, "")
			var out struct {
				Platforms []string `json:"platforms"`
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil || status != 200 || !slices.Equal(out.Platforms, tt.want) {
				t.Errorf("stats %d %s, want platforms %v", status, body, tt.want)
			}
		})
	}
}

// The header's counts follow the platform filter: of every platform, or of
// the one named; garbage is a 400.
func TestAdminStatsByPlatform(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) { c.Platform, c.Platforms = "x", []string{"x", "bluesky"} })
	for i, platform := range []string{"x", "x", "bluesky"} {
		e.onPlatform(platform, strconv.Itoa(i), post.SourceMention)
	}
	tests := []struct {
		query       string
		wantStatus  int
		wantPending int
	}{
		{query: "", wantStatus: 200, wantPending: 3},
		{query: "?platform=x", wantStatus: 200, wantPending: 2},
		{query: "?platform=bluesky", wantStatus: 200, wantPending: 1},
		{query: "?platform=sandbox", wantStatus: 200, wantPending: 0},
		{query: "?platform=myspace", wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			status, body := e.do("GET", "/api/posts/stats"+tt.query, e.token, "")
			if status != tt.wantStatus {
				t.Fatalf("stats%s = %d %s, want %d", tt.query, status, body, tt.wantStatus)
			}
			if status != 200 {
				return
			}
			var out struct {
				Pending  struct{ Count int } `json:"pending"`
				Mentions struct{ Count int } `json:"mentions"`
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatal(err)
			}
			if out.Pending.Count != tt.wantPending || out.Mentions.Count != tt.wantPending {
				t.Errorf("stats%s = %s, want %d pending mentions", tt.query, body, tt.wantPending)
			}
		})
	}
}

// fakeWindows are rate-limit windows as the clients name them.
type fakeWindows []ratelimit.Window

func (f fakeWindows) Windows(context.Context) ([]ratelimit.Window, error) { return f, nil }
func (f fakeWindows) Margin() int                                         { return 0 }

// The spend view names each line's and each window's platform and breaks
// the spend and the windows down by platform: X costs money, Bluesky has
// windows but no fee, the model's windows belong to no platform.
func TestSpendByPlatform(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(10 * time.Minute)
	windows := fakeWindows{
		{Endpoint: "GET /2/tweets/search/recent", Limit: 60, Remaining: 59, ResetAt: reset},
		{Endpoint: "POST /2/tweets (24h user)", Limit: 100, Remaining: 0, ResetAt: reset},
		{Endpoint: "bluesky app.bsky.notification.listNotifications", Limit: 3000, Remaining: 0, ResetAt: reset},
		{Endpoint: "model gpt-4o-mini (requests)", Limit: 500, Remaining: 499, ResetAt: reset},
	}
	e := setupWith(t, func(c *api.Config) {
		c.Platform, c.Platforms, c.Windows = "x", []string{"bluesky", "x"}, windows
	})
	if _, err := e.store.RecordXCall(context.Background(), spend.XCall{At: time.Now(), Endpoint: "GET /2/tweets/search/recent",
		Kind: "post_read", ResourceIDs: []string{"1", "2"}, UnitUSD: 0.005}); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/spend", e.token, "")
	if status != 200 {
		t.Fatalf("spend: %d %s", status, body)
	}
	var s struct {
		ByEndpoint []struct{ Platform, Endpoint string } `json:"by_endpoint"`
		Windows    []struct{ Platform, Endpoint string } `json:"windows"`
		ByPlatform []struct {
			Platform      string  `json:"platform"`
			TodayUSD      float64 `json:"today_usd"`
			MonthUSD      float64 `json:"month_usd"`
			Calls         int     `json:"calls"`
			Windows       int     `json:"windows"`
			WindowsClosed int     `json:"windows_closed"`
		} `json:"by_platform"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.ByEndpoint) != 1 || s.ByEndpoint[0].Platform != "x" {
		t.Errorf("by_endpoint %+v, want X's line", s.ByEndpoint)
	}
	var windowsOf []string
	for _, w := range s.Windows {
		windowsOf = append(windowsOf, w.Platform+"|"+w.Endpoint)
	}
	slices.Sort(windowsOf)
	wantWindows := []string{"bluesky|bluesky app.bsky.notification.listNotifications",
		"x|GET /2/tweets/search/recent", "x|POST /2/tweets (24h user)", "|model gpt-4o-mini (requests)"}
	if !slices.Equal(windowsOf, wantWindows) {
		t.Errorf("windows %v, want %v", windowsOf, wantWindows)
	}
	got := fmt.Sprintf("%+v", s.ByPlatform)
	want := "[{Platform:bluesky TodayUSD:0 MonthUSD:0 Calls:0 Windows:1 WindowsClosed:1} " +
		"{Platform:x TodayUSD:0.01 MonthUSD:0.01 Calls:1 Windows:2 WindowsClosed:1}]"
	if got != want {
		t.Errorf("by_platform %s, want %s", got, want)
	}
}

// The public figures keep their totals over every platform and add each
// platform's, unchanged in shape otherwise.
func TestPublicStatsByPlatform(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.onPlatform(post.XPlatform, "m1", post.SourceMention)
	e.onPlatform(post.BlueskyPlatform, "m2", post.SourceMention)
	posted := e.onPlatform(post.BlueskyPlatform, "m3", post.SourceMention)
	if _, err := e.decide().Approve(ctx, posted, decision.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.MarkPosted(ctx, posted, "r3", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.decide().Reject(ctx, e.onPlatform(post.XPlatform, "m4", post.SourceMention), nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/public/stats", "", "")
	if status != 200 {
		t.Fatalf("stats: %d %s", status, body)
	}
	type figures struct {
		PostedSins         int     `json:"posted_sins"`
		PendingSins        int     `json:"pending_sins"`
		SuccessRate        float64 `json:"success_rate"`
		MortalInteractions struct {
			TotalMentions int `json:"total_mentions"`
			TotalReplies  int `json:"total_replies"`
			Mentions24h   int `json:"mentions_24h"`
			Replies24h    int `json:"replies_24h"`
		} `json:"mortal_interactions"`
	}
	var out struct {
		Stats struct {
			figures
			ByPlatform map[string]figures `json:"by_platform"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	total := out.Stats.figures
	if total.PostedSins != 1 || total.PendingSins != 2 || total.SuccessRate != 50 || total.MortalInteractions.TotalMentions != 4 {
		t.Errorf("totals %+v, want every platform's", total)
	}
	x, bsky := out.Stats.ByPlatform["x"], out.Stats.ByPlatform["bluesky"]
	if len(out.Stats.ByPlatform) != 2 || x.PendingSins != 1 || x.PostedSins != 0 || x.SuccessRate != 0 ||
		x.MortalInteractions.TotalMentions != 2 || bsky.PostedSins != 1 || bsky.PendingSins != 1 || bsky.SuccessRate != 100 ||
		bsky.MortalInteractions.TotalReplies != 1 || bsky.MortalInteractions.Replies24h != 1 {
		t.Errorf("by_platform %+v", out.Stats.ByPlatform)
	}
	if !strings.Contains(body, `"categories"`) || !strings.Contains(body, `"engagement"`) {
		t.Errorf("the existing fields are gone: %s", body)
	}
}

// GET /api/platforms serves the table of platforms without a login: each
// platform's name, label, limit, length rule and post URL pattern, how the
// settings write its accounts and its own options, marked running when
// PLATFORM names it; any other method is a 405.
func TestPlatformTable(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) { c.Platform, c.Platforms = "x", []string{"x", "bluesky"} })
	status, body := e.do("GET", "/api/platforms", "", "")
	if status != 200 {
		t.Fatalf("GET /api/platforms: %d %s", status, body)
	}
	var out struct {
		Platforms []struct {
			Name, Label, LengthRule, PostURLPattern string
			MaxLength                               int
			Running, Simulated                      bool
			AccountHint                             string `json:"account_hint"`
			Options                                 []struct{ Key, Label, Hint string }
		} `json:"platforms"`
	}
	if err := json.Unmarshal([]byte(strings.NewReplacer(`"length_rule"`, `"LengthRule"`, `"post_url_pattern"`, `"PostURLPattern"`, `"max_length"`, `"MaxLength"`).Replace(body)), &out); err != nil {
		t.Fatal(err)
	}
	want := post.Descriptors()
	if len(out.Platforms) != len(want) {
		t.Fatalf("platforms %s, want %d", body, len(want))
	}
	for i, d := range want {
		got := out.Platforms[i]
		running := d.Name == "x" || d.Name == "bluesky"
		if got.Name != d.Name || got.Label != d.Label || got.MaxLength != d.MaxLength || got.LengthRule != string(d.Length) ||
			got.PostURLPattern != d.PostURLPattern || got.Running != running || got.Simulated != d.Simulated {
			t.Errorf("platform %d = %+v, want %+v running %v", i, got, d, running)
		}
		if wantHint := post.DescriptorOf(d.AccountSyntax).AccountHint; got.AccountHint != wantHint || wantHint == "" {
			t.Errorf("%s: account_hint %q, want %q", d.Name, got.AccountHint, wantHint)
		}
		if len(got.Options) != len(d.Options) {
			t.Errorf("%s: options %+v, want %+v", d.Name, got.Options, d.Options)
		}
		for j, o := range d.Options {
			if j < len(got.Options) && (got.Options[j].Key != o.Key || got.Options[j].Label != o.Label || got.Options[j].Hint != o.Hint || o.Hint == "") {
				t.Errorf("%s: option %d = %+v, want %+v", d.Name, j, got.Options[j], o)
			}
		}
	}
	// The sandbox writes its accounts as X does; Mastodon has its choice of direct mentions.
	if !strings.Contains(body, `"name":"sandbox","label":"Sandbox"`) || !strings.Contains(body, `"options":[{"key":"reply_to_direct","label":"Answer direct mentions"`) {
		t.Errorf("table %s", body)
	}
	if status, _ := e.do("POST", "/api/platforms", "", "{}"); status != 405 {
		t.Errorf("POST /api/platforms: %d, want 405", status)
	}
}

// A post whose platform PLATFORM does not name (left over after PLATFORM
// changed) is listed, marked as on a platform that is not running; an
// approval, an edit or a regeneration of it is a 409 naming the platform,
// while a reject takes it away; the running platform's posts are decided
// as ever.
func TestDecisionOnAPlatformNotRunning(t *testing.T) {
	t.Parallel()
	e := setup(t) // PLATFORM=sandbox
	stale := e.onPlatform(post.XPlatform, "s1", post.SourceMention)
	own := e.onPlatform(post.SandboxPlatform, "o1", post.SourceMention)
	const want = "the post is on x, a platform that is not running (PLATFORM does not name it)"
	tests := []struct{ path, body string }{
		{path: "approve", body: `{}`},
		{path: "approve", body: `{"response":"burn differently","override":true}`},
		{path: "edit", body: `{"response":"burn differently"}`},
		{path: "regenerate", body: `{"instruction":"shorter"}`},
	}
	for _, tt := range tests {
		status, body := e.do("POST", fmt.Sprintf("/api/posts/%d/%s", stale, tt.path), e.token, tt.body)
		if status != 409 || errorOf(t, body) != want {
			t.Errorf("%s %s: %d %s, want 409 %q", tt.path, tt.body, status, body, want)
		}
	}
	status, body := e.do("GET", "/api/posts/mentions?page=1", e.token, "")
	var list struct {
		Posts []struct {
			ID              int64  `json:"id"`
			Status          string `json:"status"`
			PlatformRunning bool   `json:"platform_running"`
		} `json:"posts"`
	}
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil {
		t.Fatalf("list: %d %s", status, body)
	}
	for _, p := range list.Posts {
		if p.Status != "pending" || p.PlatformRunning != (p.ID == own) {
			t.Errorf("post %d is %s running %v, want pending and running only for %d", p.ID, p.Status, p.PlatformRunning, own)
		}
	}
	if status, body := e.do("POST", fmt.Sprintf("/api/posts/%d/approve", own), e.token, `{}`); status != 200 {
		t.Errorf("approve the sandbox's post: %d %s", status, body)
	}
	if status, body := e.do("POST", fmt.Sprintf("/api/posts/%d/reject", stale), e.token, `{}`); status != 200 {
		t.Errorf("reject the stale post: %d %s", status, body)
	}
}
