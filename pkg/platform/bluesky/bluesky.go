// Package bluesky is a client for Bluesky (the AT Protocol) implementing
// platform.Platform on the indigo SDK. It talks to the persona's PDS only;
// the PDS passes the app.bsky reads on to its AppView.
//
// A post's id is its AT URI (at://did/app.bsky.feed.post/rkey); an author's
// id is the DID. The bounds of a timeline read (platform.Range) are keys of
// the form "<indexedAt> <uri>", which sort as the AppView indexed the posts,
// so that a post indexed late is never skipped by a cursor.
//
// Like the X client it never retries: every refusal is a *platform.Error
// (wrapped with a "bluesky: " prefix).
package bluesky

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluesky-social/indigo/atproto/atclient"
	"github.com/bluesky-social/indigo/atproto/syntax"

	"infernal/pkg/atproto"
	"infernal/pkg/platform"
	"infernal/pkg/ratelimit"
)

// DefaultPDSURL is Bluesky's own PDS host, used when Config.PDSURL is empty.
const DefaultPDSURL = atproto.DefaultPDSURL

// UserAgent is the User-Agent header sent with every request.
const UserAgent = "infernal-bluesky/1.0"

const (
	// defaultTimeout is the HTTP timeout when Config.HTTPClient is nil.
	defaultTimeout = 30 * time.Second
	// maxErrorBody bounds how much of an error answer is read to classify it.
	maxErrorBody = 64 << 10
)

// Limiter keeps the rate-limit windows every process shares
// (*ratelimit.Windows is one).
type Limiter interface {
	// Reserve takes a call of endpoint; a non-zero closedUntil means the
	// window is closed and the call must not be sent before then.
	Reserve(ctx context.Context, endpoint string) (closedUntil time.Time, err error)
	// Record keeps what an answer's headers say of endpoint's windows, in
	// X's x-rate-limit-* names (the client translates Bluesky's).
	Record(ctx context.Context, endpoint string, h http.Header) error
}

// Config holds what the client needs to act as the persona on Bluesky.
type Config struct {
	// PDSURL is the persona's PDS, DefaultPDSURL when empty.
	PDSURL string
	// Handle is the persona's handle (or DID), without the @.
	Handle string
	// AppPassword is an app password of the account (never its password).
	AppPassword string
	// HTTPClient, when set, supplies the transport and timeout.
	HTTPClient *http.Client
	// Limiter, when set, keeps the rate-limit windows shared by every process.
	Limiter Limiter
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// Client talks to the persona's PDS. It is safe for concurrent use.
type Client struct {
	api     *atclient.APIClient
	session *session
	now     func() time.Time
	// clockID is the TID clock id of this client's record keys, random so
	// that two processes choosing a key in the same microsecond differ.
	clockID uint
}

var _ platform.Platform = (*Client)(nil)

// New checks cfg and returns a client. No session is made until the first call.
func New(cfg Config) (*Client, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.PDSURL), "/")
	if base == "" {
		base = DefaultPDSURL
	}
	if err := atproto.ValidatePDSURL(base); err != nil {
		return nil, fmt.Errorf("bluesky: config: PDS URL: %w", err)
	}
	if err := atproto.ValidateHandle(cfg.Handle); err != nil {
		return nil, fmt.Errorf("bluesky: config: handle: %w", err)
	}
	if err := atproto.ValidateAppPassword(cfg.AppPassword); err != nil {
		return nil, fmt.Errorf("bluesky: config: app password %w", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: defaultTimeout}
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	inner := *hc
	inner.Transport = &limitTransport{base: rt, limiter: cfg.Limiter, now: now}
	// A redirect would carry the session's token to wherever it points.
	inner.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	api := atclient.NewAPIClient(base)
	api.Client = &inner
	api.Headers.Set("User-Agent", UserAgent)
	s := &session{host: base, identifier: strings.TrimPrefix(strings.TrimSpace(cfg.Handle), "@"), password: cfg.AppPassword}
	api.Auth = s
	return &Client{api: api, session: s, now: now, clockID: uint(rand.Uint64() % 1024)}, nil
}

// Name returns "bluesky", the platform's name in stored rows.
func (c *Client) Name() string { return "bluesky" }

// SessionsCreated is how many sessions (com.atproto.server.createSession)
// this client has made: one, unless a refresh failed.
func (c *Client) SessionsCreated() int64 { return c.session.created.Load() }

// session is the client's password session: created once, refreshed with
// its refresh token when the access token expires, and created anew only
// when the refresh fails (Bluesky limits session creation per account and
// day). Its tokens and the password are never logged nor put in an error.
type session struct {
	host, identifier, password string

	mu      sync.Mutex
	access  string
	refresh string
	did     string
	created atomic.Int64
}

// tokens returns the current tokens, creating the session when there is none.
func (s *session) tokens(ctx context.Context, hc *http.Client) (access, refresh string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.access == "" {
		if err := s.createLocked(ctx, hc); err != nil {
			return "", "", err
		}
	}
	return s.access, s.refresh, nil
}

// DID returns the account's DID, creating the session when there is none.
func (s *session) DID(ctx context.Context, hc *http.Client) (string, error) {
	if _, _, err := s.tokens(ctx, hc); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.did, nil
}

type sessionAnswer struct {
	AccessJwt  string `json:"accessJwt"`
	RefreshJwt string `json:"refreshJwt"`
	Did        string `json:"did"`
}

func (s *session) createLocked(ctx context.Context, hc *http.Client) error {
	body, err := json.Marshal(map[string]string{"identifier": s.identifier, "password": s.password})
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	var out sessionAnswer
	if err := s.call(ctx, hc, "com.atproto.server.createSession", "", body, &out); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	s.created.Add(1)
	s.access, s.refresh, s.did = out.AccessJwt, out.RefreshJwt, out.Did
	return nil
}

