package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"infernal/pkg/auth"
	"infernal/pkg/knowledge"
)

type ctxKey int

const requestIDKey ctxKey = iota

// requestID returns the id given to the request by withRequestID.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// withRequest gives every request an id, echoed in X-Request-Id, that ties
// its log lines together (a sane id sent by a proxy is kept), and a
// deadline of d, so the work behind a request stops once its answer can no
// longer be written. Both go in one new context, so the request is copied
// once, whose timer starts only if something waits (see requestContext).
func withRequest(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			if !validRequestID(id) {
				var b [8]byte
				_, _ = rand.Read(b[:])
				id = hex.EncodeToString(b[:])
			}
			w.Header()["X-Request-Id"] = []string{id}
			ctx, release := newRequestContext(r.Context(), id, d)
			defer release()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if c != '-' && c != '_' && c != '.' && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// logRequests writes one structured line per request. The line goes to
// the logger's handler directly: slog.Logger.Log would also look up its
// caller's program counter, which the JSON lines never show.
func (s *Server) logRequests(next http.Handler) http.Handler {
	h := s.log.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		start := time.Now()
		next.ServeHTTP(ww, r)
		level := slog.LevelInfo
		if ww.Status() >= 500 {
			level = slog.LevelError
		}
		ctx := r.Context()
		if !h.Enabled(ctx, level) {
			return
		}
		end := time.Now()
		rec := slog.NewRecord(end, level, "http", 0)
		rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", ww.Status()),
			slog.Int("bytes", ww.BytesWritten()), slog.Int64("duration_ms", end.Sub(start).Milliseconds()),
			slog.String("request_id", requestID(ctx)))
		// A handler's error cannot be reported anywhere but the log itself.
		_ = h.Handle(ctx, rec)
	})
}

// recoverPanics turns a panic into a 500 JSON answer; the stack goes to the
// log only, never to the client.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if err, ok := rec.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(rec)
			}
			s.log.ErrorContext(r.Context(), "panic", "panic", rec, "stack", string(debug.Stack()), "request_id", requestID(r.Context()))
			respondJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
		}()
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy fits a Vite build: scripts and styles from the site
// itself (style attributes allowed for React's inline styles), images from
// the site, data: URLs (assets Vite inlines) and, over https, the
// platform's media hosts only (avatars and media previews), never any other
// host. The hosts were checked by pkg/config, so they cannot end the
// directive.
func contentSecurityPolicy(mediaHosts []string) string {
	img := "'self' data:"
	for _, h := range mediaHosts {
		img += " https://" + h
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
		"img-src " + img + "; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
		"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
}

// headerValue is one header of every answer, its value made once.
type headerValue struct {
	// key is canonical.
	key   string
	value []string
}

// securityHeaderValues returns the headers every answer carries, csp
// being its content security policy. Each value is a slice of one, shared
// by every answer: a handler may replace it (Header.Set) or add to it
// (Header.Add, which copies a full slice), never change it in place.
func securityHeaderValues(csp string) []headerValue {
	return []headerValue{
		{key: "Content-Security-Policy", value: []string{csp}},
		{key: "X-Content-Type-Options", value: []string{"nosniff"}},
		{key: "X-Frame-Options", value: []string{"DENY"}},
		{key: "Referrer-Policy", value: []string{"strict-origin-when-cross-origin"}},
		{key: "Cross-Origin-Opener-Policy", value: []string{"same-origin"}},
		{key: "Permissions-Policy", value: []string{"camera=(), microphone=(), geolocation=()"}},
	}
}

// securityHeaders sets the headers every answer carries, without
// formatting or allocating them per request.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, v := range s.securityHeaderValues {
			h[v.key] = v.value
		}
		next.ServeHTTP(w, r)
	})
}

// opsPolicy lets the queue dashboard's page boot from its inline scripts,
// those only: the answer is held until complete and, when it is HTML, its
// content security policy allows each inline script by its SHA-256 hash,
// never 'unsafe-inline'. The page is reachable only after login, and no
// answer of the dashboard is stored, whatever caching it asks for.
func (s *Server) opsPolicy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held := &heldResponse{header: w.Header(), status: http.StatusOK}
		next.ServeHTTP(held, r)
		body := held.body.Bytes()
		ct := w.Header().Get("Content-Type")
		if ct == "" && len(body) > 0 {
			// As net/http would sniff it, but before the policy is chosen.
			ct = http.DetectContentType(body)
			w.Header().Set("Content-Type", ct)
		}
		// Like every admin answer; the dashboard's own choice is overruled.
		w.Header().Set("Cache-Control", "no-store")
		if strings.HasPrefix(ct, "text/html") {
			w.Header().Set("Content-Security-Policy", strings.Replace(s.csp,
				"script-src 'self'", "script-src 'self'"+inlineScriptHashes(body), 1))
		}
		w.WriteHeader(held.status)
		// The status is sent: a failed write can only be a client gone.
		_, _ = w.Write(body)
	})
}

