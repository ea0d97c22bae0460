package e2e

// The tests in this file run the pipeline with the real third-party clients,
// the X API v2 client (pkg/platform/x) and the OpenAI-compatible writer
// (pkg/writer/openai), against local fakes of X and of a chat completions
// server that speak the documented JSON.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
	"infernal/pkg/writer/openai"
)

// Credentials and names shared by the fakes and the clients under test.
const (
	liveConsumerKey    = "live-consumer-key"
	liveConsumerSecret = "live-consumer-secret"
	liveAccessToken    = "1700000000000000001-live-access-token"
	liveAccessSecret   = "live-access-secret"
	livePersonaID      = "1700000000000000001"
	liveModel          = "gpt-fake-inferno"
	liveLLMKey         = "sk-live-fake-key"
	// liveSearchTopic is the one search topic; liveSearchQuery the search X is sent for it.
	liveSearchTopic = "brimstone"
	liveSearchQuery = "brimstone -is:retweet"
	// liveWait bounds every poll of the tests in this file: a guard against
	// a hang, not a speed requirement, long enough for the package's tests
	// running at once on a loaded 2-core machine under the race detector.
	liveWait = 60 * time.Second
)

// duplicateBody is X's refusal of a post it has already seen.
const duplicateBody = `{"title":"Forbidden","detail":"You are not allowed to create a Tweet with duplicate content.","type":"about:blank","status":403}`

// ---------------------------------------------------------------------------
// Fake X API v2.

type xUser struct {
	ID              string `json:"id"`
	Username        string `json:"username"`
	Name            string `json:"name"`
	ProfileImageURL string `json:"profile_image_url,omitempty"`
}

type xTweet struct {
	id             int64
	text           string
	authorID       string
	conversationID string
	inReplyTo      string
	createdAt      time.Time
	metrics        xMetricsJSON
	// media are the post's attached media, links its links with their cards.
	media []xMediaJSON
	links []xURLJSON
}

// xMediaJSON is a media object of includes.media.
type xMediaJSON struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url,omitempty"`
	PreviewImageURL string `json:"preview_image_url,omitempty"`
	AltText         string `json:"alt_text,omitempty"`
}

// xURLJSON is a link of entities.urls, with the card X read for it.
type xURLJSON struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	UnwoundURL  string `json:"unwound_url,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MediaKey    string `json:"media_key,omitempty"`
}

// xAttachmentsJSON is a post's attachments.
type xAttachmentsJSON struct {
	MediaKeys []string `json:"media_keys"`
}

type xMetricsJSON struct {
	RetweetCount int `json:"retweet_count"`
	ReplyCount   int `json:"reply_count"`
	LikeCount    int `json:"like_count"`
	QuoteCount   int `json:"quote_count"`
}

type xRefJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type xTweetJSON struct {
	ID             string `json:"id"`
	Text           string `json:"text"`
	AuthorID       string `json:"author_id"`
	ConversationID string `json:"conversation_id"`
	CreatedAt      string `json:"created_at"`
	// Lang is the language X detected: these tests' posts are English.
	Lang             string       `json:"lang"`
	PublicMetrics    xMetricsJSON `json:"public_metrics"`
	ReferencedTweets []xRefJSON   `json:"referenced_tweets,omitempty"`
	Entities         *xEntityJSON `json:"entities,omitempty"`
	// Attachments lists the post's media keys; nil without media.
	Attachments *xAttachmentsJSON `json:"attachments,omitempty"`
}

// xEntityJSON is a post's entities: its @mentions and its links.
type xEntityJSON struct {
	Mentions []xMentionJSON `json:"mentions,omitempty"`
	URLs     []xURLJSON     `json:"urls,omitempty"`
}

// xMentionJSON is an @mention as X lists it: where it stands in the text,
// and the account, with its id when the account exists.
type xMentionJSON struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Username string `json:"username"`
	ID       string `json:"id,omitempty"`
}

// xMentionPattern finds @handles in a post's text.
var xMentionPattern = regexp.MustCompile(`@([A-Za-z0-9_]{1,15})`)

type xIncludesJSON struct {
	Users  []xUser      `json:"users"`
	Tweets []xTweetJSON `json:"tweets,omitempty"`
	Media  []xMediaJSON `json:"media,omitempty"`
}

type xMetaJSON struct {
	NewestID    string `json:"newest_id,omitempty"`
	OldestID    string `json:"oldest_id,omitempty"`
	ResultCount int    `json:"result_count"`
	NextToken   string `json:"next_token,omitempty"`
}

type xPageJSON struct {
	Data     []xTweetJSON   `json:"data,omitempty"`
	Includes *xIncludesJSON `json:"includes,omitempty"`
	Meta     xMetaJSON      `json:"meta"`
}

// xPartialError is an entry of the "errors" array X puts inside a 200.
type xPartialError struct {
	Value        string `json:"value"`
	Detail       string `json:"detail"`
	Title        string `json:"title"`
	ResourceType string `json:"resource_type"`
	Parameter    string `json:"parameter"`
	ResourceID   string `json:"resource_id"`
	Type         string `json:"type"`
}

// xRequest is one request the fake X accepted.
type xRequest struct {
	Method string
	Path   string
	Query  url.Values
}

// xPublish is one POST /2/tweets, accepted or not.
type xPublish struct {
	Text      string
	InReplyTo string
	At        time.Time
	Status    int
	// ID is the new post's id when X accepted it.
	ID string
	// Reset is the x-rate-limit-reset header X answered with, if any.
	Reset string
}

// xAnswer scripts the answer to one POST /2/tweets; it may set headers.
type xAnswer func(h http.Header) (status int, body string)

// fakeX is a local X API v2 holding a few accounts and their posts. Every
// request must carry an OAuth 1.0a header for the configured app and
// persona; the x package's own tests verify the signatures themselves.
type fakeX struct {
	srv *httptest.Server

	mu           sync.Mutex
	lastID       int64
	me           xUser
	users        map[string]xUser
	tweets       []xTweet // in creation order, so oldest first
	requests     []xRequest
	publishes    []xPublish
	script       []xAnswer
	unauthorized int
	problems     []string
	// inFlight and maxInFlight count the reads of each timeline answered at
	// once, now and at most; readDelay holds every timeline read.
	inFlight    map[string]int
	maxInFlight map[string]int
	readDelay   time.Duration
	// newestOnly makes it speak only X's newest OpenAPI naming (post.fields,
	// referenced_posts, includes.posts), refusing the documented one with a
	// 400 as X refuses an unknown parameter; refusedNaming counts those.
	newestOnly    bool
	refusedNaming int
}

var xEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func newFakeX(t *testing.T) *fakeX {
	t.Helper()
	f := &fakeX{
		lastID:   1800000000000000000,
		me:       xUser{ID: livePersonaID, Username: persona, Name: "Infernal AI"},
		users:    map[string]xUser{},
		inFlight: map[string]int{}, maxInFlight: map[string]int{},
	}
	f.users[f.me.ID] = f.me
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2/users/me", f.getMe)
	mux.HandleFunc("GET /2/users/by/username/{username}", f.getUserByUsername)
	mux.HandleFunc("GET /2/users/{id}/mentions", f.getMentions)
	mux.HandleFunc("GET /2/users/{id}/tweets", f.getUserTweets)
	mux.HandleFunc("GET /2/tweets/search/recent", f.getSearch)
	mux.HandleFunc("GET /2/tweets", f.getTweets)
	mux.HandleFunc("POST /2/tweets", f.postTweet)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.problem("unexpected request %s %s", r.Method, r.URL.Path)
		writeRaw(w, http.StatusNotFound, `{"title":"Not Found","type":"about:blank","status":404,"detail":"Not Found"}`)
	})
	f.srv = httptest.NewServer(f.authorize(mux))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Errorf("fake X: %s", p)
		}
	})
	return f
}

func (f *fakeX) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// oauthParams parses an `Authorization: OAuth k="v", ...` header.
func oauthParams(h string) (map[string]string, error) {
	rest, ok := strings.CutPrefix(h, "OAuth ")
	if !ok {
		return nil, errors.New("not an OAuth header")
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, fmt.Errorf("malformed parameter %q", part)
		}
		dec, err := url.PathUnescape(v[1 : len(v)-1])
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", k, err)
		}
		out[k] = dec
	}
	return out, nil
}

func checkOAuth(h string) error {
	p, err := oauthParams(h)
	if err != nil {
		return err
	}
	switch {
	case p["oauth_consumer_key"] != liveConsumerKey:
		return fmt.Errorf("oauth_consumer_key %q", p["oauth_consumer_key"])
	case p["oauth_token"] != liveAccessToken:
		return fmt.Errorf("oauth_token %q", p["oauth_token"])
	case p["oauth_signature_method"] != "HMAC-SHA1":
		return fmt.Errorf("oauth_signature_method %q", p["oauth_signature_method"])
	case p["oauth_signature"] == "":
		return errors.New("no oauth_signature")
	}
	return nil
}

// authorize refuses, as X does, any request not signed for the persona, and
// records the others.
func (f *fakeX) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkOAuth(r.Header.Get("Authorization")); err != nil {
			f.mu.Lock()
			f.unauthorized++
			f.mu.Unlock()
			w.Header().Set("x-fake-oauth-error", err.Error())
			writeRaw(w, http.StatusUnauthorized, `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, xRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
		newest := f.newestOnly
		f.mu.Unlock()
		if newest {
			f.serveNewest(w, r, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// speakNewestOnly makes f speak only X's newest naming from now on.
func (f *fakeX) speakNewestOnly() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.newestOnly = true
}

// namingRefusals counts the requests refused for the documented naming.
func (f *fakeX) namingRefusals() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refusedNaming
}

