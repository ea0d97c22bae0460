// Package x is a thin typed client for the X API v2, implementing
// platform.Platform with OAuth 1.0a user-context requests.
//
// The client never retries: every refusal is returned as a *platform.Error
// (wrapped with an "x: " prefix) so that the task layer can decide, with
// platform.Temporary and platform.RateLimited, whether and when to try again.
package x

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dghubble/oauth1"

	"infernal/pkg/platform"
	"infernal/pkg/ratelimit"
	"infernal/pkg/upstream"
)

// DefaultBaseURL is the X API's address, used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.x.com"

// UserAgent is the User-Agent header sent with every request.
const UserAgent = "infernal-x/1.0"

const (
	// maxBodyBytes bounds how much of a response body is read.
	maxBodyBytes = 5 << 20
	// maxPages bounds how many pages of one timeline a single read follows.
	maxPages = 5
	// pageSize is max_results for timelines (X allows 5..100, search 10..100).
	pageSize = 100
	// lookupBatch is how many ids GET /2/tweets accepts at once.
	lookupBatch = 100
	// defaultTimeout is the HTTP timeout when Config.HTTPClient is nil.
	defaultTimeout = 30 * time.Second
)

// Config holds what the client needs to reach X on the persona's behalf.
type Config struct {
	// BaseURL is the API root, DefaultBaseURL when empty.
	BaseURL string
	// APIKey and APISecret are the app's consumer credentials.
	APIKey    string
	APISecret string
	// AccessToken and AccessSecret are the persona's user-context token.
	AccessToken  string
	AccessSecret string
	// HTTPClient, when set, supplies the transport, timeout and cookie jar;
	// requests are signed on top of its transport. Its redirect policy is
	// not used: the client never follows a redirect (see refuseRedirect).
	HTTPClient *http.Client
	// Limiter, when set, keeps the rate-limit windows shared by every
	// process: no call is sent inside a closed window.
	Limiter Limiter
	// Meter, when set, records every billable call.
	Meter Meter
	// RepliesSummon says that every reply the client posts answers a post
	// that summoned the persona (X_REPLY_POLICY=summoned: X refuses the
	// others), so that the meter bills it at the summoned reply's price.
	RepliesSummon bool
	// MaxResults is max_results of timeline and search reads (10 to 100);
	// 0 means 100.
	MaxResults int
	// Namings, when set, keeps the field naming X accepts for every
	// process (*tasks.Client is one); unset, each client keeps its own.
	Namings Namings
	// Log, when set, is told of a naming change and of a failure to share it.
	Log *slog.Logger
}

// Client talks to the X API v2. It is safe for concurrent use.
type Client struct {
	base       string
	http       *http.Client
	limiter    Limiter
	meter      Meter
	maxResults int
	// repliesSummon is Config.RepliesSummon.
	repliesSummon bool
	// selfID is the persona's id once Me has answered, so that reads of its
	// own timeline are billed as owned reads.
	selfID atomic.Pointer[string]
	// namings is Config.Namings, and naming the name of the naming this
	// client last found X to accept (for when namings is nil or down).
	namings Namings
	naming  atomic.Pointer[string]
	log     *slog.Logger
}

var _ platform.Platform = (*Client)(nil)

// New checks cfg and returns a client signing every request with OAuth 1.0a.
func New(cfg Config) (*Client, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"APIKey", cfg.APIKey},
		{"APISecret", cfg.APISecret},
		{"AccessToken", cfg.AccessToken},
		{"AccessSecret", cfg.AccessSecret},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("x: config: missing %s", strings.Join(missing, ", "))
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("x: config: BaseURL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("x: config: BaseURL %q is not an http(s) URL without query", base)
	}

	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: defaultTimeout}
	}
	// oauth1 takes its base transport from a client stored in the context.
	ctx := context.WithValue(context.Background(), oauth1.HTTPClient, hc)
	signed := oauth1.NewConfig(cfg.APIKey, cfg.APISecret).
		Client(ctx, oauth1.NewToken(cfg.AccessToken, cfg.AccessSecret))
	signed.Timeout = hc.Timeout
	signed.CheckRedirect = refuseRedirect
	signed.Jar = hc.Jar

	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxResults := cfg.MaxResults
	if maxResults == 0 {
		maxResults = pageSize
	}
	if maxResults < 10 || maxResults > pageSize {
		return nil, fmt.Errorf("x: config: MaxResults %d is not 10 to %d", maxResults, pageSize)
	}
	return &Client{base: strings.TrimRight(base, "/"), http: signed, limiter: cfg.Limiter, meter: cfg.Meter, maxResults: maxResults,
		repliesSummon: cfg.RepliesSummon, namings: cfg.Namings, log: log}, nil
}

