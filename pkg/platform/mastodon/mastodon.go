// Package mastodon is the platform client of Mastodon's REST API, which
// every server speaking it answers alike: Mastodon, GoToSocial, Pleroma,
// Akkoma.
//
// It is a small client of its own over net/http rather than
// github.com/mattn/go-mastodon: that library retries every 429 by itself,
// POSTs included, sends no Idempotency-Key and hides the Link header the
// notifications are paged by. Here a create carries an Idempotency-Key
// derived from the post's id and draft version (PublishKeyFor:
// infernal-<post id>-v<draft version>),
// a create whose outcome is unknown is looked for before it is sent again
// under the same key, and the rate-limit windows (X-RateLimit-Limit,
// -Remaining, -Reset in ISO 8601) are kept in the windows every process
// shares, as X's and Bluesky's are; a 429 is a refusal the caller retries
// when the window opens, never a blind back-off.
package mastodon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/ratelimit"
)

// Name is the platform's name in stored rows.
const Name = "mastodon"

// windowPrefix starts the names of the client's rate-limit windows
// (post.Descriptor.WindowPrefix).
const windowPrefix = "mastodon "

// maxErrorBody bounds the error body read for its words.
const maxErrorBody = 64 << 10

// maxBody bounds an answer's body.
const maxBody = 8 << 20

// pageSize is Mastodon's largest page of notifications and statuses.
const pageSize = 40

// maxPages bounds one read of mentions: a burst beyond it is left for the
// next read (Page.More).
const maxPages = 5

// Limiter keeps the rate-limit windows every process shares
// (*ratelimit.Windows is one).
type Limiter interface {
	// Reserve takes a call of endpoint; a non-zero closedUntil means the
	// window is closed and the call must not be sent before then.
	Reserve(ctx context.Context, endpoint string) (closedUntil time.Time, err error)
	// Record keeps the window an answer's x-rate-limit-* headers announce.
	Record(ctx context.Context, endpoint string, h http.Header) error
}

// Config is the client's configuration.
type Config struct {
	// Server is the server's address (MASTODON_SERVER), https (http only
	// on loopback, for tests).
	Server string
	// AccessToken is a token with the read and write:statuses scopes.
	AccessToken string
	// ReplyToDirect says whether a direct mention may be answered, direct
	// (the admin's setting platforms.mastodon.reply_to_direct); off, such mentions
	// are withheld and their replies refused. It is asked at every read of
	// the mentions and every reply, so a change applies without a restart;
	// nil is always off.
	ReplyToDirect func(ctx context.Context) (bool, error)
	// Limiter, when set, keeps the rate-limit windows shared by every process.
	Limiter Limiter
	// HTTP is the HTTP client, a 30 s one when nil.
	HTTP *http.Client
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// Client talks to one Mastodon server as the persona.
type Client struct {
	server        *url.URL
	token         string
	replyToDirect func(ctx context.Context) (bool, error)
	limiter       Limiter
	hc            *http.Client
	now           func() time.Time
	// domain is the server's own domain, which a local account's acct
	// leaves out (Qualify): its address's host until the server names it.
	domain atomic.Pointer[string]
}

// New returns a client of cfg.Server, which must be https (or http on a
// loopback address).
func New(cfg Config) (*Client, error) {
	u, err := ValidateServer(cfg.Server)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.AccessToken) == "" {
		return nil, errors.New("mastodon: an access token is required")
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	// A redirect would carry the token to wherever it points.
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	client := &Client{server: u, token: cfg.AccessToken, replyToDirect: cfg.ReplyToDirect, limiter: cfg.Limiter, hc: &c, now: now}
	host := strings.ToLower(u.Hostname())
	client.domain.Store(&host)
	return client, nil
}

// directAllowed reports whether a direct mention may be answered now
// (Config.ReplyToDirect); an unread setting is an error, never a yes.
func (c *Client) directAllowed(ctx context.Context) (bool, error) {
	if c.replyToDirect == nil {
		return false, nil
	}
	ok, err := c.replyToDirect(ctx)
	if err != nil {
		return false, fmt.Errorf("mastodon: read platforms.mastodon.reply_to_direct: %w", err)
	}
	return ok, nil
}

// ValidateServer checks a server's address: an absolute https URL of a
// host, without user info, query or fragment (http only on a loopback
// host). It returns it without a trailing slash.
func ValidateServer(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(raw), "/"))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("mastodon: %q is not a server's address (https://mastodon.example)", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("mastodon: %q must be https (http only on a loopback address)", raw)
	}
	return u, nil
}