// oldNames and newNames translate the newest naming to the documented
// one the fake's handlers read, and their answers back: v2.167's expansion
// referenced_posts brings the referenced posts (not their authors, which
// v2.167 cannot ask for), as referenced_tweets.id does.
var (
	oldNames = strings.NewReplacer("post.fields", "tweet.fields", "referenced_posts", "referenced_tweets.id")
	newNames = strings.NewReplacer(`"referenced_tweets":`, `"referenced_posts":`, `"tweets":[`, `"posts":[`)
)

// v2167Params are the query parameters X's OpenAPI v2.167 lists for each
// endpoint the client calls, with the enum of each list parameter (nil:
// any value), as pkg/platform/x keeps them from xdevplatform/xdk's
// specs/openapi.json.
func v2167Params() (map[string]map[string][]string, error) {
	b, err := os.ReadFile(filepath.Join("..", "pkg", "platform", "x", "testdata", "enums-v2.167.json"))
	if err != nil {
		return nil, err
	}
	var spec struct {
		Endpoints map[string]map[string][]string `json:"endpoints"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, err
	}
	return spec.Endpoints, nil
}

// specEndpoint is the spec's name of a GET of path.
func specEndpoint(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 4 && parts[1] == "users" && parts[2] != "by":
		return "GET /2/users/{id}/" + parts[3]
	case len(parts) == 5 && parts[2] == "by":
		return "GET /2/users/by/username/{username}"
	}
	return "GET " + path
}

// outOfV2167 is the first parameter of q, with its values, that v2.167
// does not list for the GET of path (or a value outside its enum); "" when
// every one is listed.
func outOfV2167(path string, q url.Values) (string, []string, error) {
	spec, err := v2167Params()
	if err != nil {
		return "", nil, err
	}
	params := spec[specEndpoint(path)]
	for _, name := range slices.Sorted(maps.Keys(q)) {
		enum, ok := params[name]
		if !ok {
			return name, q[name], nil
		}
		if enum == nil {
			continue
		}
		for _, v := range q[name] {
			for item := range strings.SplitSeq(v, ",") {
				if !slices.Contains(enum, item) {
					return name, q[name], nil
				}
			}
		}
	}
	return "", nil, nil
}

// serveNewest answers r as an X loaded with OpenAPI v2.167 does: a
// parameter or value that spec does not list is a 400 naming it; the rest
// is served by next in the documented naming and its answer renamed.
func (f *fakeX) serveNewest(w http.ResponseWriter, r *http.Request, next http.Handler) {
	q := r.URL.Query()
	bad, badVals, err := outOfV2167(r.URL.Path, q)
	if err != nil {
		f.problem("read the v2.167 enums: %v", err)
	}
	if bad != "" {
		f.mu.Lock()
		f.refusedNaming++
		f.mu.Unlock()
		body, err := json.Marshal(map[string]any{
			"errors": []map[string]any{{"parameters": map[string][]string{bad: badVals},
				"message": "The query parameter [" + bad + "] or its value is not one of OpenAPI v2.167's"}},
			"title": "Invalid Request", "detail": "One or more parameters to your request was invalid.",
			"type": "https://api.twitter.com/2/problems/invalid-request",
		})
		if err != nil {
			f.problem("encode refusal: %v", err)
		}
		writeRaw(w, http.StatusBadRequest, string(body))
		return
	}
	old := url.Values{}
	for name, vals := range q {
		for _, v := range vals {
			old.Add(oldNames.Replace(name), oldNames.Replace(v))
		}
	}
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = old.Encode()
	next.ServeHTTP(&renaming{ResponseWriter: w}, r2)
}

// renaming writes an answer with the documented naming's keys renamed to
// the newest's.
type renaming struct{ http.ResponseWriter }

func (n *renaming) Write(b []byte) (int, error) {
	if _, err := io.WriteString(n.ResponseWriter, newNames.Replace(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

func writeRaw(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	// A failed write means the client went away; it sees the failure itself.
	_, _ = io.WriteString(w, body)
}

func (f *fakeX) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.problem("encode answer: %v", err)
		writeRaw(w, http.StatusInternalServerError, `{"title":"Internal Error","type":"about:blank","status":500}`)
		return
	}
	writeRaw(w, status, string(b))
}

func (f *fakeX) badRequest(w http.ResponseWriter, detail string) {
	f.problem("400: %s", detail)
	f.writeJSON(w, http.StatusBadRequest, map[string]any{
		"title": "Invalid Request", "detail": detail, "type": "https://api.twitter.com/2/problems/invalid-request", "status": 400,
	})
}

// addUser creates an account.
func (f *fakeX) addUser(username, name string) xUser {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastID++
	u := xUser{ID: strconv.FormatInt(f.lastID, 10), Username: username, Name: name,
		ProfileImageURL: "https://pbs.twimg.com/profile_images/" + username + "_normal.jpg"}
	f.users[u.ID] = u
	return u
}

// add stores a post of author's; the caller holds f.mu.
func (f *fakeX) add(authorID, text, inReplyTo string) xTweet {
	f.lastID++
	t := xTweet{id: f.lastID, text: text, authorID: authorID, inReplyTo: inReplyTo, createdAt: time.Now().UTC()}
	t.conversationID = strconv.FormatInt(t.id, 10)
	if inReplyTo != "" {
		for _, p := range f.tweets {
			if strconv.FormatInt(p.id, 10) == inReplyTo {
				t.conversationID = p.conversationID
			}
		}
	}
	f.tweets = append(f.tweets, t)
	return t
}

// postAs publishes a standalone post of u's and returns its id.
func (f *fakeX) postAs(u xUser, text string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.FormatInt(f.add(u.ID, text, "").id, 10)
}

func (f *fakeX) setMetrics(id string, m xMetricsJSON) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.tweets {
		if strconv.FormatInt(f.tweets[i].id, 10) == id {
			f.tweets[i].metrics = m
			return
		}
	}
	f.problems = append(f.problems, "metrics set on unknown post "+id)
}

// scriptPublish makes the next POST /2/tweets get these answers, in order.
func (f *fakeX) scriptPublish(answers ...xAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, answers...)
}

func (f *fakeX) publishesTo(inReplyTo string) []xPublish {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []xPublish
	for _, p := range f.publishes {
		if p.InReplyTo == inReplyTo {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakeX) allPublishes() []xPublish {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.publishes)
}

func (f *fakeX) requestsTo(method, path string) []xRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []xRequest
	for _, r := range f.requests {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeX) unauthorizedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unauthorized
}

// tweetJSON is t as X serialises it, its text HTML-escaped as X does, with
// its @mentions as entities (resolved against users); the caller holds f.mu.
func tweetJSON(t xTweet, users map[string]xUser) xTweetJSON {
	out := xTweetJSON{
		ID: strconv.FormatInt(t.id, 10), Text: xEscaper.Replace(t.text), AuthorID: t.authorID,
		ConversationID: t.conversationID, CreatedAt: t.createdAt.Format("2006-01-02T15:04:05.000Z"), Lang: "en",
		PublicMetrics: t.metrics,
	}
	if t.inReplyTo != "" {
		out.ReferencedTweets = []xRefJSON{{Type: "replied_to", ID: t.inReplyTo}}
	}
	for _, m := range xMentionPattern.FindAllStringSubmatchIndex(t.text, -1) {
		if out.Entities == nil {
			out.Entities = &xEntityJSON{}
		}
		// X counts positions in code points; the test texts before a mention are ASCII.
		mention := xMentionJSON{Start: m[0], End: m[1], Username: t.text[m[2]:m[3]]}
		for _, u := range users {
			if strings.EqualFold(u.Username, mention.Username) {
				mention.ID = u.ID
			}
		}
		out.Entities.Mentions = append(out.Entities.Mentions, mention)
	}
	for _, m := range t.media {
		if out.Attachments == nil {
			out.Attachments = &xAttachmentsJSON{}
		}
		out.Attachments.MediaKeys = append(out.Attachments.MediaKeys, m.MediaKey)
	}
	if len(t.links) > 0 {
		if out.Entities == nil {
			out.Entities = &xEntityJSON{}
		}
		out.Entities.URLs = append(out.Entities.URLs, t.links...)
	}
	return out
}

// mediaOf adds to includes, as X's attachments.media_keys expansion does
// when q asks for it, the media of data (once each), with the fields
// media.fields names; the caller holds f.mu.
func (f *fakeX) mediaOf(q url.Values, data []xTweetJSON, includes *xIncludesJSON) *xIncludesJSON {
	if !slices.Contains(strings.Split(q.Get("expansions"), ","), "attachments.media_keys") {
		return includes
	}
	fields := strings.Split(q.Get("media.fields"), ",")
	added := map[string]bool{}
	for _, d := range data {
		i := slices.IndexFunc(f.tweets, func(t xTweet) bool { return strconv.FormatInt(t.id, 10) == d.ID })
		if i < 0 {
			continue
		}
		for _, m := range f.tweets[i].media {
			if added[m.MediaKey] {
				continue
			}
			added[m.MediaKey] = true
			out := xMediaJSON{MediaKey: m.MediaKey, Type: m.Type}
			if slices.Contains(fields, "url") {
				out.URL = m.URL
			}
			if slices.Contains(fields, "preview_image_url") {
				out.PreviewImageURL = m.PreviewImageURL
			}
			if slices.Contains(fields, "alt_text") {
				out.AltText = m.AltText
			}
			if includes == nil {
				includes = &xIncludesJSON{}
			}
			includes.Media = append(includes.Media, out)
		}
	}
	return includes
}

// replyWithMedia stores a post of u's answering inReplyTo ("" for none)
// with photos (their addresses and alt texts) and a link with its card,
// and returns its id.
func (f *fakeX) replyWithMedia(u xUser, text, inReplyTo string, photos [][2]string, link xURLJSON) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.add(u.ID, text, inReplyTo)
	id := strconv.FormatInt(t.id, 10)
	for i, p := range photos {
		key := fmt.Sprintf("3_%s%d", id, i)
		t.media = append(t.media, xMediaJSON{MediaKey: key, Type: "photo", URL: p[0], AltText: p[1]})
		t.links = append(t.links, xURLJSON{URL: "https://t.co/p" + strconv.Itoa(i), ExpandedURL: "https://x.com/" + u.Username + "/status/" + id + "/photo/" + strconv.Itoa(i+1), MediaKey: key})
	}
	if link.URL != "" {
		t.links = append(t.links, link)
	}
	f.tweets[len(f.tweets)-1] = t
	return id
}

func (f *fakeX) getMe(w http.ResponseWriter, _ *http.Request) {
	f.writeJSON(w, http.StatusOK, map[string]any{"data": f.me})
}

func (f *fakeX) getUserByUsername(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("username")
	f.mu.Lock()
	var found *xUser
	for _, u := range f.users {
		if strings.EqualFold(u.Username, name) {
			found = &u
		}
	}
	f.mu.Unlock()
	if found != nil {
		f.writeJSON(w, http.StatusOK, map[string]any{"data": *found})
		return
	}
	// X reports an unknown handle as a partial error inside a 200.
	f.writeJSON(w, http.StatusOK, map[string]any{"errors": []xPartialError{{
		Value: name, Detail: "Could not find user with username: [" + name + "].", Title: "Not Found Error",
		ResourceType: "user", Parameter: "username", ResourceID: name,
		Type: "https://api.twitter.com/2/problems/resource-not-found",
	}}})
}

func (f *fakeX) getMentions(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	u, ok := f.users[id]
	f.mu.Unlock()
	if !ok {
		f.badRequest(w, "mentions of unknown user "+id)
		return
	}
	handle := "@" + strings.ToLower(u.Username)
	f.timeline(w, r, "pagination_token", func(t xTweet) bool {
		return t.authorID != id && strings.Contains(strings.ToLower(t.text), handle)
	})
}

func (f *fakeX) getUserTweets(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.timeline(w, r, "pagination_token", func(t xTweet) bool { return t.authorID == id })
}

func (f *fakeX) getSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("query")))
	if q == "" {
		f.badRequest(w, "search without a query")
		return
	}
	terms := searchTerms(q)
	f.timeline(w, r, "next_token", func(t xTweet) bool {
		return slices.ContainsFunc(terms, func(term string) bool { return strings.Contains(strings.ToLower(t.text), term) })
	})
}

// searchTerms reads the queries the scan builds from topics, as X would:
// (a OR "b c") -is:retweet matches a post holding a or "b c".
func searchTerms(q string) []string {
	q = strings.TrimSpace(strings.TrimSuffix(q, "-is:retweet"))
	q = strings.TrimSuffix(strings.TrimPrefix(q, "("), ")")
	var terms []string
	for _, t := range strings.Split(q, " or ") {
		terms = append(terms, strings.Trim(t, `"`))
	}
	return terms
}