// renew refreshes the session after prior (the access token a call found
// expired), unless another call already did; when the refresh itself is
// refused, a new session is created.
func (s *session) renew(ctx context.Context, hc *http.Client, prior string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.access != prior && s.access != "" {
		return nil
	}
	var out sessionAnswer
	err := s.call(ctx, hc, "com.atproto.server.refreshSession", s.refresh, nil, &out)
	if err == nil {
		s.access, s.refresh = out.AccessJwt, out.RefreshJwt
		return nil
	}
	var pe *platform.Error
	if !errors.As(err, &pe) || (pe.Status != http.StatusBadRequest && pe.Status != http.StatusUnauthorized) {
		// A network failure or a server fault says nothing of the refresh
		// token: keep it, and do not spend a session creation.
		return fmt.Errorf("refresh session: %w", err)
	}
	if err := s.createLocked(ctx, hc); err != nil {
		return fmt.Errorf("refresh session refused (%s), then: %w", pe.Title, err)
	}
	return nil
}

// call POSTs a session procedure with bearer (when not empty).
func (s *session) call(ctx context.Context, hc *http.Client, nsid, bearer string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.host+"/xrpc/"+nsid, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", nsid, err)
	}
	req.Header.Set("User-Agent", UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return toPlatform(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return &platform.Error{Err: fmt.Errorf("%s: read: %w", nsid, err)}
	}
	if resp.StatusCode/100 != 2 {
		return answerError(resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: decode: %w", nsid, err)
	}
	return nil
}

// DoWithAuth sends req with the session's access token, refreshing the
// session once when the PDS says the token expired.
func (s *session) DoWithAuth(hc *http.Client, req *http.Request, _ syntax.NSID) (*http.Response, error) {
	ctx := req.Context()
	access, _, err := s.tokens(ctx, hc)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+access)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
		return resp, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close() // read in full above; the close error says nothing more
	if err != nil {
		return nil, &platform.Error{Err: fmt.Errorf("read: %w", err)}
	}
	var eb atclient.ErrorBody
	if json.Unmarshal(data, &eb) != nil || (eb.Name != "ExpiredToken" && eb.Name != "InvalidToken") {
		// Not an expired session: the caller reads the answer as it came.
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	if err := s.renew(ctx, hc, access); err != nil {
		return nil, err
	}
	retry := req.Clone(ctx)
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("retry body: %w", err)
		}
	}
	access, _, err = s.tokens(ctx, hc)
	if err != nil {
		return nil, err
	}
	retry.Header.Set("Authorization", "Bearer "+access)
	return hc.Do(retry)
}

// limitTransport keeps Bluesky's rate-limit windows (its ratelimit-limit,
// -remaining and -reset headers and its 429s) in the shared Limiter, and
// sends no call inside a closed window.
type limitTransport struct {
	base    http.RoundTripper
	limiter Limiter
	now     func() time.Time
}

// endpointOf names a request's window: "bluesky " and its XRPC method.
func endpointOf(req *http.Request) string {
	return "bluesky " + strings.TrimPrefix(req.URL.Path, "/xrpc/")
}

// translate renames Bluesky's window headers to the x-rate-limit-* names
// the shared windows keep.
func translate(h http.Header) http.Header {
	out := http.Header{}
	for _, n := range []string{"limit", "remaining", "reset"} {
		if v := h.Get("ratelimit-" + n); v != "" {
			out.Set("x-rate-limit-"+n, v)
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		out.Set("Retry-After", v)
	}
	return out
}

// RoundTrip sends req unless its window is closed, and records the answer's window.
func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	endpoint := endpointOf(req)
	if t.limiter != nil {
		closed, err := t.limiter.Reserve(req.Context(), endpoint)
		if err != nil {
			return nil, fmt.Errorf("rate limit: %w", err)
		}
		if !closed.IsZero() {
			return nil, &platform.Error{Status: http.StatusTooManyRequests, Title: "RateLimitExceeded",
				Detail: "the window of " + endpoint + " is closed", RetryAt: closed}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	h := translate(resp.Header)
	if resp.StatusCode == http.StatusTooManyRequests {
		h = ratelimit.Refused(h, t.now())
	}
	if t.limiter != nil {
		if err := t.limiter.Record(req.Context(), endpoint, h); err != nil {
			_ = resp.Body.Close() // the answer is dropped with the failure to record it
			return nil, fmt.Errorf("rate limit: %w", err)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // only for its words; a short read is fine
		_ = resp.Body.Close()
		perr := answerError(resp.StatusCode, data)
		if reset, ok := unixHeader(h.Get("x-rate-limit-reset")); ok {
			perr.RetryAt = reset
		}
		return nil, perr
	}
	return resp, nil
}

func unixHeader(v string) (time.Time, bool) {
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(v), &n); err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// answerError is the refusal of an XRPC answer with status and body.
func answerError(status int, body []byte) *platform.Error {
	var eb atclient.ErrorBody
	if json.Unmarshal(body, &eb) != nil || eb.Name == "" {
		return &platform.Error{Status: status, Title: http.StatusText(status)}
	}
	return &platform.Error{Status: status, Title: eb.Name, Detail: eb.Message}
}

// toPlatform turns what the SDK returns into a *platform.Error where it is a
// refusal or a network failure; a cancelled context stays as it is.
func toPlatform(err error) error {
	if err == nil {
		return nil
	}
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ae *atclient.APIError
	if errors.As(err, &ae) {
		return &platform.Error{Status: ae.StatusCode, Title: ae.Name, Detail: ae.Message}
	}
	return &platform.Error{Err: err}
}