// refuseRedirect stops the client at a 3xx: following it would sign the
// request again, with the persona's credentials, for wherever the answer
// points. The 3xx itself becomes the error (see redirectError).
func refuseRedirect(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}

// redirectError is the refusal for a 3xx answer, naming where it pointed.
func redirectError(resp *http.Response) *platform.Error {
	where := "elsewhere"
	if loc, err := resp.Location(); err == nil {
		where = loc.Redacted()
	}
	return &platform.Error{
		Status: resp.StatusCode,
		Title:  http.StatusText(resp.StatusCode),
		Detail: fmt.Sprintf("X answered %s %s with a redirect to %s; the client does not follow redirects (it would sign the request for another address)", resp.Request.Method, resp.Request.URL.Path, where),
	}
}

// Name returns "x", the platform's name in stored rows.
func (c *Client) Name() string { return "x" }

// Me returns the persona's own account (GET /2/users/me).
func (c *Client) Me(ctx context.Context) (platform.User, error) {
	var resp userResponse
	if err := c.get(ctx, "/2/users/me", url.Values{paramUserFields: {userFields}}, &resp); err != nil {
		return platform.User{}, fmt.Errorf("x: me: %w", err)
	}
	if resp.Data == nil || resp.Data.ID == "" {
		if len(resp.Errors) > 0 {
			return platform.User{}, fmt.Errorf("x: me: %w", partialError(resp.Errors[0]))
		}
		return platform.User{}, errors.New("x: me: response has no user")
	}
	id := resp.Data.ID
	c.selfID.Store(&id)
	return resp.Data.user(), nil
}

// Mentions returns posts mentioning userID within r, newest first
// (GET /2/users/:id/mentions). It follows at most five pages of 100; when
// the range holds more, the returned Page says so (More) and names the
// oldest id read, so that the caller can read the rest later with that id as
// until_id.
func (c *Client) Mentions(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	if err := required("user id", userID); err != nil {
		return platform.Page{}, fmt.Errorf("x: mentions: %w", err)
	}
	page, err := c.timeline(ctx, "/2/users/"+url.PathEscape(userID)+"/mentions", r, c.sized(nil), "pagination_token")
	if err != nil {
		return platform.Page{}, fmt.Errorf("x: mentions of %s: %w", userID, err)
	}
	return page, nil
}

// Search returns recent posts matching query within r, newest first
// (GET /2/tweets/search/recent), with the same five-page bound as
// Mentions. Recent search refuses a since_id older
// than its seven-day window; such a stale bound is dropped, since every
// post the search can still see is newer than it.
func (c *Client) Search(ctx context.Context, query string, r platform.Range) (platform.Page, error) {
	if err := required("query", query); err != nil {
		return platform.Page{}, fmt.Errorf("x: search: %w", err)
	}
	q := c.sized(url.Values{"query": {query}})
	page, err := c.timeline(ctx, "/2/tweets/search/recent", r, q, "next_token")
	if err != nil && r.SinceID != "" && staleSinceID(err) {
		page, err = c.timeline(ctx, "/2/tweets/search/recent", platform.Range{UntilID: r.UntilID}, q, "next_token")
	}
	if err != nil {
		return platform.Page{}, fmt.Errorf("x: search %q: %w", query, err)
	}
	return page, nil
}