// timeline answers the posts that match, newest first, paged as X pages
// them: at most max_results (5..100) a page, only ids above since_id and
// below until_id, and a next_token in meta, sent back as tokenParam, while
// older posts remain. It counts the requests of each timeline in flight at
// once (see maxConcurrent) and, when set, holds every read for readDelay so
// that overlapping scans would meet here.
func (f *fakeX) timeline(w http.ResponseWriter, r *http.Request, tokenParam string, match func(xTweet) bool) {
	q := r.URL.Query()
	bound := func(name string) (int64, bool) {
		s := q.Get(name)
		if s == "" {
			return 0, true
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			f.badRequest(w, "The `"+name+"` query parameter value ["+s+"] is not valid")
			return 0, false
		}
		return n, true
	}
	since, ok := bound("since_id")
	if !ok {
		return
	}
	until, ok := bound("until_id")
	if !ok {
		return
	}
	size, err := strconv.Atoi(q.Get("max_results"))
	if err != nil || size < 5 || size > 100 {
		f.badRequest(w, "The `max_results` query parameter value ["+q.Get("max_results")+"] is not between 5 and 100")
		return
	}
	// A token is where the previous page stopped, for the same bounds only.
	from := int64(math.MaxInt64)
	if tok := q.Get(tokenParam); tok != "" {
		var s, u int64
		if _, err := fmt.Sscanf(tok, "p%d-%d-%d", &s, &u, &from); err != nil || s != since || u != until {
			f.badRequest(w, "The `"+tokenParam+"` query parameter value ["+tok+"] is not valid")
			return
		}
	}
	key := r.URL.Path + "?" + q.Get("query")
	f.mu.Lock()
	f.inFlight[key]++
	if f.inFlight[key] > f.maxInFlight[key] {
		f.maxInFlight[key] = f.inFlight[key]
	}
	delay := f.readDelay
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[key]--
		f.mu.Unlock()
	}()
	time.Sleep(delay)

	f.mu.Lock()
	var page xPageJSON
	seen := map[string]bool{}
	more := false
	for i := len(f.tweets) - 1; i >= 0; i-- {
		t := f.tweets[i]
		if t.id <= since || (until != 0 && t.id >= until) || t.id >= from || !match(t) {
			continue
		}
		if len(page.Data) == size {
			more = true
			break
		}
		page.Data = append(page.Data, tweetJSON(t, f.users))
		if !seen[t.authorID] {
			seen[t.authorID] = true
			if page.Includes == nil {
				page.Includes = &xIncludesJSON{}
			}
			page.Includes.Users = append(page.Includes.Users, f.users[t.authorID])
		}
	}
	page.Includes = f.expand(q, page.Data, page.Includes, seen)
	page.Includes = f.mediaOf(q, page.Data, page.Includes)
	f.mu.Unlock()
	page.Meta.ResultCount = len(page.Data)
	if n := len(page.Data); n > 0 {
		page.Meta.NewestID, page.Meta.OldestID = page.Data[0].ID, page.Data[n-1].ID
		if more {
			page.Meta.NextToken = fmt.Sprintf("p%d-%d-%s", since, until, page.Meta.OldestID)
		}
	}
	f.writeJSON(w, http.StatusOK, page)
}

// expand adds to includes, as X's referenced_tweets.id expansion does when
// q asks for it, the posts data answer (once each), and their authors not
// already in seen only when q also asks for referenced_tweets.id.author_id,
// as X does; the caller holds f.mu.
func (f *fakeX) expand(q url.Values, data []xTweetJSON, includes *xIncludesJSON, seen map[string]bool) *xIncludesJSON {
	expansions := strings.Split(q.Get("expansions"), ",")
	if !slices.Contains(expansions, "referenced_tweets.id") {
		return includes
	}
	withAuthors := slices.Contains(expansions, "referenced_tweets.id.author_id")
	added := map[string]bool{}
	for _, d := range data {
		for _, ref := range d.ReferencedTweets {
			i := slices.IndexFunc(f.tweets, func(t xTweet) bool { return strconv.FormatInt(t.id, 10) == ref.ID })
			if i < 0 || added[ref.ID] {
				continue
			}
			added[ref.ID] = true
			if includes == nil {
				includes = &xIncludesJSON{}
			}
			t := f.tweets[i]
			includes.Tweets = append(includes.Tweets, tweetJSON(t, f.users))
			if withAuthors && !seen[t.authorID] {
				seen[t.authorID] = true
				includes.Users = append(includes.Users, f.users[t.authorID])
			}
		}
	}
	return includes
}