// loopback reports whether host is a loopback address or localhost.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	return strings.HasPrefix(host, "127.") || host == "::1"
}

// Name identifies the platform in stored rows.
func (c *Client) Name() string { return Name }

// endpointOf names a request's window: "mastodon ", the method and the
// path with its ids replaced by ":id".
func endpointOf(method, path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			parts[i] = ":id"
		}
	}
	return windowPrefix + method + " " + strings.Join(parts, "/")
}

// translate turns Mastodon's window headers (X-RateLimit-Reset an ISO 8601
// time) into the x-rate-limit-* names, reset in unix seconds, that the
// shared windows keep.
func translate(h http.Header) http.Header {
	out := http.Header{}
	for _, n := range []string{"Limit", "Remaining"} {
		if v := h.Get("X-RateLimit-" + n); v != "" {
			out.Set("x-rate-limit-"+strings.ToLower(n), v)
		}
	}
	if v := h.Get("X-RateLimit-Reset"); v != "" {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			// Rounded up: the window must not open early.
			out.Set("x-rate-limit-reset", strconv.FormatInt(t.Add(time.Second-1).Unix(), 10))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		out.Set("Retry-After", v)
	}
	return out
}

// call sends one request and decodes its JSON answer into out (when not
// nil), returning the answer's headers. Refusals are *platform.Error; a
// 429 carries when its window opens.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body any, header http.Header, out any) (http.Header, error) {
	u := *c.server
	u.Path = c.server.Path + path
	u.RawQuery = query.Encode()
	return c.callURL(ctx, method, u.String(), path, body, header, out)
}

func (c *Client) callURL(ctx context.Context, method, rawURL, path string, body any, header http.Header, out any) (http.Header, error) {
	endpoint := endpointOf(method, path)
	if c.limiter != nil {
		closed, err := c.limiter.Reserve(ctx, endpoint)
		if err != nil {
			return nil, fmt.Errorf("mastodon: rate limit: %w", err)
		}
		if !closed.IsZero() {
			return nil, &platform.Error{Status: http.StatusTooManyRequests, Title: "Too Many Requests",
				Detail: "the window of " + endpoint + " is closed", RetryAt: closed}
		}
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("mastodon: encode %s: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, fmt.Errorf("mastodon: %s %s: %w", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &platform.Error{Err: err}
	}
	defer resp.Body.Close() //nolint:errcheck // a read-only body; its close error says nothing more
	h := translate(resp.Header)
	if resp.StatusCode == http.StatusTooManyRequests {
		h = ratelimit.Refused(h, c.now())
	}
	if c.limiter != nil {
		if err := c.limiter.Record(ctx, endpoint, h); err != nil {
			return nil, fmt.Errorf("mastodon: rate limit: %w", err)
		}
	}
	if resp.StatusCode >= 300 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // only for its words; a short read is fine
		perr := answerError(resp.StatusCode, data)
		if resp.StatusCode == http.StatusTooManyRequests {
			if n, err := strconv.ParseInt(h.Get("x-rate-limit-reset"), 10, 64); err == nil {
				perr.RetryAt = time.Unix(n, 0).UTC()
			}
		}
		return resp.Header, perr
	}
	if out != nil {
		if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(out); err != nil {
			return resp.Header, &platform.Error{Status: resp.StatusCode, Err: fmt.Errorf("mastodon: decode %s: %w", path, err)}
		}
	}
	return resp.Header, nil
}

// answerError is the refusal of an answer with status and body
// ({"error": "..."}, as Mastodon words them).
func answerError(status int, body []byte) *platform.Error {
	var eb struct {
		Error string `json:"error"`
	}
	pe := &platform.Error{Status: status, Title: http.StatusText(status)}
	if json.Unmarshal(body, &eb) == nil && eb.Error != "" {
		pe.Detail = eb.Error
	}
	if status == http.StatusNotFound {
		// The status answered is gone or not visible to the persona.
		pe.Detail = "the post was deleted or not visible (" + cmpOr(pe.Detail, "Record not found") + ")"
	}
	return pe
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