// UserByUsername looks an account up by its handle, with or without the @
// (GET /2/users/by/username/:username). An unknown handle gives a
// *platform.Error with Status 404.
func (c *Client) UserByUsername(ctx context.Context, username string) (platform.User, error) {
	name := strings.TrimPrefix(strings.TrimSpace(username), "@")
	if err := required("username", name); err != nil {
		return platform.User{}, fmt.Errorf("x: user by username: %w", err)
	}
	var resp userResponse
	err := c.get(ctx, "/2/users/by/username/"+url.PathEscape(name), url.Values{paramUserFields: {userFields}}, &resp)
	if err != nil {
		return platform.User{}, fmt.Errorf("x: user @%s: %w", name, err)
	}
	if resp.Data == nil || resp.Data.ID == "" {
		perr := &platform.Error{Status: http.StatusNotFound, Title: "Not Found Error", Detail: "Could not find user with username: [" + name + "]."}
		if len(resp.Errors) > 0 {
			perr = partialError(resp.Errors[0])
		}
		return platform.User{}, fmt.Errorf("x: user @%s not found: %w", name, perr)
	}
	return resp.Data.user(), nil
}

// UserPosts returns userID's own posts within r, newest first
// (GET /2/users/:id/tweets, asked with exclude=retweets), with the same
// five-page bound as Mentions.
func (c *Client) UserPosts(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	if err := required("user id", userID); err != nil {
		return platform.Page{}, fmt.Errorf("x: user posts: %w", err)
	}
	page, err := c.timeline(ctx, userTweetsPath(userID), r, c.sized(url.Values{paramExclude: {excludeRetweets}}), "pagination_token")
	if err != nil {
		return platform.Page{}, fmt.Errorf("x: posts of %s: %w", userID, err)
	}
	return page, nil
}

// Publish posts text (POST /2/tweets), as a reply to inReplyToID when it is
// not empty. The returned Post has the new id and the text as X stored it;
// its CreatedAt is when X accepted it, by this machine's clock, and its
// Author is left empty (X does not say it; Me does).
func (c *Client) Publish(ctx context.Context, text, inReplyToID string) (platform.Post, error) {
	body := createTweetRequest{Text: text}
	if inReplyToID != "" {
		body.Reply = &createTweetReply{InReplyToTweetID: inReplyToID}
	}
	var resp createTweetResponse
	if err := c.post(ctx, "/2/tweets", body, &resp); err != nil {
		return platform.Post{}, fmt.Errorf("x: publish: %w", err)
	}
	if resp.Data.ID == "" {
		return platform.Post{}, errors.New("x: publish: response has no post id")
	}
	stored := resp.Data.Text
	if stored == "" {
		stored = text
	}
	return platform.Post{
		ID:          resp.Data.ID,
		InReplyToID: inReplyToID,
		Text:        unescapeText(stored),
		CreatedAt:   time.Now().UTC(),
	}, nil
}

// FindPublished reads authorID's recent posts (GET /2/users/:id/tweets) for
// one that replies to inReplyToID or, when inReplyToID is empty, one with the
// same text (X's HTML escaping undone, white space runs collapsed and links
// compared as links, since X rewrites them to t.co). For a reply it stops at
// posts older than the one answered, which the reply cannot precede.
func (c *Client) FindPublished(ctx context.Context, authorID, inReplyToID, text string) (platform.Post, bool, error) {
	if err := required("author id", authorID); err != nil {
		return platform.Post{}, false, fmt.Errorf("x: find published: %w", err)
	}
	var (
		found  platform.Post
		ok     bool
		target = normalizeText(text)
	)
	q := func(n naming) url.Values {
		return timelineQuery(n, url.Values{paramExclude: {excludeRetweets}}, platform.Range{})
	}
	_, err := c.pages(ctx, userTweetsPath(authorID), q, "pagination_token", func(r *timelineResponse) bool {
		older := false
		for _, p := range r.posts() {
			switch {
			case inReplyToID != "" && p.InReplyToID == inReplyToID:
				found, ok = p, true
				return false
			case inReplyToID == "" && p.InReplyToID == "" && (p.Text == text || normalizeText(p.Text) == target):
				found, ok = p, true
				return false
			case inReplyToID != "" && idLess(p.ID, inReplyToID):
				older = true
			}
		}
		return !older
	})
	if err != nil {
		return platform.Post{}, false, fmt.Errorf("x: find published by %s: %w", authorID, err)
	}
	return found, ok, nil
}