// inlineScriptPattern finds the text of each inline script (a <script>
// without attributes) of a page.
var inlineScriptPattern = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// inlineScriptHashes lists the CSP sources of page's inline scripts, each
// " 'sha256-<base64>'", in order.
func inlineScriptHashes(page []byte) string {
	var b strings.Builder
	for _, m := range inlineScriptPattern.FindAllSubmatch(page, -1) {
		sum := sha256.Sum256(m[1])
		b.WriteString(" 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'")
	}
	return b.String()
}

// heldResponse holds a handler's answer until it is complete; its headers
// are the real writer's.
type heldResponse struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

// Header returns the real writer's headers.
func (h *heldResponse) Header() http.Header { return h.header }

// WriteHeader keeps the first status.
func (h *heldResponse) WriteHeader(status int) {
	if !h.wrote {
		h.status, h.wrote = status, true
	}
}

// Write holds b.
func (h *heldResponse) Write(b []byte) (int, error) {
	h.wrote = true
	return h.body.Write(b)
}

// allowMetricsToken lets Prometheus read /metrics with the configured
// METRICS_TOKEN as its bearer token, without an admin session (which lives
// only hours); anything else goes on to the admin login check. The token is
// compared by its hash, in constant time.
func (s *Server) allowMetricsToken(admin func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		guarded := admin(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s.metricsToken != nil {
				got := sha256.Sum256([]byte(bearerToken(r)))
				if subtle.ConstantTimeCompare(got[:], s.metricsToken) == 1 {
					next.ServeHTTP(w, r)
					return
				}
			}
			guarded.ServeHTTP(w, r)
		})
	}
}

// strictTransport tells browsers that reached the site over https to keep to
// https (HSTS).
func (s *Server) strictTransport(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.secureRequest(r) {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// requireSameOrigin refuses a state-changing request made by a page of
// another site, which a browser would send with the session cookie: any
// method but GET, HEAD and OPTIONS needs Sec-Fetch-Site: same-origin or, from
// browsers that do not send it, an Origin that is the site's own. A bearer
// header proves a script of the site itself, since no other page can set it.
func (s *Server) requireSameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		ok := bearerToken(r) != ""
		if site := r.Header.Get("Sec-Fetch-Site"); !ok && site != "" {
			ok = site == "same-origin"
		} else if origin := r.Header.Get("Origin"); !ok && origin != "" {
			ok = s.ownOrigin(r, origin)
		}
		if !ok {
			s.respondError(w, r, &Error{Status: http.StatusForbidden, Message: "cross-site request refused: it must come from this site's own pages"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownOrigin reports whether an Origin header names this site: the PUBLIC_URL
// when set, else the host the request was sent to.
func (s *Server) ownOrigin(r *http.Request, origin string) bool {
	if s.publicURL != "" {
		return strings.EqualFold(origin, s.publicURL)
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// limitBody caps every request body at maxBody (an import's at
// maxImportBytes, a knowledge upload's at maxKnowledgeBody). A body declared larger is
// refused before anything is read, so no "100 Continue" is sent and a client
// waiting on "Expect: 100-continue" reads the 413 instead of a reset.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := int64(maxBody)
		tooLarge := errBodyTooLarge
		switch {
		case r.URL.Path == importPath && r.Method == http.MethodPost:
			// An import of past replies and a knowledge document are the
			// larger bodies; their own 413 names their limits.
			limit, tooLarge = maxImportBytes, fmt.Sprintf("an import takes at most %d bytes", maxImportBytes)
		case r.URL.Path == knowledgePath && r.Method == http.MethodPost:
			limit, tooLarge = maxKnowledgeBody, knowledge.ErrTooLarge.Error()
		}
		if r.ContentLength > limit {
			if limit != maxBody {
				w.Header().Set("Connection", "close")
				respondJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge})
				return
			}
			// The unread body makes the connection unusable for a next request.
			w.Header().Set("Connection", "close")
			respondJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": errBodyTooLarge})
			return
		}
		if r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

// noStore marks an answer as never to be kept by a cache: the metrics
// name the queues' and the process's state, for its reader only.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// sessionCookieName names the cookie that carries the token for the ops
// pages, which a browser opens by navigation and so cannot send a bearer
// header (see Server.cookieName for its prefix behind https).
const sessionCookieName = adminName + "_session"

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// requireAdmin lets through only requests with a live bearer token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.auth.Authenticate(r.Context(), bearerToken(r)); err != nil {
			s.respondError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireAdminPage lets through ops pages with a live token, from the header
// or the session cookie; a browser without one is sent to the login page.
func (s *Server) requireAdminPage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := bearerToken(r)
		if c, err := r.Cookie(s.cookieName()); token == "" && err == nil {
			token = c.Value
		}
		err := s.auth.Authenticate(r.Context(), token)
		if errors.Is(err, auth.ErrUnauthenticated) && r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, adminLoginPath, http.StatusSeeOther)
			return
		}
		if err != nil {
			s.respondError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}