// getTweets looks posts up by id (GET /2/tweets?ids=), for their metrics.
func (f *fakeX) getTweets(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query().Get("ids")
	if ids == "" {
		f.badRequest(w, "lookup without ids")
		return
	}
	var out struct {
		Data     []xTweetJSON    `json:"data,omitempty"`
		Includes *xIncludesJSON  `json:"includes,omitempty"`
		Errors   []xPartialError `json:"errors,omitempty"`
	}
	f.mu.Lock()
	for id := range strings.SplitSeq(ids, ",") {
		i := slices.IndexFunc(f.tweets, func(t xTweet) bool { return strconv.FormatInt(t.id, 10) == id })
		if i < 0 {
			out.Errors = append(out.Errors, xPartialError{
				Value: id, Detail: "Could not find tweet with ids: [" + id + "].", Title: "Not Found Error",
				ResourceType: "tweet", Parameter: "ids", ResourceID: id,
				Type: "https://api.twitter.com/2/problems/resource-not-found",
			})
			continue
		}
		out.Data = append(out.Data, tweetJSON(f.tweets[i], f.users))
	}
	if strings.Contains(r.URL.Query().Get("expansions"), "author_id") {
		seen := map[string]bool{}
		for _, d := range out.Data {
			if !seen[d.AuthorID] {
				seen[d.AuthorID] = true
				if out.Includes == nil {
					out.Includes = &xIncludesJSON{}
				}
				out.Includes.Users = append(out.Includes.Users, f.users[d.AuthorID])
			}
		}
		out.Includes = f.expand(r.URL.Query(), out.Data, out.Includes, seen)
		out.Includes = f.mediaOf(r.URL.Query(), out.Data, out.Includes)
	}
	f.mu.Unlock()
	f.writeJSON(w, http.StatusOK, out)
}

// postTweet creates a post (POST /2/tweets) as the persona, unless a
// scripted answer is waiting.
func (f *fakeX) postTweet(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text  string `json:"text"`
		Reply *struct {
			InReplyToTweetID string `json:"in_reply_to_tweet_id"`
		} `json:"reply"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		f.badRequest(w, "create post body: "+err.Error())
		return
	}
	if strings.TrimSpace(body.Text) == "" {
		f.badRequest(w, "create post without text")
		return
	}
	call := xPublish{Text: body.Text, At: time.Now()}
	if body.Reply != nil {
		call.InReplyTo = body.Reply.InReplyToTweetID
	}
	f.mu.Lock()
	if len(f.script) > 0 {
		answer := f.script[0]
		f.script = f.script[1:]
		// The answer runs unlocked: it may take its time, or touch the fake itself.
		f.mu.Unlock()
		status, b := answer(w.Header())
		call.Status, call.Reset = status, w.Header().Get("x-rate-limit-reset")
		f.mu.Lock()
		f.publishes = append(f.publishes, call)
		f.mu.Unlock()
		writeRaw(w, status, b)
		return
	}
	if call.InReplyTo != "" && !slices.ContainsFunc(f.tweets, func(t xTweet) bool { return strconv.FormatInt(t.id, 10) == call.InReplyTo }) {
		f.mu.Unlock()
		f.badRequest(w, "reply to unknown post "+call.InReplyTo)
		return
	}
	if call.InReplyTo != "" && !f.summons(call.InReplyTo) {
		// X's 2026 rule for self-serve apps: a reply only to a post that mentions the persona (or is its own).
		call.Status = http.StatusForbidden
		f.publishes = append(f.publishes, call)
		f.mu.Unlock()
		writeRaw(w, http.StatusForbidden, `{"detail":"You can only reply to or quote posts where you are mentioned or are the author.","type":"about:blank","title":"Forbidden","status":403}`)
		return
	}
	t := f.add(f.me.ID, body.Text, call.InReplyTo)
	call.Status, call.ID = http.StatusCreated, strconv.FormatInt(t.id, 10)
	f.publishes = append(f.publishes, call)
	f.mu.Unlock()
	f.writeJSON(w, http.StatusCreated, map[string]any{"data": map[string]string{"id": call.ID, "text": xEscaper.Replace(t.text)}})
}

// summons reports whether the post with id mentions the persona or is its
// own; the caller holds f.mu.
func (f *fakeX) summons(id string) bool {
	for _, t := range f.tweets {
		if strconv.FormatInt(t.id, 10) != id {
			continue
		}
		if t.authorID == f.me.ID {
			return true
		}
		for _, m := range xMentionPattern.FindAllStringSubmatch(t.text, -1) {
			if strings.EqualFold(m[1], f.me.Username) {
				return true
			}
		}
	}
	return false
}

// postByHand is the persona answering inReplyTo on X's web site, which the
// API's rule does not bind; it returns the reply's id.
func (f *fakeX) postByHand(text, inReplyTo string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.FormatInt(f.add(f.me.ID, text, inReplyTo).id, 10)
}

// ---------------------------------------------------------------------------
// Fake OpenAI-compatible chat completions server.

// llmAnswer is what the fake model answers to one mortal's post: response
// filed under wrath as the JSON object the prompt asks for, or no content
// at all when response is empty.
type llmAnswer struct {
	response     string
	finishReason string
}

// fakeLLM answers POST /chat/completions by finding, in the user message,
// one of the mortal post texts it was told about: with its draft, or, asked
// for a second opinion on a draft (the judge's system prompt), with a score
// of 4. asked counts the drafts asked for, judged the opinions.
type fakeLLM struct {
	srv *httptest.Server

	mu       sync.Mutex
	answers  map[string]llmAnswer
	asked    map[string]int
	judged   map[string]int
	calls    int
	problems []string
	// prompts are the user messages of the drafts asked for, in order.
	prompts []string
	// images are the image_url parts of every request (drafts and reviews)
	// that carried any, in order, with the user message they came with;
	// refusedImages counts the requests refused for them.
	images        []llmImages
	refuseImages  bool
	refusedImages int
	// lesson is what a distillation (openai.Writer.Distill) answers, and
	// distilled counts them.
	lesson    string
	distilled int
	// embeddings, when set, answers POST /embeddings (see embedWith).
	embeddings http.Handler
}

// embedWith makes the model answer POST /embeddings through h (an
// openaitest.Server), to a request bearing the key.
func (l *fakeLLM) embedWith(h http.Handler) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.embeddings = h
}

// llmImages are the image parts one request carried.
type llmImages struct {
	user    string
	judging bool
	urls    []string
	details []string
}

// withoutVision makes the model one that takes no image input: a request
// with an image part is refused with OpenAI's 400.
func (l *fakeLLM) withoutVision() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refuseImages = true
}

// imagesWith returns the image parts of the requests whose user message held text.
func (l *fakeLLM) imagesWith(text string) []llmImages {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []llmImages
	for _, im := range l.images {
		if strings.Contains(im.user, text) {
			out = append(out, im)
		}
	}
	return out
}

// chatContent reads a message's content: a string, or parts of text and
// image_url (OpenAI's vision format).
func chatContent(raw json.RawMessage) (text string, urls, details []string, err error) {
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil, nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, nil, err
	}
	for _, p := range parts {
		switch {
		case p.Type == "text":
			text += p.Text
		case p.Type == "image_url" && p.ImageURL != nil:
			urls, details = append(urls, p.ImageURL.URL), append(details, p.ImageURL.Detail)
		default:
			return "", nil, nil, fmt.Errorf("content part of type %q", p.Type)
		}
	}
	return text, urls, details, nil
}

// teach makes every distillation answer lesson.
func (l *fakeLLM) teach(lesson string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lesson = lesson
}

func newFakeLLM(t *testing.T) *fakeLLM {
	t.Helper()
	l := &fakeLLM{answers: map[string]llmAnswer{}, asked: map[string]int{}, judged: map[string]int{}}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	t.Cleanup(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, p := range l.problems {
			t.Errorf("fake model: %s", p)
		}
	})
	return l
}

// reply makes the model answer postText with response filed under wrath.
func (l *fakeLLM) reply(postText, response string) {
	l.answer(postText, llmAnswer{response: response, finishReason: "stop"})
}

func (l *fakeLLM) answer(postText string, a llmAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answers[postText] = a
}

// promptsWith returns the user messages of drafts that held text.
func (l *fakeLLM) promptsWith(text string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.prompts {
		if strings.Contains(p, text) {
			out = append(out, p)
		}
	}
	return out
}

func (l *fakeLLM) timesAsked(postText string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked[postText]
}

// timesJudged is how many second opinions were asked on drafts answering postText.
func (l *fakeLLM) timesJudged(postText string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.judged[postText]
}

func (l *fakeLLM) refuse(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.problems = append(l.problems, msg)
	l.mu.Unlock()
	b, err := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
	if err != nil {
		b = []byte(`{"error":{"message":"fake model failed"}}`)
	}
	writeRaw(w, status, string(b))
}

func (l *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	embeddings := l.embeddings
	l.mu.Unlock()
	if r.Method == http.MethodPost && r.URL.Path == "/embeddings" && embeddings != nil {
		if got := r.Header.Get("Authorization"); got != "Bearer "+liveLLMKey {
			l.refuse(w, http.StatusUnauthorized, "Authorization %q", got)
			return
		}
		embeddings.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		l.refuse(w, http.StatusNotFound, "unexpected request %s %s", r.Method, r.URL.Path)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+liveLLMKey {
		l.refuse(w, http.StatusUnauthorized, "Authorization %q", got)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		l.refuse(w, http.StatusBadRequest, "body: %v", err)
		return
	}
	if req.Model != liveModel {
		l.refuse(w, http.StatusBadRequest, "model %q, want %q", req.Model, liveModel)
		return
	}
	var (
		user          string
		judging       bool
		distilling    bool
		urls, details []string
	)
	for _, m := range req.Messages {
		text, u, d, err := chatContent(m.Content)
		if err != nil {
			l.refuse(w, http.StatusBadRequest, "content: %v", err)
			return
		}
		switch m.Role {
		case "user":
			user += text
			urls, details = append(urls, u...), append(details, d...)
		case "system":
			// The second opinion on a draft (openai.Writer.Judge).
			judging = strings.HasPrefix(text, "You review drafts")
			// A lesson from an edit or a rejection (openai.Writer.Distill).
			distilling = strings.HasPrefix(text, "You help an administrator teach")
		}
	}
	l.mu.Lock()
	if distilling {
		l.distilled++
		lesson := l.lesson
		l.calls++
		n := l.calls
		l.mu.Unlock()
		b, err := json.Marshal(map[string]string{"lesson": lesson})
		if err != nil {
			l.refuse(w, http.StatusInternalServerError, "encode lesson: %v", err)
			return
		}
		writeRaw(w, http.StatusOK, fmt.Sprintf(`{"id":"chatcmpl-live-%d","object":"chat.completion","created":%d,"model":%q,`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":150,"completion_tokens":20,"total_tokens":170}}`, n, time.Now().Unix(), req.Model, string(b)))
		return
	}
	if len(urls) > 0 {
		l.images = append(l.images, llmImages{user: user, judging: judging, urls: urls, details: details})
		if l.refuseImages {
			l.refusedImages++
			l.mu.Unlock()
			// OpenAI's answer to image parts sent to a model without vision.
			writeRaw(w, http.StatusBadRequest, `{"error":{"message":"Invalid content type. image_url is only supported by certain models.","type":"invalid_request_error","param":"messages.[1].content.[1].type","code":null}}`)
			return
		}
	}
	if !judging {
		l.prompts = append(l.prompts, user)
	}
	key := ""
	for text := range l.answers {
		if strings.Contains(user, text) && len(text) > len(key) {
			key = text
		}
	}
	a, known := l.answers[key]
	switch {
	case known && judging:
		l.judged[key]++
	case known:
		l.asked[key]++
	}
	l.calls++
	n := l.calls
	l.mu.Unlock()
	if !known {
		l.refuse(w, http.StatusBadRequest, "no known mortal post in the user message %q", user)
		return
	}
	content := ""
	switch {
	case judging:
		content = `{"score": 4, "reason": "In character and on the post."}`
	case a.response != "":
		b, err := json.Marshal(map[string]string{"response": a.response, "category": "wrath"})
		if err != nil {
			l.refuse(w, http.StatusInternalServerError, "encode content: %v", err)
			return
		}
		content = string(b)
	}
	resp := map[string]any{
		"id": "chatcmpl-live-" + strconv.Itoa(n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": a.finishReason,
		}},
		"usage": map[string]int{"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240},
	}
	b, err := json.Marshal(resp)
	if err != nil {
		l.refuse(w, http.StatusInternalServerError, "encode answer: %v", err)
		return
	}
	writeRaw(w, http.StatusOK, string(b))
}

