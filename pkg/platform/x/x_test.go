package x

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"infernal/pkg/platform"
)

// Credentials of the fake account; the secrets hold characters that OAuth
// must percent-encode.
const (
	testKey         = "xvz1evFS4wEEPTGEFPHBog"
	testSecret      = "c0nsumer&secret/+=~ü"
	testToken       = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
	testTokenSecret = "t0ken secret%!*"
)

// recorded is one request the fake server accepted.
type recorded struct {
	Method string
	Path   string
	Query  url.Values
	Raw    string
	Body   []byte
}

// fakeX is a local X API v2: it checks every request's OAuth 1.0a signature
// and User-Agent, refusing bad ones with X's 401 problem, then hands the
// request to the test's handler.
type fakeX struct {
	srv     *httptest.Server
	handler http.HandlerFunc

	mu   sync.Mutex
	reqs []recorded
}

func newFakeX(t *testing.T, h http.HandlerFunc) *fakeX {
	t.Helper()
	f := &fakeX{handler: h}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeX) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, `{"title":"Invalid Request","detail":"unreadable body","type":"about:blank","status":400}`)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := verifyOAuth(r, body, testKey, testSecret, testToken, testTokenSecret); err != nil {
		w.Header().Set("x-test-oauth-error", err.Error())
		writeJSON(w, http.StatusUnauthorized, `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`)
		return
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "infernal-x/") {
		writeJSON(w, http.StatusForbidden, `{"title":"Forbidden","type":"about:blank","status":403,"detail":"no user agent `+ua+`"}`)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Raw: r.URL.RawQuery, Body: body})
	f.mu.Unlock()
	f.handler(w, r)
}

func (f *fakeX) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func (f *fakeX) client(t *testing.T) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body) // a client that hung up is the test's own failure, reported there
}

// pager answers path with pages[token], where token is the value of the
// tokenParam query parameter ("" for the first page).
func pager(t *testing.T, path, tokenParam string, pages map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != path {
			t.Errorf("request %s %s, want GET %s", r.Method, r.URL.Path, path)
		}
		body, ok := pages[r.URL.Query().Get(tokenParam)]
		if !ok {
			writeJSON(w, http.StatusBadRequest, `{"errors":[{"parameters":{"`+tokenParam+`":["bad"]},"message":"The `+"`"+tokenParam+"`"+` query parameter value [bad] is not valid"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`)
			return
		}
		writeJSON(w, http.StatusOK, body)
	}
}

// perr extracts the *platform.Error from err, failing the test without one.
func perr(t *testing.T, err error) *platform.Error {
	t.Helper()
	var pe *platform.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *platform.Error", err, err)
	}
	return pe
}

// Fixtures in the shape X API v2 documents.
const (
	mentionsPage1 = `{
  "data": [
    {"id": "1800000000000000003", "text": "@persona you &amp; me &lt;3", "author_id": "111",
     "conversation_id": "1800000000000000001", "created_at": "2024-06-10T12:00:03.000Z", "lang": "en",
     "edit_history_tweet_ids": ["1800000000000000003"],
     "public_metrics": {"retweet_count": 1, "reply_count": 2, "like_count": 3, "quote_count": 4, "bookmark_count": 0, "impression_count": 99},
     "referenced_tweets": [{"type": "quoted", "id": "1700000000000000000"}, {"type": "replied_to", "id": "1800000000000000001"}],
     "attachments": {"media_keys": ["3_1800000000000000003", "3_1800000000000000004", "3_unknown"]},
     "entities": {"urls": [
       {"start": 20, "end": 43, "url": "https://t.co/img", "expanded_url": "https://x.com/ann/status/1800000000000000003/photo/1", "media_key": "3_1800000000000000003"},
       {"start": 44, "end": 67, "url": "https://t.co/q", "expanded_url": "https://x.com/cy/status/1700000000000000000"},
       {"start": 68, "end": 91, "url": "https://t.co/abc", "expanded_url": "https://bit.ly/pit", "unwound_url": "https://pit.example/hours",
        "title": "The pit's hours", "description": "Open all night."}]}},
    {"id": "1800000000000000002", "text": "@persona hello", "author_id": "222",
     "conversation_id": "1800000000000000002", "created_at": "2024-06-10T12:00:02.000Z", "lang": "pt-br",
     "public_metrics": {"retweet_count": 0, "reply_count": 0, "like_count": 1, "quote_count": 0}}
  ],
  "includes": {
    "users": [
      {"id": "111", "name": "Ann", "username": "ann", "profile_image_url": "https://pbs.twimg.com/profile_images/1/ann_normal.jpg"},
      {"id": "222", "name": "Bob", "username": "bob"}
    ],
    "media": [{"media_key": "3_1800000000000000003", "type": "photo", "url": "https://pbs.twimg.com/media/a.jpg", "alt_text": "a cat on fire"},
      {"media_key": "3_1800000000000000004", "type": "photo", "url": "https://pbs.twimg.com/media/b.jpg"}]
  },
  "meta": {"result_count": 2, "newest_id": "1800000000000000003", "oldest_id": "1800000000000000002", "next_token": "7140dibdnow9c7btw3w29grvxfcgvpb9n9coehpk7xz5i"}
}`
	mentionsPage2 = `{
  "data": [
    {"id": "1800000000000000001", "text": "@persona watch this", "author_id": "333",
     "conversation_id": "1800000000000000001", "created_at": "2024-06-10T12:00:01Z", "lang": "und",
     "referenced_tweets": [{"type": "quoted", "id": "999"}],
     "attachments": {"media_keys": ["7_1"]}}
  ],
  "includes": {
    "users": [{"id": "333", "name": "Cy", "username": "cy"}],
    "media": [{"media_key": "7_1", "type": "video", "preview_image_url": "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/v.jpg"}]
  },
  "errors": [{"value": "999", "detail": "Could not find tweet with referenced_tweets.id: [999].", "title": "Not Found Error",
    "resource_type": "tweet", "parameter": "referenced_tweets.id", "resource_id": "999", "type": "https://api.twitter.com/2/problems/resource-not-found"}],
  "meta": {"result_count": 1, "newest_id": "1800000000000000001", "oldest_id": "1800000000000000001"}
}`
	emptyTimeline = `{"meta": {"result_count": 0}}`
)