// Metrics returns the public counters of ids (GET /2/tweets?ids=, up to 100
// ids a request). Ids X reports as errors (deleted, protected, unknown) are
// absent from the map.
func (c *Client) Metrics(ctx context.Context, ids []string) (map[string]platform.Metrics, error) {
	uniq := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	out := make(map[string]platform.Metrics, len(uniq))
	for batch := range slices.Chunk(uniq, lookupBatch) {
		var resp timelineResponse
		q := func(n naming) url.Values {
			return url.Values{"ids": {strings.Join(batch, ",")}, n.PostFields: {"public_metrics"}}
		}
		if err := c.getPosts(ctx, "/2/tweets", q, &resp); err != nil {
			return nil, fmt.Errorf("x: metrics: %w", err)
		}
		for _, t := range resp.Data {
			if seen[t.ID] {
				out[t.ID] = t.PublicMetrics.metrics()
			}
		}
	}
	return out, nil
}

// Lookup returns the posts of ids (GET /2/tweets?ids=, up to 100 ids a
// request) with the same fields and expansions as every post read. Ids X
// reports as errors (deleted, protected, unknown) are absent.
func (c *Client) Lookup(ctx context.Context, ids []string) ([]platform.Post, error) {
	uniq := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	var out []platform.Post
	for batch := range slices.Chunk(uniq, lookupBatch) {
		var resp timelineResponse
		q := func(n naming) url.Values {
			q := timelineQuery(n, url.Values{"ids": {strings.Join(batch, ",")}}, platform.Range{})
			q.Del("max_results")
			return q
		}
		if err := c.getPosts(ctx, "/2/tweets", q, &resp); err != nil {
			return nil, fmt.Errorf("x: lookup: %w", err)
		}
		out = append(out, resp.posts()...)
	}
	c.checkHandles(ctx, out)
	return out, nil
}

// checkHandles blanks, and logs, every handle of posts that breaks X's
// syntax (see platform.ValidUsername): X never sends one, so it is a
// forgery or a fault, and a handle is quoted in the model's prompt.
func (c *Client) checkHandles(ctx context.Context, posts []platform.Post) {
	for i := range posts {
		p := &posts[i]
		if p.Author.Username != "" && !platform.ValidUsername(p.Author.Username) {
			c.log.WarnContext(ctx, "x: author handle blanked: it breaks X's handle syntax", "post_id", p.ID, "author_id", p.Author.ID, "handle", fmt.Sprintf("%.60q", p.Author.Username))
			p.Author.Username = ""
		}
		for j := range p.Mentions {
			if m := &p.Mentions[j]; m.Username != "" && !platform.ValidUsername(m.Username) {
				c.log.WarnContext(ctx, "x: mention handle blanked: it breaks X's handle syntax", "post_id", p.ID, "handle", fmt.Sprintf("%.60q", m.Username))
				m.Username = ""
			}
		}
	}
}