// ---------------------------------------------------------------------------
// The system under test, wired with the real clients.

type liveSystem struct {
	*system
	x   *fakeX
	llm *fakeLLM
}

// startLive starts the web tier with the x client and the openai writer
// pointed at fresh fakes; the worker is started by runWorker.
func startLive(t *testing.T, targets ...string) *liveSystem {
	t.Helper()
	fx, llm := newFakeX(t), newFakeLLM(t)
	st := storetest.New(t)
	putSettings(t, st, []string{liveSearchTopic}, targets)
	redisURL := taskstest.RedisURL(t)
	queue, err := tasks.NewClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := queue.Close(); err != nil {
			t.Errorf("close queue: %v", err)
		}
	})
	xc, err := x.New(x.Config{
		BaseURL: fx.srv.URL, APIKey: liveConsumerKey, APISecret: liveConsumerSecret,
		AccessToken: liveAccessToken, AccessSecret: liveAccessSecret,
		HTTPClient: &http.Client{Timeout: 10 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	wr, err := openai.New(openai.Config{
		BaseURL: llm.srv.URL, APIKey: liveLLMKey, Model: liveModel,
		HTTPClient: &http.Client{Timeout: 10 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &system{t: t, store: st, queue: queue, redisURL: redisURL}
	s.pipe = pipeline.New(pipeline.Config{
		Store: st, Platform: xc, Writer: wr, Queue: queue, Log: log, Now: time.Now, Handle: persona,
		HandPosting: []post.Source{post.SourceConversation, post.SourceTargeted},
	})
	s.startWeb(log, "x")
	t.Cleanup(func() {
		if n := fx.unauthorizedCount(); n > 0 {
			t.Errorf("the x client sent %d requests the fake X refused as unsigned", n)
		}
	})
	return &liveSystem{system: s, x: fx, llm: llm}
}

// On an X that speaks only its newest OpenAPI naming, a thread's mention is
// drafted with its context and every author's handle, after one refused
// read: the client switches naming at once, and no timeline pauses.
func TestLiveNewestNaming(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	s.x.speakNewestOnly()
	root := s.x.addUser("rooter", "Root Poster")
	mid := s.x.addUser("midway", "Mid Way")
	asker := s.x.addUser("asker", "Asker")
	thin := "@" + persona + " settle this?"
	rootID := s.x.postAs(root, "tabs are a sin")
	midID := s.x.replyAs(mid, "spaces are worse", rootID)
	mention := s.x.replyAs(asker, thin, midID)
	s.llm.reply(thin, "Both are filed under wrath.")
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)

	v := s.waitListed("/api/posts/mentions", mention, post.StatusPending, "")
	status, raw := s.call("GET", "/api/posts/"+strconv.FormatInt(v.ID, 10)+"/context")
	if body := string(raw); status != 200 || !strings.Contains(body, `"relation":"ancestor","author_username":"rooter"`) ||
		!strings.Contains(body, `"relation":"parent","author_username":"midway"`) {
		t.Errorf("context: %d %s", status, body)
	}
	if p := s.llm.promptsWith(thin); len(p) != 1 || !strings.Contains(p[0], "@rooter") || !strings.Contains(p[0], "@midway") {
		t.Errorf("the prompt lacks the thread's authors: %q", p)
	}
	// A second scan reads the mentions again: the timeline is not paused.
	before := len(s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/mentions"))
	s.enqueue(tasks.TypeScanMentions)
	deadline := time.Now().Add(liveWait)
	for len(s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/mentions")) == before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := len(s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/mentions")); got == before {
		t.Error("the second scan read no mentions: the timeline paused")
	}
	if n := s.x.namingRefusals(); n != 1 {
		t.Errorf("%d requests refused for their naming, want 1: the client keeps the naming that works", n)
	}
}

// fixedRetry retries every failed task after 200 ms.
func fixedRetry(int, error, *asynq.Task) time.Duration { return 200 * time.Millisecond }

// runWorker runs the pipeline in the worker's server until the test ends or
// stopWorker. Retries and scheduled tasks are checked for every 100 ms so
// that a short retry delay is honoured promptly.
func (s *liveSystem) runWorker(retry asynq.RetryDelayFunc) {
	s.t.Helper()
	if retry == nil {
		retry = fixedRetry
	}
	s.runServer(tasks.ServerConfig{RetryDelay: retry, DelayedTaskCheckInterval: 100 * time.Millisecond})
}

func (s *liveSystem) enqueue(typ string) {
	s.t.Helper()
	if err := s.queue.EnqueuePeriodic(context.Background(), typ); err != nil {
		s.t.Fatal(err)
	}
}

// approve approves post id over HTTP, with edited text when not empty.
func (s *liveSystem) approve(id int64, edited string) {
	s.t.Helper()
	body := "{}"
	if edited != "" {
		b, err := json.Marshal(map[string]string{"response": edited})
		if err != nil {
			s.t.Fatal(err)
		}
		body = string(b)
	}
	if status, out := s.do("POST", "/api/posts/"+strconv.FormatInt(id, 10)+"/approve", body); status != http.StatusOK {
		s.t.Fatalf("approve %d: %d %s", id, status, out)
	}
}

// liveView is a post as the admin lists show it.
type liveView struct {
	ID               int64   `json:"id"`
	Source           string  `json:"source"`
	Status           string  `json:"status"`
	OriginalPostID   string  `json:"original_post_id"`
	OriginalPostText string  `json:"original_post_text"`
	AuthorUsername   string  `json:"author_username"`
	ProposedResponse string  `json:"proposed_response"`
	Category         string  `json:"category"`
	ResponsePostID   string  `json:"response_post_id"`
	Error            string  `json:"error"`
	ReplyRoute       *string `json:"reply_route"`
	IntentURL        *string `json:"intent_url"`
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
}

func (s *liveSystem) list(path string) []liveView {
	s.t.Helper()
	status, body := s.do("GET", path, "")
	if status != http.StatusOK {
		s.t.Fatalf("%s: %d %s", path, status, body)
	}
	var out struct{ Posts []liveView }
	if err := json.Unmarshal(body, &out); err != nil {
		s.t.Fatalf("%s: %v", path, err)
	}
	return out.Posts
}

// waitListed polls an admin list until the post answering originalID shows
// there with status want. When rescan is not empty, that scan is asked for
// again every half second while waiting (a request made while a run is
// still queued or running is dropped as a duplicate).
func (s *liveSystem) waitListed(path, originalID string, want post.Status, rescan string) liveView {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	nextScan := time.Now().Add(500 * time.Millisecond)
	var last []liveView
	for time.Now().Before(deadline) {
		last = s.list(path)
		for _, v := range last {
			if v.OriginalPostID == originalID && v.Status == string(want) {
				return v
			}
		}
		if rescan != "" && time.Now().After(nextScan) {
			s.enqueue(rescan)
			nextScan = time.Now().Add(500 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("%s never listed the post answering %s as %s; last: %+v", path, originalID, want, last)
	return liveView{}
}

// waitSendSettled waits until post id's send task has completed, after which
// nothing can post it again.
func (s *liveSystem) waitSendSettled(id int64) {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	var (
		info *asynq.TaskInfo
		err  error
	)
	for time.Now().Before(deadline) {
		info, err = s.queue.Inspector().GetTaskInfo(tasks.QueueCritical, tasks.SendTaskID(id))
		if err == nil && info.State == asynq.TaskStateCompleted {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("send task of post %d never completed: %+v %v", id, info, err)
}

// waitPostStatus is waitForStatus with this file's shorter deadline.
func (s *liveSystem) waitPostStatus(id int64, want post.Status) post.Post {
	s.t.Helper()
	deadline := time.Now().Add(liveWait)
	var (
		p   post.Post
		err error
	)
	for time.Now().Before(deadline) {
		if p, err = s.store.Post(context.Background(), id); err == nil && p.Status == want {
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("post %d is %s (error %q, %v), want %s", id, p.Status, p.Error, err, want)
	return p
}

// ---------------------------------------------------------------------------
// Tests.

// TestLiveFakesRefuseBadRequests checks the fakes themselves: an unsigned
// or wrongly signed request never reaches the fake X, and the fake model
// only answers its documented path.
func TestLiveFakesRefuseBadRequests(t *testing.T) {
	t.Parallel()
	fx, llm := newFakeX(t), newFakeLLM(t)

	resp, err := http.Get(fx.srv.URL + "/2/users/me")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"title":"Unauthorized"`) {
		t.Errorf("unsigned request: %d %s, want 401 with X's problem", resp.StatusCode, body)
	}

	wrong, err := x.New(x.Config{BaseURL: fx.srv.URL, APIKey: liveConsumerKey, APISecret: liveConsumerSecret,
		AccessToken: "someone-else", AccessSecret: liveAccessSecret})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.Me(context.Background())
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Status != http.StatusUnauthorized || platform.Temporary(err) {
		t.Errorf("another account's token: %v, want a final 401", err)
	}
	if n := fx.unauthorizedCount(); n != 2 {
		t.Errorf("fake X refused %d requests, want 2", n)
	}

	good, err := x.New(x.Config{BaseURL: fx.srv.URL, APIKey: liveConsumerKey, APISecret: liveConsumerSecret,
		AccessToken: liveAccessToken, AccessSecret: liveAccessSecret})
	if err != nil {
		t.Fatal(err)
	}
	me, err := good.Me(context.Background())
	if err != nil || me.ID != livePersonaID || me.Username != persona {
		t.Errorf("Me = %+v, %v", me, err)
	}

	resp, err = http.Post(llm.srv.URL+"/v1/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if cerr := resp.Body.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("model at a wrong path: %d, want 404", resp.StatusCode)
	}
	// That refusal was recorded as a problem on purpose; clear it so the
	// fake's cleanup does not report it.
	llm.mu.Lock()
	if len(llm.problems) != 1 {
		t.Errorf("fake model problems %q, want the one wrong path", llm.problems)
	}
	llm.problems = nil
	llm.mu.Unlock()
}

// TestLiveMentionApprovedAndRejected: a mention read through the x client is
// drafted by the openai writer, approved over HTTP and sent through the x
// client exactly once; a second mention, read with the first one's id as
// since_id, is rejected and never sent. The reply's metrics come back
// through GET /2/tweets.
func TestLiveMentionApprovedAndRejected(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	sinner := s.x.addUser("sinner1", "Sinner One")
	glutton := s.x.addUser("glutton2", "Glutton Two")
	// X escapes & < > in post text; the mortal's words must reach the model
	// and the admin as written.
	text1 := "@" + persona + " is monday & rain a punishment? <3"
	text2 := "hey @" + persona + ", I ate the whole cake again"
	reply1 := "Monday & rain are filed under wrath, mortal: form 666-B, in triplicate. 🔥"
	reply2 := "The cake was the easy part; the paperwork is eternal."
	s.llm.reply(text1, reply1)
	s.llm.reply(text2, reply2)
	id1 := s.x.postAs(sinner, text1)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)

	approve := s.waitListed("/api/posts/mentions", id1, post.StatusPending, "")
	if approve.ProposedResponse != reply1 || approve.Category != "wrath" {
		t.Errorf("draft = %q (%s), want the model's %q (wrath)", approve.ProposedResponse, approve.Category, reply1)
	}
	if approve.OriginalPostText != text1 || approve.AuthorUsername != "sinner1" || approve.Source != "mention" {
		t.Errorf("mention stored as %+v, want %q by sinner1", approve, text1)
	}

	// A later mention is read from the cursor the first scan left.
	id2 := s.x.postAs(glutton, text2)
	reject := s.waitListed("/api/posts/mentions", id2, post.StatusPending, tasks.TypeScanMentions)
	if reject.ProposedResponse != reply2 {
		t.Errorf("second draft = %q, want %q", reject.ProposedResponse, reply2)
	}
	scans := s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/mentions")
	if len(scans) < 2 || scans[0].Query.Get("since_id") != "" {
		t.Fatalf("mention reads %+v: want a first read without since_id, then more", scans)
	}
	sawCursor := false
	for _, r := range scans[1:] {
		switch r.Query.Get("since_id") {
		case id1:
			sawCursor = true
		case id2:
		default:
			t.Errorf("mentions read with since_id %q, want %s or %s", r.Query.Get("since_id"), id1, id2)
		}
	}
	if !sawCursor {
		t.Errorf("no mentions read continued from the first mention %s: %+v", id1, scans)
	}
	for _, text := range []string{text1, text2} {
		if n := s.llm.timesAsked(text); n != 1 {
			t.Errorf("the model was asked %d times about %q, want once", n, text)
		}
		if n := s.llm.timesJudged(text); n != 1 {
			t.Errorf("the draft answering %q was judged %d times, want once", text, n)
		}
	}

	s.approve(approve.ID, "")
	if status, body := s.do("POST", "/api/posts/"+strconv.FormatInt(reject.ID, 10)+"/reject", "{}"); status != http.StatusOK {
		t.Fatalf("reject: %d %s", status, body)
	}
	p := s.waitPostStatus(approve.ID, post.StatusPosted)
	s.waitSendSettled(approve.ID)
	sent := s.x.allPublishes()
	if len(sent) != 1 {
		t.Fatalf("X got %d POST /2/tweets, want exactly one: %+v", len(sent), sent)
	}
	if sent[0].InReplyTo != id1 || sent[0].Text != reply1 || sent[0].Status != http.StatusCreated {
		t.Errorf("X got %+v, want %q in reply to %s", sent[0], reply1, id1)
	}
	if p.ResponsePostID != sent[0].ID || p.PostedAt == nil || p.Error != "" {
		t.Errorf("posted row: response id %q posted at %v error %q, want X's id %s", p.ResponsePostID, p.PostedAt, p.Error, sent[0].ID)
	}
	if got := s.waitPostStatus(reject.ID, post.StatusRejected); got.ResponsePostID != "" || got.PostedAt != nil {
		t.Errorf("rejected row was posted: %+v", got)
	}
	if _, err := s.queue.Inspector().GetTaskInfo(tasks.QueueCritical, tasks.SendTaskID(reject.ID)); !errors.Is(err, asynq.ErrTaskNotFound) && !errors.Is(err, asynq.ErrQueueNotFound) {
		t.Errorf("rejected post has a send task: %v", err)
	}
	if n := len(s.x.publishesTo(id2)); n != 0 {
		t.Errorf("rejected mention answered %d times on X", n)
	}

	// The reply's counters on X reach the stored engagement.
	s.x.setMetrics(sent[0].ID, xMetricsJSON{LikeCount: 7, RetweetCount: 2, ReplyCount: 1, QuoteCount: 3})
	s.enqueue(tasks.TypeRefreshMetrics)
	deadline := time.Now().Add(liveWait)
	for {
		e, err := s.store.ResponseEngagementSince(context.Background(), time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if e.Likes == 7 && e.Retweets == 2 && e.Replies == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("engagement %+v never reached X's counters 7/2/1", e)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lookups := s.x.requestsTo("GET", "/2/tweets")
	if len(lookups) == 0 || lookups[0].Query.Get("ids") != sent[0].ID {
		t.Errorf("metrics lookups %+v, want ids=%s", lookups, sent[0].ID)
	}
}

// TestLiveSendOutcomes approves one drafted mention and lets X answer the
// send in different ways.
func TestLiveSendOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// edit replaces the draft at approval when not empty.
		edit string
		// answers are X's scripted answers to POST /2/tweets; then it accepts.
		answers func() []xAnswer
		// retry is the worker's RetryDelayFunc; nil retries after 200 ms.
		retry      asynq.RetryDelayFunc
		want       post.Status
		wantError  string // in the failed row and the admin list
		wantTries  int    // POST /2/tweets received
		waitOutErr string // noted on the approved row while the retry waits
	}{
		{
			name:      "edited approval is what X receives",
			edit:      "Edited in hell: your cake & your Monday are both <3 of the damned.",
			want:      post.StatusPosted,
			wantTries: 1,
		},
		{
			name: "duplicate content is refused for good",
			answers: func() []xAnswer {
				return []xAnswer{func(http.Header) (int, string) { return http.StatusForbidden, duplicateBody }}
			},
			want:      post.StatusFailed,
			wantError: "You are not allowed to create a Tweet with duplicate content.",
			wantTries: 1,
		},
		{
			name: "rate limit is waited out until its reset",
			answers: func() []xAnswer {
				return []xAnswer{func(h http.Header) (int, string) {
					h.Set("x-rate-limit-limit", "100")
					h.Set("x-rate-limit-remaining", "0")
					h.Set("x-rate-limit-reset", strconv.FormatInt(time.Now().Add(5*time.Second).Unix(), 10))
					return http.StatusTooManyRequests, `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`
				}}
			},
			retry:      pipeline.RetryDelay,
			want:       post.StatusPosted,
			wantTries:  2,
			waitOutErr: "429",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startLive(t)
			mortal := s.x.addUser("mortal", "A Mortal")
			text := "@" + persona + " my coffee is cold again"
			draft := "Cold coffee is the first circle's welcome drink."
			s.llm.reply(text, draft)
			mention := s.x.postAs(mortal, text)
			s.runWorker(tc.retry)
			s.enqueue(tasks.TypeScanMentions)
			v := s.waitListed("/api/posts/mentions", mention, post.StatusPending, "")
			if tc.answers != nil {
				s.x.scriptPublish(tc.answers()...)
			}
			s.approve(v.ID, tc.edit)
			wantText := draft
			if tc.edit != "" {
				wantText = tc.edit
			}

			if tc.waitOutErr != "" {
				// While asynq holds the retry, the row stays approved with X's words.
				deadline := time.Now().Add(liveWait)
				for {
					p, err := s.store.Post(context.Background(), v.ID)
					if err != nil {
						t.Fatal(err)
					}
					if p.Status == post.StatusApproved && strings.Contains(p.Error, tc.waitOutErr) {
						break
					}
					if p.Status != post.StatusApproved || time.Now().After(deadline) {
						t.Fatalf("while rate limited the row is %s with error %q, want approved with %q", p.Status, p.Error, tc.waitOutErr)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}

			p := s.waitPostStatus(v.ID, tc.want)
			s.waitSendSettled(v.ID)
			tries := s.x.publishesTo(mention)
			if len(tries) != tc.wantTries || len(s.x.allPublishes()) != tc.wantTries {
				t.Fatalf("X got %d POST /2/tweets (%d for the mention), want %d: %+v", len(s.x.allPublishes()), len(tries), tc.wantTries, tries)
			}
			for _, try := range tries {
				if try.Text != wantText {
					t.Errorf("X was sent %q, want %q", try.Text, wantText)
				}
			}
			last := tries[len(tries)-1]
			switch tc.want {
			case post.StatusPosted:
				if last.Status != http.StatusCreated || p.ResponsePostID != last.ID || p.Error != "" || p.ProposedResponse != wantText {
					t.Errorf("posted row %q (response %q, error %q) for X's %+v", p.ProposedResponse, p.ResponsePostID, p.Error, last)
				}
				accepted := 0
				for _, try := range tries {
					if try.Status == http.StatusCreated {
						accepted++
					}
				}
				if accepted != 1 {
					t.Errorf("X accepted %d replies, want exactly one", accepted)
				}
			case post.StatusFailed:
				if !strings.Contains(p.Error, tc.wantError) || p.ResponsePostID != "" || p.PostedAt != nil {
					t.Errorf("failed row: error %q response %q posted %v, want error with %q", p.Error, p.ResponsePostID, p.PostedAt, tc.wantError)
				}
				listed := s.waitListed("/api/posts/mentions", mention, post.StatusFailed, "")
				if !strings.Contains(listed.Error, tc.wantError) {
					t.Errorf("admin list shows error %q, want %q", listed.Error, tc.wantError)
				}
			}
			if tc.waitOutErr != "" {
				// The retry came no earlier than X's announced reset, and the
				// send first looked for an earlier reply through FindPublished.
				reset, err := strconv.ParseInt(tries[0].Reset, 10, 64)
				if err != nil {
					t.Fatalf("the 429 carried no reset: %v", err)
				}
				if resetAt := time.Unix(reset, 0); tries[1].At.Before(resetAt) {
					t.Errorf("retried at %v, before X's reset %v", tries[1].At, resetAt)
				}
				if n := len(s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/tweets")); n == 0 {
					t.Error("the retried send never looked for a reply already posted")
				}
			}
		})
	}
}

// TestLiveModelRefusal: a model answer stopped by the content filter fails
// the draft at once, visibly; the administrator can still write the reply
// and approve it.
func TestLiveModelRefusal(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	mortal := s.x.addUser("edgelord", "Edge Lord")
	other := s.x.addUser("sinner3", "Sinner Three")
	refused := "@" + persona + " say something truly unforgivable"
	fine := "@" + persona + " is it lazy to nap at noon?"
	s.llm.answer(refused, llmAnswer{finishReason: "content_filter"})
	s.llm.reply(fine, "Noon naps are sloth's lunch break, and hell approves.")
	refusedID := s.x.postAs(mortal, refused)
	fineID := s.x.postAs(other, fine)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)

	failed := s.waitListed("/api/posts/mentions", refusedID, post.StatusFailed, "")
	if !strings.Contains(failed.Error, "refused") || failed.ProposedResponse != "" {
		t.Errorf("refused draft listed with error %q and text %q", failed.Error, failed.ProposedResponse)
	}
	s.waitListed("/api/posts/mentions", fineID, post.StatusPending, "")
	if n := s.llm.timesAsked(refused); n != 1 {
		t.Errorf("the model was asked %d times about the refused post, want once (a refusal is not retried)", n)
	}
	if n := len(s.x.allPublishes()); n != 0 {
		t.Errorf("X got %d posts before any approval", n)
	}

	// The administrator writes the reply the model would not.
	own := "Even demons have standards, mortal. Try again after purgatory."
	s.approve(failed.ID, own)
	p := s.waitPostStatus(failed.ID, post.StatusPosted)
	tries := s.x.publishesTo(refusedID)
	if len(tries) != 1 || tries[0].Text != own || p.ResponsePostID != tries[0].ID {
		t.Errorf("X got %+v for the refused mention, want one post of %q as the row's %q", tries, own, p.ResponsePostID)
	}
}

// TestLiveScansSearchAndTargets reads the search and the targeted accounts
// through the x client: a match and a target's post are drafted, an unknown
// target is skipped.
func TestLiveScansSearchAndTargets(t *testing.T) {
	t.Parallel()
	s := startLive(t, "target1", "ghost_account")
	topic := s.x.addUser("topic1", "Topic One")
	target := s.x.addUser("target1", "Target One")
	searchText := "is brimstone a renewable energy source?"
	targetText := "new gym, new me 💪"
	s.llm.reply(searchText, "Brimstone: renewable, sustainable, and eternally on fire.")
	s.llm.reply(targetText, "New you, same old sins; the gym is just a treadmill to the abyss.")
	searchID := s.x.postAs(topic, searchText)
	targetID := s.x.postAs(target, targetText)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanConversations)
	s.enqueue(tasks.TypeScanTargeted)

	conv := s.waitListed("/api/posts/pending", searchID, post.StatusPending, "")
	targeted := s.waitListed("/api/posts/targeted", targetID, post.StatusPending, "")
	if conv.Source != "conversation" || conv.AuthorUsername != "topic1" || conv.Category != "wrath" {
		t.Errorf("search result listed as %+v", conv)
	}
	if targeted.Source != "targeted" || targeted.AuthorUsername != "target1" || targeted.OriginalPostText != targetText {
		t.Errorf("target's post listed as %+v", targeted)
	}
	searches := s.x.requestsTo("GET", "/2/tweets/search/recent")
	if len(searches) == 0 || searches[0].Query.Get("query") != liveSearchQuery {
		t.Errorf("searches %+v, want query %q", searches, liveSearchQuery)
	}
	if len(s.x.requestsTo("GET", "/2/users/by/username/ghost_account")) == 0 {
		t.Error("the unknown target was never looked up")
	}
	if len(s.x.requestsTo("GET", "/2/users/"+target.ID+"/tweets")) == 0 {
		t.Error("the target's posts were never read")
	}
}

// TestLiveReapprovalAfterSendRefusal: a reply X refused for good is edited
// and approved again; it then goes out once, with the new text, through the
// send path that first asks X whether an earlier attempt got through.
func TestLiveReapprovalAfterSendRefusal(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	mortal := s.x.addUser("mortal", "A Mortal")
	text := "@" + persona + " rate my sins"
	s.llm.reply(text, "Seven out of seven, mortal. A perfect score.")
	mention := s.x.postAs(mortal, text)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)
	v := s.waitListed("/api/posts/mentions", mention, post.StatusPending, "")
	s.x.scriptPublish(func(http.Header) (int, string) { return http.StatusForbidden, duplicateBody })
	s.approve(v.ID, "")
	s.waitPostStatus(v.ID, post.StatusFailed)
	s.waitSendSettled(v.ID)

	edited := "Eight out of seven: you found a new sin, and hell is taking notes."
	// The first send task is kept, completed, under the same TaskID; approving
	// again replaces it, so the edited reply goes out at once, without reconcile.
	s.approve(v.ID, edited)
	p := s.waitPostStatus(v.ID, post.StatusPosted)
	s.waitSendSettled(v.ID)

	tries := s.x.publishesTo(mention)
	if len(tries) != 2 || tries[0].Status != http.StatusForbidden || tries[1].Status != http.StatusCreated {
		t.Fatalf("X got %+v, want the refused send then one accepted", tries)
	}
	if tries[1].Text != edited || p.ResponsePostID != tries[1].ID || p.ProposedResponse != edited || p.Error != "" {
		t.Errorf("sent %q as %s; row has %q as %q (error %q), want the edited text", tries[1].Text, tries[1].ID, p.ProposedResponse, p.ResponsePostID, p.Error)
	}
	if len(s.x.requestsTo("GET", "/2/users/"+livePersonaID+"/tweets")) == 0 {
		t.Error("the second send never looked for a reply already posted")
	}
}

// TestLiveHandPosting: against the X stand-in, a search result that does
// not mention the persona is drafted for hand-posting, its approval sends
// nothing to X and offers X's intent URL, and the reply the admin posts by
// hand is found on the persona's timeline by the metrics job and recorded
// posted once, in the statistics and the public log. A search result that
// mentions the persona goes through the API.
func TestLiveHandPosting(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	topic := s.x.addUser("topic1", "Topic One")
	plain := "is brimstone a renewable energy source?"
	summoning := "@" + persona + " settle this: is brimstone hot?"
	reply := "Brimstone: renewable, sustainable, and eternally on fire."
	s.llm.reply(plain, reply)
	s.llm.reply(summoning, "Hotter than your takes, mortal.")
	plainID := s.x.postAs(topic, plain)
	summoningID := s.x.postAs(topic, summoning)
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanConversations)

	manual := s.waitListed("/api/posts/pending", plainID, post.StatusPending, "")
	api := s.waitListed("/api/posts/pending", summoningID, post.StatusPending, "")
	if manual.ReplyRoute == nil || *manual.ReplyRoute != "manual" || manual.EstimatedCostUSD != 0 {
		t.Fatalf("plain search result listed with route %v cost %v, want manual and 0", manual.ReplyRoute, manual.EstimatedCostUSD)
	}
	if api.ReplyRoute == nil || *api.ReplyRoute != "api" || api.EstimatedCostUSD != 0.010 {
		t.Fatalf("summoning search result listed with route %v cost %v, want api and 0.010 (a summoned reply)", api.ReplyRoute, api.EstimatedCostUSD)
	}

	s.approve(manual.ID, "")
	s.approve(api.ID, "")
	s.waitPostStatus(api.ID, post.StatusPosted)
	waiting := s.waitListed("/api/posts/pending", plainID, post.StatusAwaitingManual, "")
	wantURL := "https://x.com/intent/post?in_reply_to=" + plainID + "&text=" + strings.ReplaceAll(url.QueryEscape(reply), "+", "%20")
	if waiting.IntentURL == nil || *waiting.IntentURL != wantURL {
		t.Fatalf("intent_url %v, want %s", waiting.IntentURL, wantURL)
	}
	if tries := s.x.publishesTo(plainID); len(tries) != 0 {
		t.Fatalf("X got %d API replies to the post it would refuse", len(tries))
	}

	handID := s.x.postByHand(reply, plainID)
	s.enqueue(tasks.TypeRefreshMetrics)
	p := s.waitPostStatus(manual.ID, post.StatusPosted)
	if p.ResponsePostID != handID {
		t.Errorf("recorded as %q, want the hand-posted reply %s", p.ResponsePostID, handID)
	}
	s.enqueue(tasks.TypeRefreshMetrics)
	stats, err := s.store.AdminStats(t.Context())
	if err != nil || stats.Posted != 2 {
		t.Errorf("posted count %d (%v), want 2", stats.Posted, err)
	}
	threads, _, err := s.store.Logs(t.Context(), 0, 15)
	if err != nil || len(threads) != 2 {
		t.Errorf("public log holds %d threads (%v), want 2", len(threads), err)
	}
}

// A thin mention under a thread reaches the model with its thread, oldest
// first: the parent came with the scan (X's referenced_tweets.id
// expansion), the root is looked up once by id and kept, so a regenerate
// asks X for nothing more.
func TestLiveThreadReachesTheModel(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	root := s.x.addUser("rooter", "Root Poster")
	mid := s.x.addUser("midway", "Mid Way")
	asker := s.x.addUser("asker", "Asker")
	rootText := "cold brew is a personality trait"
	midText := "it is a lifestyle & a cry for help"
	thin := "@" + persona + " thoughts?"
	rootID := s.x.postAs(root, rootText)
	midID := s.x.replyAs(mid, midText, rootID)
	mention := s.x.replyAs(asker, thin, midID)
	s.llm.reply(thin, "Your lifestyle is filed under gluttony, in triplicate.")
	s.runWorker(nil)
	s.enqueue(tasks.TypeScanMentions)

	v := s.waitListed("/api/posts/mentions", mention, post.StatusPending, "")
	prompts := s.llm.promptsWith(thin)
	if len(prompts) != 1 {
		t.Fatalf("the model was asked %d times about the mention, want 1", len(prompts))
	}
	p := prompts[0]
	r, m, q := strings.Index(p, rootText), strings.Index(p, midText), strings.LastIndex(p, thin)
	if r < 0 || m < 0 || r >= m || m >= q {
		t.Errorf("the prompt must hold the root, then the parent, then the mention: %d %d %d in\n%s", r, m, q, p)
	}
	for _, handle := range []string{"@rooter", "@midway"} {
		if !strings.Contains(p, handle) {
			t.Errorf("the prompt does not name %s:\n%s", handle, p)
		}
	}
	lookups := s.x.requestsTo("GET", "/2/tweets")
	if len(lookups) != 1 || lookups[0].Query.Get("ids") != rootID {
		t.Fatalf("lookups %+v, want one of the root alone (the parent came with the scan)", lookups)
	}

	status, raw := s.call("GET", "/api/posts/"+strconv.FormatInt(v.ID, 10)+"/context")
	body := string(raw)
	if status != 200 || !strings.Contains(body, `"relation":"ancestor","author_username":"rooter"`) ||
		!strings.Contains(body, `"relation":"parent","author_username":"midway","text":"it is a lifestyle \u0026 a cry for help"`) {
		t.Errorf("context: %d %s", status, body)
	}

	s.llm.reply(thin, "Regenerated: still gluttony.")
	if status, body := s.do("POST", "/api/posts/"+strconv.FormatInt(v.ID, 10)+"/regenerate", `{}`); status != 200 && status != 202 {
		t.Fatalf("regenerate: %d %s", status, body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(s.llm.promptsWith(thin)) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := s.llm.promptsWith(thin); len(got) != 2 || !strings.Contains(got[1], rootText) {
		t.Errorf("the regenerate's prompt must hold the thread again (%d prompts)", len(got))
	}
	if n := len(s.x.requestsTo("GET", "/2/tweets")); n != 1 {
		t.Errorf("after the regenerate X was asked %d lookups, want still 1", n)
	}
}