var (
	postAnn = platform.Post{
		ID: "1800000000000000003", ConversationID: "1800000000000000001", InReplyToID: "1800000000000000001",
		Text:      "@persona you & me <3",
		Language:  "en",
		Author:    platform.User{ID: "111", Username: "ann", Name: "Ann", ProfileImage: "https://pbs.twimg.com/profile_images/1/ann_normal.jpg"},
		CreatedAt: time.Date(2024, 6, 10, 12, 0, 3, 0, time.UTC),
		MediaURL:  "https://pbs.twimg.com/media/a.jpg",
		Metrics:   platform.Metrics{Likes: 3, Retweets: 1, Replies: 2},
		QuotedID:  "1700000000000000000",
		Media: []platform.Media{{Type: platform.MediaPhoto, URL: "https://pbs.twimg.com/media/a.jpg", Alt: "a cat on fire"},
			{Type: platform.MediaPhoto, URL: "https://pbs.twimg.com/media/b.jpg"}},
		Link: &platform.Link{URL: "https://pit.example/hours", Title: "The pit's hours", Description: "Open all night."},
	}
	postBob = platform.Post{
		ID: "1800000000000000002", ConversationID: "1800000000000000002",
		Text:      "@persona hello",
		Language:  "pt-BR",
		Author:    platform.User{ID: "222", Username: "bob", Name: "Bob"},
		CreatedAt: time.Date(2024, 6, 10, 12, 0, 2, 0, time.UTC),
		Metrics:   platform.Metrics{Likes: 1},
	}
	postCy = platform.Post{
		ID: "1800000000000000001", ConversationID: "1800000000000000001",
		Text:      "@persona watch this",
		Author:    platform.User{ID: "333", Username: "cy", Name: "Cy"},
		CreatedAt: time.Date(2024, 6, 10, 12, 0, 1, 0, time.UTC),
		MediaURL:  "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/v.jpg",
		QuotedID:  "999",
		Media:     []platform.Media{{Type: platform.MediaVideo, PreviewURL: "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/v.jpg"}},
	}
)

func TestNew(t *testing.T) {
	t.Parallel()
	full := Config{APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"}
	with := func(f func(*Config)) Config { c := full; f(&c); return c }
	tests := []struct {
		name     string
		cfg      Config
		want     string // base URL kept
		wantErrs []string
	}{
		{name: "default base URL", cfg: full, want: "https://api.x.com"},
		{name: "custom base URL trailing slash", cfg: with(func(c *Config) { c.BaseURL = "http://127.0.0.1:9/xapi/" }), want: "http://127.0.0.1:9/xapi"},
		{name: "missing api key", cfg: with(func(c *Config) { c.APIKey = "" }), wantErrs: []string{"x: config", "APIKey"}},
		{name: "missing secrets", cfg: with(func(c *Config) { c.APISecret = " "; c.AccessSecret = "" }), wantErrs: []string{"APISecret", "AccessSecret"}},
		{name: "missing token", cfg: with(func(c *Config) { c.AccessToken = "" }), wantErrs: []string{"AccessToken"}},
		{name: "not http", cfg: with(func(c *Config) { c.BaseURL = "ftp://api.x.com" }), wantErrs: []string{"BaseURL"}},
		{name: "no host", cfg: with(func(c *Config) { c.BaseURL = "api.x.com" }), wantErrs: []string{"BaseURL"}},
		{name: "unparsable", cfg: with(func(c *Config) { c.BaseURL = "http://[::1" }), wantErrs: []string{"BaseURL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatal("New succeeded, want an error")
				}
				for _, s := range tt.wantErrs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.base != tt.want {
				t.Errorf("base = %q, want %q", c.base, tt.want)
			}
			if c.Name() != "x" {
				t.Errorf("Name() = %q, want x", c.Name())
			}
		})
	}
}