// timeline reads up to maxPages pages of path within r and returns them
// newest first, with the newest id as the next cursor, the oldest id read,
// and whether X had more pages than the bound let it read. Reposts are left
// out of every page (only user timelines can ask X to leave them out); the
// posts of includes (those the page's posts answer or quote) are the
// Page's Included, those whose author X returned alongside.
func (c *Client) timeline(ctx context.Context, path string, r platform.Range, extra url.Values, tokenParam string) (platform.Page, error) {
	var (
		page     platform.Page
		seen     = map[string]bool{}
		included = map[string]bool{}
	)
	q := func(n naming) url.Values { return timelineQuery(n, extra, r) }
	more, err := c.pages(ctx, path, q, tokenParam, func(resp *timelineResponse) bool {
		if page.NewestID == "" && resp.Meta.NewestID != "" {
			page.NewestID = resp.Meta.NewestID
		}
		for _, p := range resp.posts() {
			if !seen[p.ID] {
				seen[p.ID] = true
				page.Posts = append(page.Posts, p)
			}
		}
		for _, id := range resp.reposts() {
			if !seen[id] {
				seen[id] = true
				page.Reposts = append(page.Reposts, id)
			}
		}
		for _, p := range resp.included() {
			// A post whose author X did not include (v2.167 has no
			// referenced_posts.id.author_id) is left to a lookup, which
			// brings its author; X bills it once a day all the same.
			if !included[p.ID] && p.Author.Username != "" {
				included[p.ID] = true
				page.Included = append(page.Included, p)
			}
		}
		return true
	})
	if err != nil {
		return platform.Page{}, err
	}
	page.More = more
	c.checkHandles(ctx, page.Posts)
	c.checkHandles(ctx, page.Included)
	sortNewestFirst(page.Posts)
	if n := len(page.Posts); n > 0 {
		if page.NewestID == "" || idLess(page.NewestID, page.Posts[0].ID) {
			page.NewestID = page.Posts[0].ID
		}
		page.OldestID = page.Posts[n-1].ID
	}
	return page, nil
}

// pages GETs path with the query q builds, then follows meta.next_token
// (sent back as tokenParam) while each returns true, for at most maxPages
// requests. more reports that it stopped at that bound while X still
// offered a next page.
func (c *Client) pages(ctx context.Context, path string, q func(naming) url.Values, tokenParam string, each func(*timelineResponse) bool) (more bool, err error) {
	token := ""
	for range maxPages {
		var resp timelineResponse
		paged := func(n naming) url.Values {
			v := q(n)
			if token != "" {
				v.Set(tokenParam, token)
			}
			return v
		}
		if err := c.getPosts(ctx, path, paged, &resp); err != nil {
			return false, err
		}
		if len(resp.Data) == 0 && len(resp.Errors) > 0 && resp.Meta == (meta{}) {
			// Nothing but errors: the timeline itself is unreadable.
			return false, partialError(resp.Errors[0])
		}
		if !each(&resp) || resp.Meta.NextToken == "" || len(resp.Data) == 0 {
			return false, nil
		}
		token = resp.Meta.NextToken
	}
	return true, nil
}

// getPosts GETs path with the query q builds in the naming X last
// accepted. When X refuses it for its names (platform.RefusalBadRequestConfig),
// it asks again at once in the other naming and, answered, keeps that
// naming for every later request (and, through Namings, every process).
// A refusal of both namings is returned as the second one.
func (c *Client) getPosts(ctx context.Context, path string, q func(naming) url.Values, out *timelineResponse) error {
	n := c.currentNaming(ctx)
	err := c.get(ctx, path, q(n), out)
	if platform.Classify(err) != platform.RefusalBadRequestConfig {
		return err
	}
	*out = timelineResponse{}
	o := n.other()
	if err := c.get(ctx, path, q(o), out); err != nil {
		return err
	}
	c.keepNaming(ctx, o)
	return nil
}

// currentNaming is the naming kept in Namings, else the one this client
// last found accepted, else the first.
func (c *Client) currentNaming(ctx context.Context) naming {
	if c.namings != nil {
		// A Redis failure falls back on this client's own: the naming is an
		// optimisation, and a refusal corrects it at the cost of one call.
		if name, err := c.namings.Naming(ctx); err == nil && name != "" {
			return namingOf(name)
		}
	}
	if name := c.naming.Load(); name != nil {
		return namingOf(*name)
	}
	return namings[0]
}

// keepNaming keeps n as the naming X accepts, here and in Namings.
func (c *Client) keepNaming(ctx context.Context, n naming) {
	name := n.Name
	c.naming.Store(&name)
	c.log.WarnContext(ctx, "x: field naming switched: X refused the other", "naming", name, "post_fields", n.PostFields)
	if c.namings != nil {
		if err := c.namings.SetNaming(ctx, name); err != nil {
			// Not kept for the others: each finds it with one refused call.
			c.log.WarnContext(ctx, "x: field naming not shared", "naming", name, "error", err)
		}
	}
}