func TestNewUsesGivenHTTPClient(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"data":{"id":"1","name":"P","username":"p"}}`)
	})
	var n atomic.Int32
	hc := &http.Client{Timeout: 5 * time.Second, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Me(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("given transport used %d times, want 1", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestMe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		body       string
		want       platform.User
		wantStatus int // of the *platform.Error, 0 for success
		wantErr    bool
	}{
		{
			name:   "ok",
			status: 200,
			body:   `{"data":{"id":"2244994945","name":"Persona","username":"persona","profile_image_url":"https://pbs.twimg.com/p.jpg"}}`,
			want:   platform.User{ID: "2244994945", Username: "persona", Name: "Persona", ProfileImage: "https://pbs.twimg.com/p.jpg"},
		},
		{name: "unauthorized problem", status: 401, body: `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`, wantStatus: 401, wantErr: true},
		{name: "no data", status: 200, body: `{}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/2/users/me" || r.URL.Query().Get("user.fields") == "" {
					t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
				}
				writeJSON(w, tt.status, tt.body)
			})
			got, err := f.client(t).Me(t.Context())
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Me = %+v, want an error", got)
				}
				if tt.wantStatus != 0 && perr(t, err).Status != tt.wantStatus {
					t.Errorf("status = %d, want %d", perr(t, err).Status, tt.wantStatus)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Me = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// checkTimelineQuery fails unless q asks for every field a Post needs.
func checkTimelineQuery(t *testing.T, q url.Values) {
	t.Helper()
	for k, want := range map[string]string{
		"tweet.fields": "created_at,conversation_id,public_metrics,referenced_tweets,attachments,entities,lang",
		"expansions":   "author_id,attachments.media_keys",
		"user.fields":  "username,name,profile_image_url",
		"media.fields": "type,url,preview_image_url,alt_text",
	} {
		for f := range strings.SplitSeq(want, ",") {
			if !strings.Contains(","+q.Get(k)+",", ","+f+",") {
				t.Errorf("%s = %q lacks %s", k, q.Get(k), f)
			}
		}
	}
	if n, err := strconv.Atoi(q.Get("max_results")); err != nil || n < 10 || n > 100 {
		t.Errorf("max_results = %q, want 10..100", q.Get("max_results"))
	}
}

func TestTimelines(t *testing.T) {
	t.Parallel()
	type call func(ctx context.Context, c *Client) (platform.Page, error)
	mentions := func(since string) call {
		return func(ctx context.Context, c *Client) (platform.Page, error) {
			return c.Mentions(ctx, "2244994945", platform.Range{SinceID: since})
		}
	}
	tests := []struct {
		name       string
		call       call
		path       string
		tokenParam string
		pages      map[string]string
		want       platform.Page
		wantSince  string
		wantReqs   int
	}{
		{
			name: "mentions two pages with includes and partial errors", call: mentions(""),
			path: "/2/users/2244994945/mentions", tokenParam: "pagination_token",
			pages:    map[string]string{"": mentionsPage1, "7140dibdnow9c7btw3w29grvxfcgvpb9n9coehpk7xz5i": mentionsPage2},
			want:     platform.Page{Posts: []platform.Post{postAnn, postBob, postCy}, NewestID: "1800000000000000003", OldestID: "1800000000000000001"},
			wantReqs: 2,
		},
		{
			name: "mentions since cursor, nothing new", call: mentions("1800000000000000003"),
			path: "/2/users/2244994945/mentions", tokenParam: "pagination_token",
			pages: map[string]string{"": emptyTimeline}, want: platform.Page{},
			wantSince: "1800000000000000003", wantReqs: 1,
		},
		{
			name: "newest id computed when meta lacks it, posts sorted newest first",
			call: mentions("1"), path: "/2/users/2244994945/mentions", tokenParam: "pagination_token",
			pages: map[string]string{"": `{"data":[
				{"id":"9","text":"nine","author_id":"5"},
				{"id":"10","text":"ten","author_id":"5"}],
				"includes":{"users":[{"id":"5","name":"E","username":"e"}]}}`},
			want: platform.Page{NewestID: "10", OldestID: "9", Posts: []platform.Post{
				{ID: "10", Text: "ten", Author: platform.User{ID: "5", Username: "e", Name: "E"}},
				{ID: "9", Text: "nine", Author: platform.User{ID: "5", Username: "e", Name: "E"}},
			}},
			wantSince: "1", wantReqs: 1,
		},
		{
			name: "author missing from includes keeps its id",
			call: mentions(""), path: "/2/users/2244994945/mentions", tokenParam: "pagination_token",
			pages:    map[string]string{"": `{"data":[{"id":"3","text":"t","author_id":"77","created_at":"not a time"}],"meta":{"result_count":1,"newest_id":"3"}}`},
			want:     platform.Page{NewestID: "3", OldestID: "3", Posts: []platform.Post{{ID: "3", Text: "t", Author: platform.User{ID: "77"}}}},
			wantReqs: 1,
		},
		{
			name: "search uses next_token",
			call: func(ctx context.Context, c *Client) (platform.Page, error) {
				return c.Search(ctx, `(#sin OR "deadly sins") -is:retweet lang:en ☃ a+b`, platform.Range{SinceID: "1700000000000000000"})
			},
			path: "/2/tweets/search/recent", tokenParam: "next_token",
			pages:     map[string]string{"": mentionsPage1, "7140dibdnow9c7btw3w29grvxfcgvpb9n9coehpk7xz5i": mentionsPage2},
			want:      platform.Page{Posts: []platform.Post{postAnn, postBob, postCy}, NewestID: "1800000000000000003", OldestID: "1800000000000000001"},
			wantSince: "1700000000000000000", wantReqs: 2,
		},
		{
			name: "user posts",
			call: func(ctx context.Context, c *Client) (platform.Page, error) {
				return c.UserPosts(ctx, "222", platform.Range{SinceID: "1800000000000000001"})
			},
			path: "/2/users/222/tweets", tokenParam: "pagination_token",
			pages: map[string]string{"": `{"data":[{"id":"1800000000000000002","text":"@persona hello","author_id":"222","conversation_id":"1800000000000000002","created_at":"2024-06-10T12:00:02.000Z","lang":"pt-BR","public_metrics":{"like_count":1}}],
				"includes":{"users":[{"id":"222","name":"Bob","username":"bob"}]},
				"meta":{"result_count":1,"newest_id":"1800000000000000002","oldest_id":"1800000000000000002"}}`},
			want:      platform.Page{Posts: []platform.Post{postBob}, NewestID: "1800000000000000002", OldestID: "1800000000000000002"},
			wantSince: "1800000000000000001", wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, pager(t, tt.path, tt.tokenParam, tt.pages))
			got, err := tt.call(t.Context(), f.client(t))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("page =\n%+v\nwant\n%+v", got, tt.want)
			}
			reqs := f.requests()
			if len(reqs) != tt.wantReqs {
				t.Errorf("%d requests, want %d", len(reqs), tt.wantReqs)
			}
			for _, r := range reqs {
				checkTimelineQuery(t, r.Query)
				if got := r.Query.Get("since_id"); got != tt.wantSince {
					t.Errorf("since_id = %q, want %q", got, tt.wantSince)
				}
			}
		})
	}
}

func TestSearchQueryEncoding(t *testing.T) {
	t.Parallel()
	const query = `(#sin OR "deadly sins") -is:retweet lang:en ☃ a+b&c=d`
	f := newFakeX(t, pager(t, "/2/tweets/search/recent", "next_token", map[string]string{"": emptyTimeline}))
	if _, err := f.client(t).Search(t.Context(), query, platform.Range{}); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if got := r.Query.Get("query"); got != query {
		t.Errorf("server read query %q, want %q", got, query)
	}
	if strings.Contains(r.Raw, "+") {
		t.Errorf("raw query %q encodes a space or plus as +, want %%20 / %%2B", r.Raw)
	}
}

func TestSearchStaleSinceID(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("since_id") {
			writeJSON(w, 400, `{"errors":[{"parameters":{"since_id":["1"]},"message":"Invalid 'since_id':'1'. 'since_id' must be a tweet id created after 2024-06-03T12:00Z. Please use a 'since_id' that is larger than 1797000000000000000"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`)
			return
		}
		writeJSON(w, 200, mentionsPage2)
	})
	got, err := f.client(t).Search(t.Context(), "sins", platform.Range{SinceID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	want := platform.Page{Posts: []platform.Post{postCy}, NewestID: postCy.ID, OldestID: postCy.ID}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("page = %+v, want %+v", got, want)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestPaginationIsBounded(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		writeJSON(w, 200, fmt.Sprintf(`{"data":[{"id":"%d","text":"p"}],"meta":{"result_count":1,"next_token":"t%d"}}`, 1000-i, i))
	})
	page, err := f.client(t).Mentions(t.Context(), "1", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.requests()); got != maxPages {
		t.Errorf("%d requests, want %d", got, maxPages)
	}
	if len(page.Posts) != maxPages || page.NewestID != "999" || page.OldestID != "995" || !page.More {
		t.Errorf("page = %+v, want %d posts, newest 999, oldest 995, more", page, maxPages)
	}
}

func TestTimelineErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		body          string
		wantStatus    int
		wantTemporary bool
		wantIn        string
	}{
		{name: "garbage json", status: 200, body: `{"data": [ {"id": `, wantTemporary: true, wantIn: "decode"},
		{name: "html from a proxy", status: 200, body: `<html>oops</html>`, wantTemporary: true, wantIn: "decode"},
		{name: "only errors", status: 200, body: `{"errors":[{"value":"1","detail":"Could not find user with id: [1].","title":"Not Found Error","resource_type":"user","parameter":"id","resource_id":"1","type":"https://api.twitter.com/2/problems/resource-not-found"}]}`, wantStatus: 404, wantIn: "Could not find user"},
		{name: "service unavailable", status: 503, body: `{"title":"Service Unavailable","detail":"Service Unavailable","type":"about:blank","status":503}`, wantStatus: 503, wantTemporary: true, wantIn: "Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tt.status, tt.body) })
			_, err := f.client(t).Mentions(t.Context(), "1", platform.Range{})
			if err == nil {
				t.Fatal("Mentions succeeded, want an error")
			}
			if !strings.HasPrefix(err.Error(), "x: ") || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q, want prefix x: and %q", err, tt.wantIn)
			}
			if tt.wantStatus != 0 && perr(t, err).Status != tt.wantStatus {
				t.Errorf("status %d, want %d", perr(t, err).Status, tt.wantStatus)
			}
			if got := platform.Temporary(err); got != tt.wantTemporary {
				t.Errorf("Temporary = %v, want %v", got, tt.wantTemporary)
			}
		})
	}
}

func TestUserByUsername(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		username   string
		status     int
		body       string
		wantPath   string
		want       platform.User
		wantStatus int // of the refusal; 0 for success
		wantIn     string
	}{
		{
			name: "found, @ stripped", username: "@XDevelopers", status: 200,
			body:     `{"data":{"id":"2244994945","name":"X Developers","username":"XDevelopers","profile_image_url":"https://pbs.twimg.com/x.jpg"}}`,
			wantPath: "/2/users/by/username/XDevelopers",
			want:     platform.User{ID: "2244994945", Username: "XDevelopers", Name: "X Developers", ProfileImage: "https://pbs.twimg.com/x.jpg"},
		},
		{
			name: "partial errors only means not found", username: "nobody_here", status: 200,
			body:     `{"errors":[{"value":"nobody_here","detail":"Could not find user with username: [nobody_here].","title":"Not Found Error","resource_type":"user","parameter":"username","resource_id":"nobody_here","type":"https://api.twitter.com/2/problems/resource-not-found"}]}`,
			wantPath: "/2/users/by/username/nobody_here", wantStatus: 404, wantIn: "Could not find user with username: [nobody_here]",
		},
		{
			name: "suspended", username: "gone", status: 200,
			body:     `{"errors":[{"value":"gone","detail":"User has been suspended: [gone].","title":"Forbidden","resource_type":"user","parameter":"username","resource_id":"gone","type":"https://api.twitter.com/2/problems/resource-unavailable"}]}`,
			wantPath: "/2/users/by/username/gone", wantStatus: 403, wantIn: "suspended",
		},
		{name: "empty answer", username: "ghost", status: 200, body: `{}`, wantPath: "/2/users/by/username/ghost", wantStatus: 404, wantIn: "not found"},
		{name: "empty username refused before sending", username: " @", wantStatus: 400, wantIn: "username is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tt.status, tt.body) })
			got, err := f.client(t).UserByUsername(t.Context(), tt.username)
			reqs := f.requests()
			if tt.wantPath != "" && (len(reqs) != 1 || reqs[0].Path != tt.wantPath) {
				t.Errorf("requests %+v, want one to %s", reqs, tt.wantPath)
			}
			if tt.wantStatus != 0 {
				if err == nil {
					t.Fatalf("UserByUsername = %+v, want an error", got)
				}
				pe := perr(t, err)
				if pe.Status != tt.wantStatus || !strings.Contains(err.Error(), tt.wantIn) {
					t.Errorf("error %q (status %d), want status %d and %q", err, pe.Status, tt.wantStatus, tt.wantIn)
				}
				if platform.Temporary(err) {
					t.Error("Temporary = true, want a final refusal")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("user = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPublish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		text      string
		inReplyTo string
		status    int
		body      string
		wantBody  string
		want      platform.Post
	}{
		{
			name: "reply answered 201", text: "Your pride & joy <3", inReplyTo: "1800000000000000003",
			status: 201, body: `{"data":{"id":"1800000000000000009","text":"Your pride &amp; joy &lt;3","edit_history_tweet_ids":["1800000000000000009"]}}`,
			wantBody: `{"text":"Your pride & joy <3","reply":{"in_reply_to_tweet_id":"1800000000000000003"}}`,
			want:     platform.Post{ID: "1800000000000000009", InReplyToID: "1800000000000000003", Text: "Your pride & joy <3"},
		},
		{
			name: "standalone has no reply field", text: "Seven sins, one feed.",
			status: 201, body: `{"data":{"id":"1800000000000000010","text":"Seven sins, one feed."}}`,
			wantBody: `{"text":"Seven sins, one feed."}`,
			want:     platform.Post{ID: "1800000000000000010", Text: "Seven sins, one feed."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/2/tweets" || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("request %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
				}
				writeJSON(w, tt.status, tt.body)
			})
			before := time.Now().Add(-time.Second)
			got, err := f.client(t).Publish(t.Context(), tt.text, tt.inReplyTo)
			if err != nil {
				t.Fatal(err)
			}
			if got.CreatedAt.Before(before) {
				t.Errorf("CreatedAt = %v, want about now", got.CreatedAt)
			}
			got.CreatedAt = time.Time{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("post = %+v, want %+v", got, tt.want)
			}
			var gotBody, wantBody any
			if err := json.Unmarshal(f.requests()[0].Body, &gotBody); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.wantBody), &wantBody); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotBody, wantBody) {
				t.Errorf("body %s, want %s", f.requests()[0].Body, tt.wantBody)
			}
		})
	}
}