// sized adds max_results (Config.MaxResults) to extra.
func (c *Client) sized(extra url.Values) url.Values {
	out := url.Values{"max_results": {strconv.Itoa(c.maxResults)}}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// timelineQuery is extra plus the fields and expansions every post read asks
// for in naming n, and since_id and until_id when r sets them.
func timelineQuery(n naming, extra url.Values, r platform.Range) url.Values {
	q := url.Values{
		"max_results":    {strconv.Itoa(pageSize)},
		n.PostFields:     {n.Fields},
		paramExpansions:  {n.Expansions},
		paramUserFields:  {userFields},
		paramMediaFields: {mediaFields},
	}
	for k, v := range extra {
		q[k] = slices.Clone(v)
	}
	if r.SinceID != "" {
		q.Set("since_id", r.SinceID)
	}
	if r.UntilID != "" {
		q.Set("until_id", r.UntilID)
	}
	return q
}

func userTweetsPath(userID string) string {
	return "/2/users/" + url.PathEscape(userID) + "/tweets"
}

// required refuses an empty argument the way X would, as a final 400, so
// that a caller's mistake is not retried forever.
func required(what, value string) error {
	if strings.TrimSpace(value) != "" {
		return nil
	}
	return &platform.Error{Status: http.StatusBadRequest, Title: "Invalid Request", Detail: what + " is empty (refused before sending)"}
}

// staleSinceID reports whether err is recent search refusing its since_id.
func staleSinceID(err error) bool {
	var pe *platform.Error
	return errors.As(err, &pe) && pe.Status == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(pe.Detail), "since_id")
}

// get sends a signed GET and decodes the JSON answer into out.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	return c.do(ctx, http.MethodGet, path, q, nil, out)
}

// post sends a signed POST with body as JSON and decodes the answer into out.
func (c *Client) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	return c.do(ctx, http.MethodPost, path, nil, b, out)
}

// do sends one request. A non-2xx answer becomes a *platform.Error, a
// transport failure a *platform.Error with Status 0.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte, out any) error {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + encodeQuery(q)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	endpoint, kind := c.endpointOf(ctx, method, path, q, body)
	if c.limiter != nil {
		until, err := c.limiter.Reserve(ctx, endpoint)
		if err != nil {
			// Without the shared windows no call is safe: retried like a network failure.
			return &platform.Error{Err: err}
		}
		if !until.IsZero() {
			return &platform.Error{Status: http.StatusTooManyRequests, Title: "Rate limit window closed",
				Detail:  fmt.Sprintf("%s is closed until %s (announced by X); the call was not sent", endpoint, until.Format(time.RFC3339)),
				RetryAt: until}
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &platform.Error{Err: err}
	}
	defer resp.Body.Close()
	if c.limiter != nil {
		h := resp.Header
		if resp.StatusCode == http.StatusTooManyRequests {
			// A 429 closes its window whatever remaining count it claims.
			h = ratelimit.Refused(h, time.Now())
		}
		if err := c.limiter.Record(ctx, endpoint, h); err != nil {
			return &platform.Error{Err: err}
		}
	}
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return redirectError(resp)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return responseError(resp, data)
	}
	if readErr != nil {
		return &platform.Error{Status: 0, Err: fmt.Errorf("read %s %s: %w", method, path, readErr)}
	}
	if len(data) > maxBodyBytes {
		return fmt.Errorf("%s %s: response body exceeds %d bytes", method, path, maxBodyBytes)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode %d response: %w (body starts %q)", method, path, resp.StatusCode, err, upstream.Excerpt(string(data)))
	}
	if c.meter != nil {
		c.meter.Bill(ctx, endpoint, resources(out, kind))
	}
	return nil
}

// encodeQuery percent-encodes q per RFC 3986 (spaces as %20, not +), with
// sorted keys, the form X documents and OAuth 1.0a signs.
func encodeQuery(q url.Values) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	})
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(oauth1.PercentEncode(k))
			b.WriteByte('=')
			b.WriteString(oauth1.PercentEncode(v))
		}
	}
	return b.String()
}