// TestRefusals checks that X's refusals come back in X's words, with the
// right retry semantics, on a POST (the request that matters most).
func TestRefusals(t *testing.T) {
	t.Parallel()
	reset := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name          string
		status        int
		header        map[string]string
		body          string
		want          platform.Error
		wantTemporary bool
		wantRetryAt   bool
		wantIn        string
		wantRefusal   platform.Refusal
	}{
		{
			name: "duplicate content", status: 403, wantRefusal: platform.RefusalDuplicate,
			body:   `{"detail":"You are not allowed to create a Tweet with duplicate content.","type":"about:blank","title":"Forbidden","status":403}`,
			want:   platform.Error{Status: 403, Title: "Forbidden", Detail: "You are not allowed to create a Tweet with duplicate content."},
			wantIn: "x: publish: platform: 403 Forbidden: You are not allowed to create a Tweet with duplicate content.",
		},
		{
			name: "rate limited", status: 429,
			header:        map[string]string{"x-rate-limit-limit": "100", "x-rate-limit-remaining": "0", "x-rate-limit-reset": strconv.FormatInt(reset.Unix(), 10)},
			body:          `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`,
			want:          platform.Error{Status: 429, Title: "Too Many Requests", Detail: "Too Many Requests", RetryAt: reset},
			wantTemporary: true, wantRetryAt: true,
		},
		{
			name: "daily post cap spent waits for the daily reset", status: 429,
			header: map[string]string{"x-rate-limit-remaining": "10", "x-rate-limit-reset": strconv.FormatInt(reset.Unix(), 10),
				"x-user-limit-24hour-limit": "17", "x-user-limit-24hour-remaining": "0",
				"x-user-limit-24hour-reset": strconv.FormatInt(reset.Add(20*time.Hour).Unix(), 10)},
			body:          `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`,
			want:          platform.Error{Status: 429, Title: "Too Many Requests", Detail: "Too Many Requests", RetryAt: reset.Add(20 * time.Hour)},
			wantTemporary: true, wantRetryAt: true,
		},
		{
			name: "daily cap left keeps the window reset", status: 429,
			header: map[string]string{"x-rate-limit-reset": strconv.FormatInt(reset.Unix(), 10),
				"x-app-limit-24hour-remaining": "5", "x-app-limit-24hour-reset": strconv.FormatInt(reset.Add(20*time.Hour).Unix(), 10)},
			body:          `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`,
			want:          platform.Error{Status: 429, Title: "Too Many Requests", Detail: "Too Many Requests", RetryAt: reset},
			wantTemporary: true, wantRetryAt: true,
		},
		{
			name: "rate limited without reset", status: 429, body: `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`,
			want:          platform.Error{Status: 429, Title: "Too Many Requests", Detail: "Too Many Requests"},
			wantTemporary: true, wantRetryAt: true,
		},
		{
			name: "service unavailable", status: 503,
			body:          `{"title":"Service Unavailable","detail":"Service Unavailable","type":"about:blank","status":503}`,
			want:          platform.Error{Status: 503, Title: "Service Unavailable", Detail: "Service Unavailable"},
			wantTemporary: true,
		},
		{
			name: "invalid request lists the parameter errors", status: 400,
			body: `{"errors":[{"parameters":{"reply.in_reply_to_tweet_id":["x"]},"message":"$.reply.in_reply_to_tweet_id: string [x] does not match pattern ^[0-9]{1,19}$"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`,
			want: platform.Error{Status: 400, Title: "Invalid Request", Detail: "One or more parameters to your request was invalid. $.reply.in_reply_to_tweet_id: string [x] does not match pattern ^[0-9]{1,19}$",
				Type: "https://api.twitter.com/2/problems/invalid-request", Invalid: []string{"reply.in_reply_to_tweet_id"}},
		},
		{
			name: "reply not allowed (2026 rule)", status: 403, wantRefusal: platform.RefusalReplyNotAllowed,
			body: `{"detail":"You can only reply to or quote posts where you are mentioned or are the author.","type":"about:blank","title":"Forbidden","status":403}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "You can only reply to or quote posts where you are mentioned or are the author."},
		},
		{
			name: "reply not allowed (older words)", status: 403, wantRefusal: platform.RefusalReplyNotAllowed,
			body: `{"detail":"Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to.","type":"about:blank","title":"Forbidden","status":403}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to."},
		},
		{
			name: "original deleted", status: 403, wantRefusal: platform.RefusalOriginalGone,
			body: `{"detail":"You attempted to reply to a Tweet that is deleted or not visible to you.","type":"about:blank","title":"Forbidden","status":403}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "You attempted to reply to a Tweet that is deleted or not visible to you."},
		},
		{
			name: "account suspended", status: 403, wantRefusal: platform.RefusalSuspended,
			body: `{"errors":[{"message":"Your account is suspended and is not permitted to access this feature.","code":64}]}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "Your account is suspended and is not permitted to access this feature."},
		},
		{
			name: "account locked", status: 403, wantRefusal: platform.RefusalSuspended,
			body: `{"errors":[{"message":"This account is temporarily locked. Please log in to https://x.com to unlock your account.","code":326}]}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "This account is temporarily locked. Please log in to https://x.com to unlock your account."},
		},
		{
			name: "out of credits", status: 402, wantRefusal: platform.RefusalOutOfCredits,
			body: `{"title":"CreditsDepleted","detail":"Your enrolled account does not have any credits to fulfill this request.","type":"https://api.twitter.com/2/problems/credits-depleted","status":402}`,
			want: platform.Error{Status: 402, Title: "CreditsDepleted", Detail: "Your enrolled account does not have any credits to fulfill this request.",
				Type: "https://api.twitter.com/2/problems/credits-depleted"},
		},
		{
			name: "usage capped", status: 429, wantRefusal: platform.RefusalUsageCapped,
			header: map[string]string{"x-rate-limit-reset": strconv.FormatInt(reset.Unix(), 10)},
			body:   `{"title":"UsageCapExceeded","detail":"Usage cap exceeded: Monthly product cap","type":"https://api.twitter.com/2/problems/usage-capped","period":"Monthly","scope":"Product"}`,
			want: platform.Error{Status: 429, Title: "UsageCapExceeded", Detail: "Usage cap exceeded: Monthly product cap",
				Type: "https://api.twitter.com/2/problems/usage-capped", RetryAt: reset},
		},
		{
			name: "v1-style errors", status: 403,
			body: `{"errors":[{"message":"You are not permitted to perform this action.","code":261}]}`,
			want: platform.Error{Status: 403, Title: "Forbidden", Detail: "You are not permitted to perform this action."},
		},
		{
			name: "unauthorized", status: 401,
			body: `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`,
			want: platform.Error{Status: 401, Title: "Unauthorized", Detail: "Unauthorized"},
		},
		{
			name: "not json", status: 502, body: "<html><body>Bad Gateway</body></html>",
			// The page's words, on one line (upstream.Excerpt).
			want:          platform.Error{Status: 502, Title: "Bad Gateway", Detail: "Bad Gateway"},
			wantTemporary: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				writeJSON(w, tt.status, tt.body)
			})
			_, err := f.client(t).Publish(t.Context(), "Hello, mortal.", "1800000000000000003")
			if err == nil {
				t.Fatal("Publish succeeded, want an error")
			}
			if got := *perr(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("error = %+v, want %+v", got, tt.want)
			}
			if got := platform.Temporary(err); got != tt.wantTemporary {
				t.Errorf("Temporary = %v, want %v", got, tt.wantTemporary)
			}
			if got := platform.Classify(err); got != tt.wantRefusal {
				t.Errorf("Classify = %q, want %q", got, tt.wantRefusal)
			}
			at, ok := platform.RateLimited(err)
			if !tt.wantRetryAt {
				at = tt.want.RetryAt
			}
			if ok != tt.wantRetryAt || !at.Equal(tt.want.RetryAt) {
				t.Errorf("RateLimited = %v, %v; want %v, %v", at, ok, tt.want.RetryAt, tt.wantRetryAt)
			}
			if !strings.HasPrefix(err.Error(), "x: publish: ") || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("message %q, want prefix x: publish: and %q", err, tt.wantIn)
			}
		})
	}
}

func TestPublishBadAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		wantIn string
	}{
		{name: "garbage json", status: 201, body: `{"data":{"id":`, wantIn: "decode"},
		{name: "no id", status: 201, body: `{"data":{}}`, wantIn: "no post id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tt.status, tt.body) })
			_, err := f.client(t).Publish(t.Context(), "hi", "")
			if err == nil || !strings.HasPrefix(err.Error(), "x: publish: ") || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %v, want x: publish: ... %s", err, tt.wantIn)
			}
		})
	}
}

func TestFindPublished(t *testing.T) {
	t.Parallel()
	const (
		persona = "2244994945"
		mortal  = "1800000000000000050"
	)
	tweetJSON := func(id, text, replyTo string) string {
		ref := ""
		if replyTo != "" {
			ref = `,"referenced_tweets":[{"type":"replied_to","id":"` + replyTo + `"}]`
		}
		return `{"id":"` + id + `","text":"` + text + `","author_id":"` + persona + `","conversation_id":"` + id + `"` + ref + `}`
	}
	page := func(next string, tweets ...string) string {
		m := `"meta":{"result_count":` + strconv.Itoa(len(tweets))
		if next != "" {
			m += `,"next_token":"` + next + `"`
		}
		return `{"data":[` + strings.Join(tweets, ",") + `],"includes":{"users":[{"id":"` + persona + `","name":"Persona","username":"persona"}]},` + m + `}}`
	}
	tests := []struct {
		name      string
		inReplyTo string
		text      string
		pages     map[string]string
		want      string // id found, "" for none
		wantReqs  int
	}{
		{
			name: "reply on the second page", inReplyTo: mortal, text: "whatever",
			pages: map[string]string{
				"":   page("p2", tweetJSON("1800000000000000090", "later", ""), tweetJSON("1800000000000000080", "other", "1800000000000000001")),
				"p2": page("p3", tweetJSON("1800000000000000070", "got you", mortal), tweetJSON("1800000000000000060", "x", "")),
			},
			want: "1800000000000000070", wantReqs: 2,
		},
		{
			name: "reply absent, stops at posts older than the mortal's", inReplyTo: mortal, text: "hi",
			pages: map[string]string{
				"":   page("p2", tweetJSON("1800000000000000090", "later", ""), tweetJSON("1800000000000000040", "older", "")),
				"p2": page("", tweetJSON("1800000000000000030", "never read", mortal)),
			},
			wantReqs: 1,
		},
		{
			name: "standalone: a reply with the same text does not count", text: "Sins & virtues <3 https://example.com/sins ",
			pages: map[string]string{
				"": page("", tweetJSON("1800000000000000091", "Sins &amp; virtues &lt;3 https://t.co/AbCdEf", "1")),
			},
			wantReqs: 1,
		},
		{
			name: "standalone found, replies with the same text ignored", text: "Greed is good.",
			pages: map[string]string{
				"":   page("p2", tweetJSON("1800000000000000095", "Greed is good.", mortal)),
				"p2": page("", tweetJSON("1800000000000000094", "Greed is good.", "")),
			},
			want: "1800000000000000094", wantReqs: 2,
		},
		{
			name: "standalone match through escaping and t.co", text: "Sins & virtues <3 https://example.com/sins ",
			pages: map[string]string{
				"": page("", tweetJSON("1800000000000000092", "Sins &amp; virtues &lt;3 https://t.co/AbCdEf", "")),
			},
			want: "1800000000000000092", wantReqs: 1,
		},
		{
			name: "standalone absent after every page", text: "Sloth wins.",
			pages: map[string]string{
				"":   page("p2", tweetJSON("1800000000000000093", "Sloth loses.", "")),
				"p2": page("", tweetJSON("1800000000000000013", "Sloth.", "")),
			},
			wantReqs: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, pager(t, "/2/users/"+persona+"/tweets", "pagination_token", tt.pages))
			got, found, err := f.client(t).FindPublished(t.Context(), persona, tt.inReplyTo, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if found != (tt.want != "") || got.ID != tt.want {
				t.Errorf("FindPublished = %q, %v; want %q", got.ID, found, tt.want)
			}
			if found && (got.Author.Username != "persona" || got.InReplyToID != tt.inReplyTo) {
				t.Errorf("post = %+v, want author persona replying to %q", got, tt.inReplyTo)
			}
			reqs := f.requests()
			if len(reqs) != tt.wantReqs {
				t.Errorf("%d requests, want %d", len(reqs), tt.wantReqs)
			}
			for _, r := range reqs {
				checkTimelineQuery(t, r.Query)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	ids := make([]string, 0, 155)
	for i := range 150 {
		ids = append(ids, strconv.Itoa(1800000000000000000+i))
	}
	ids = append(ids, ids[3], "", ids[140]) // duplicates and blanks are asked once
	deleted := func(id string) bool { return strings.HasSuffix(id, "7") }

	tests := []struct {
		name      string
		ids       []string
		wantReqs  []int // ids per request
		wantCount int
	}{
		{name: "none asks nothing", ids: nil},
		{name: "batches of 100, deleted absent", ids: ids, wantReqs: []int{100, 50}, wantCount: 135},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/2/tweets" || !strings.Contains(r.URL.Query().Get("tweet.fields"), "public_metrics") {
					t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
				}
				var data, errs []string
				for id := range strings.SplitSeq(r.URL.Query().Get("ids"), ",") {
					n, _ := strconv.Atoi(id[len(id)-3:])
					if deleted(id) {
						errs = append(errs, `{"value":"`+id+`","detail":"Could not find tweet with ids: [`+id+`].","title":"Not Found Error","resource_type":"tweet","parameter":"ids","resource_id":"`+id+`","type":"https://api.twitter.com/2/problems/resource-not-found"}`)
						continue
					}
					data = append(data, fmt.Sprintf(`{"id":%q,"text":"t","edit_history_tweet_ids":[%[1]q],"public_metrics":{"retweet_count":%d,"reply_count":%d,"like_count":%d,"quote_count":0,"bookmark_count":0,"impression_count":0}}`, id, n, n+1, n+2))
				}
				writeJSON(w, 200, `{"data":[`+strings.Join(data, ",")+`],"errors":[`+strings.Join(errs, ",")+`]}`)
			})
			got, err := f.client(t).Metrics(t.Context(), tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for _, r := range f.requests() {
				sizes = append(sizes, len(strings.Split(r.Query.Get("ids"), ",")))
			}
			if !reflect.DeepEqual(sizes, tt.wantReqs) {
				t.Errorf("ids per request %v, want %v", sizes, tt.wantReqs)
			}
			if len(got) != tt.wantCount {
				t.Errorf("%d metrics, want %d", len(got), tt.wantCount)
			}
			for id, m := range got {
				n, _ := strconv.Atoi(id[len(id)-3:])
				if deleted(id) || m != (platform.Metrics{Retweets: n, Replies: n + 1, Likes: n + 2}) {
					t.Errorf("metrics[%s] = %+v", id, m)
				}
			}
		})
	}
}

func TestOAuthRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  func(*Config)
	}{
		{name: "wrong consumer secret", cfg: func(c *Config) { c.APISecret = "nope" }},
		{name: "wrong token secret", cfg: func(c *Config) { c.AccessSecret = "nope" }},
		{name: "wrong token", cfg: func(c *Config) { c.AccessToken = "1-other" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				t.Error("handler reached with a bad signature")
			})
			cfg := Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret}
			tt.cfg(&cfg)
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Me(t.Context())
			if pe := perr(t, err); pe.Status != 401 || pe.Title != "Unauthorized" || platform.Temporary(err) {
				t.Errorf("error %+v, want a final 401 Unauthorized", pe)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(t *testing.T) (base string, ctx context.Context)
		wantIs error
	}{
		{
			name: "server gone",
			setup: func(t *testing.T) (string, context.Context) {
				srv := httptest.NewServer(http.NotFoundHandler())
				srv.Close()
				return srv.URL, t.Context()
			},
		},
		{
			name: "context deadline",
			setup: func(t *testing.T) (string, context.Context) {
				release := make(chan struct{})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}))
				t.Cleanup(srv.Close)
				t.Cleanup(func() { close(release) }) // runs before Close
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				t.Cleanup(cancel)
				return srv.URL, ctx
			},
			wantIs: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, ctx := tt.setup(t)
			c, err := New(Config{BaseURL: base, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Publish(ctx, "hi", "")
			pe := perr(t, err)
			if pe.Status != 0 || pe.Err == nil || !platform.Temporary(err) {
				t.Errorf("error %+v, want status 0 with Err set, temporary", pe)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
		})
	}
}

func TestBodyIsBounded(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[{"id":"1","text":"`) // the client may stop reading at its cap
		chunk := strings.Repeat("a", 1<<16)
		for range (maxBodyBytes / len(chunk)) + 2 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}]}`)
	})
	_, err := f.client(t).Mentions(t.Context(), "1", platform.Range{})
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("error %v, want a too-large response", err)
	}
}

func TestIDOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "shorter decimal is older", a: "999", b: "1000", want: true},
		{name: "same length", a: "1800000000000000001", b: "1800000000000000002", want: true},
		{name: "newer is not older", a: "1000", b: "999", want: false},
		{name: "equal", a: "5", b: "5", want: false},
		{name: "leading zeros", a: "05", b: "10", want: true},
		{name: "decimal before other", a: "99", b: "1a", want: true},
		{name: "other by string", a: "a", b: "b", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := idLess(tt.a, tt.b); got != tt.want {
				t.Errorf("idLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestNormalizeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "entities", in: "a &amp; b &lt;c&gt;", want: "a & b <c>"},
		{name: "escaped entity stays literal", in: "&amp;lt;", want: "&lt;"},
		{name: "links and space", in: "  see\nhttps://t.co/x  now ", want: "see <link> now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalizeText(tt.in); got != tt.want {
				t.Errorf("normalizeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestRedirectsAreRefused: a 3xx from X is an error naming where it
// pointed, and the request is never repeated (signed) at that address,
// whatever redirect policy the given HTTP client has.
func TestRedirectsAreRefused(t *testing.T) {
	t.Parallel()
	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
		writeJSON(w, http.StatusOK, `{"data":{"id":"9","text":"hi"}}`)
	}))
	t.Cleanup(elsewhere.Close)
	tests := []struct {
		name   string
		status int
		client *http.Client
	}{
		{name: "302, default client", status: http.StatusFound},
		{name: "307 keeps the method and body", status: http.StatusTemporaryRedirect},
		{name: "308, given client that follows", status: http.StatusPermanentRedirect, client: &http.Client{Timeout: 5 * time.Second}},
		{name: "301", status: http.StatusMovedPermanently},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			followed.Store(0)
			f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere.URL+"/2/tweets", tt.status)
			})
			c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret, HTTPClient: tt.client})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Publish(t.Context(), "hi", "")
			pe := perr(t, err)
			if pe.Status != tt.status || platform.Temporary(err) {
				t.Errorf("error %+v, want a final refusal with status %d", pe, tt.status)
			}
			if !strings.Contains(pe.Detail, "redirect to "+elsewhere.URL+"/2/tweets") {
				t.Errorf("detail %q does not name the redirect's target", pe.Detail)
			}
			if n := followed.Load(); n != 0 {
				t.Errorf("the redirect was followed %d times", n)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("X got %d requests, want 1", n)
			}
		})
	}
}

// pagingTimeline is a timeline of n posts with ids first, first+1, ... that
// pages as X documents: newest first, max_results (5..100) a page,
// since_id and until_id both exclusive, and an opaque next_token in meta,
// sent back as tokenParam, that only works with the same bounds.
func pagingTimeline(t *testing.T, tokenParam string, first int64, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		size, err := strconv.Atoi(q.Get("max_results"))
		if err != nil || size < 5 || size > 100 {
			writeJSON(w, http.StatusBadRequest, `{"title":"Invalid Request","detail":"max_results must be 5..100","type":"https://api.twitter.com/2/problems/invalid-request"}`)
			return
		}
		bound := func(name string, def int64) (int64, bool) {
			if !q.Has(name) {
				return def, true
			}
			v, err := strconv.ParseInt(q.Get(name), 10, 64)
			return v, err == nil
		}
		since, ok1 := bound("since_id", 0)
		until, ok2 := bound("until_id", first+int64(n))
		if !ok1 || !ok2 {
			writeJSON(w, http.StatusBadRequest, `{"title":"Invalid Request","detail":"bad since_id or until_id","type":"https://api.twitter.com/2/problems/invalid-request"}`)
			return
		}
		// The token names where the previous page ended, and the bounds it was given for.
		start := until
		if tok := q.Get(tokenParam); tok != "" {
			var s, u, from int64
			if _, err := fmt.Sscanf(tok, "%d-%d-%d", &s, &u, &from); err != nil || s != since || u != until {
				t.Errorf("%s %q does not belong to since_id %d, until_id %d", tokenParam, tok, since, until)
				writeJSON(w, http.StatusBadRequest, `{"title":"Invalid Request","detail":"bad token","type":"https://api.twitter.com/2/problems/invalid-request"}`)
				return
			}
			start = from
		}
		var data []string
		id := start - 1
		for ; id >= first && id > since && len(data) < size; id-- {
			data = append(data, fmt.Sprintf(`{"id":"%d","text":"post %d","author_id":"5"}`, id, id))
		}
		m := fmt.Sprintf(`"result_count":%d`, len(data))
		if len(data) > 0 {
			m += fmt.Sprintf(`,"newest_id":"%d","oldest_id":"%d"`, start-1, id+1)
		}
		if id >= first && id > since {
			m += fmt.Sprintf(`,"next_token":"%d-%d-%d"`, since, until, id+1)
		}
		writeJSON(w, http.StatusOK, `{"data":[`+strings.Join(data, ",")+`],"includes":{"users":[{"id":"5","name":"E","username":"e"}]},"meta":{`+m+`}}`)
	}
}

// A burst bigger than the page bound is read in bounded slices: each read
// says there is more and where it stopped, and reading on from there with
// until_id finds every post exactly once.
func TestBoundedReadsContinue(t *testing.T) {
	t.Parallel()
	const first, n = 1_000_000, 1_234
	tests := []struct {
		name       string
		tokenParam string
		read       func(c *Client, r platform.Range) (platform.Page, error)
	}{
		{name: "mentions", tokenParam: "pagination_token", read: func(c *Client, r platform.Range) (platform.Page, error) {
			return c.Mentions(t.Context(), "1", r)
		}},
		{name: "search", tokenParam: "next_token", read: func(c *Client, r platform.Range) (platform.Page, error) {
			return c.Search(t.Context(), "sins", r)
		}},
		{name: "user posts", tokenParam: "pagination_token", read: func(c *Client, r platform.Range) (platform.Page, error) {
			return c.UserPosts(t.Context(), "5", r)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, pagingTimeline(t, tt.tokenParam, first, n))
			c := f.client(t)
			// The cursor of an earlier scan: the first 34 posts were read then.
			cursor := strconv.Itoa(first + 33)
			seen := map[string]int{}
			r := platform.Range{SinceID: cursor}
			var reads []platform.Page
			for range 10 {
				page, err := tt.read(c, r)
				if err != nil {
					t.Fatal(err)
				}
				reads = append(reads, page)
				for _, p := range page.Posts {
					seen[p.ID]++
				}
				if !page.More {
					break
				}
				r = platform.Range{SinceID: cursor, UntilID: page.OldestID}
			}
			wantSizes := []int{500, 500, 200}
			if len(reads) != len(wantSizes) {
				t.Fatalf("%d reads, want %d", len(reads), len(wantSizes))
			}
			for i, p := range reads {
				if len(p.Posts) != wantSizes[i] || p.More != (i < len(wantSizes)-1) {
					t.Errorf("read %d: %d posts, more %v; want %d, more %v", i, len(p.Posts), p.More, wantSizes[i], i < len(wantSizes)-1)
				}
			}
			if reads[0].NewestID != strconv.Itoa(first+n-1) {
				t.Errorf("newest id %s, want %d", reads[0].NewestID, first+n-1)
			}
			if len(seen) != n-34 {
				t.Errorf("%d distinct posts read, want %d", len(seen), n-34)
			}
			for id, k := range seen {
				if k != 1 {
					t.Errorf("post %s read %d times", id, k)
				}
			}
			if got := len(f.requests()); got != 12 {
				t.Errorf("%d requests, want 12 (5 + 5 + 2 pages of 100)", got)
			}
		})
	}
}
