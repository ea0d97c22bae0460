package api

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type loginResponse struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// login exchanges the administrator's name and password for a bearer token.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	// A page elsewhere can post text/plain without asking first; only a
	// same-origin script may send JSON, so guessing from visitors' browsers ends here.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return &Error{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be application/json"}
	}
	var req loginRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Username == "" || req.Password == "" {
		return badRequest("username and password are required")
	}
	if len(req.Username) > 128 || len(req.Password) > 1024 {
		return badRequest("username or password is too long")
	}
	if strings.ContainsRune(req.Username, 0) || strings.ContainsRune(req.Password, 0) {
		return badRequest("username and password must not contain NUL characters")
	}
	token, expires, err := s.auth.Login(r.Context(), req.Username, req.Password, clientAddress(r, s.trustedProxies))
	if err != nil {
		return err
	}
	http.SetCookie(w, s.sessionCookie(r, token, expires))
	respondJSON(w, http.StatusOK, loginResponse{Token: token, ExpiresAt: expires.UTC()})
	return nil
}

// logout revokes the request's token.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.auth.Logout(r.Context(), bearerToken(r)); err != nil {
		return err
	}
	http.SetCookie(w, s.sessionCookie(r, "", time.Time{}))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// logoutAll revokes every session of the request's admin ("log out everywhere").
func (s *Server) logoutAll(w http.ResponseWriter, r *http.Request) error {
	if err := s.auth.LogoutAll(r.Context(), bearerToken(r)); err != nil {
		return err
	}
	http.SetCookie(w, s.sessionCookie(r, "", time.Time{}))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// sessionCookie is the cookie that carries token to the ops pages until
// expires; an empty token makes the cookie that deletes it. With an https
// PUBLIC_URL it is Secure and __Host- prefixed, which also pins it to the
// whole site (Path=/); otherwise it is scoped to the admin's path, and Secure
// when the request came over TLS.
func (s *Server) sessionCookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: s.cookieName(), Value: token, Path: AdminPath, Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secureRequest(r)}
	if s.httpsPublic {
		c.Path = "/"
	}
	if token == "" {
		c.Expires, c.MaxAge = time.Time{}, -1
	}
	return c
}

// cookieName is the session cookie's name; see sessionCookie.
func (s *Server) cookieName() string {
	if s.httpsPublic {
		return "__Host-" + sessionCookieName
	}
	return sessionCookieName
}

// secureRequest reports whether the browser reached the site over https: the
// PUBLIC_URL says so, the connection is TLS, or a trusted proxy says so.
func (s *Server) secureRequest(r *http.Request) bool {
	if s.httpsPublic || r.TLS != nil {
		return true
	}
	return fromTrustedProxy(r, s.trustedProxies) &&
		strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")
}

// fromTrustedProxy reports whether the request's peer is a trusted proxy.
func fromTrustedProxy(r *http.Request, trusted []netip.Prefix) bool {
	addr, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && isTrusted(addr.Addr(), trusted)
}

// clientAddress is the address a login is throttled by: the peer's IP, or,
// when the peer is a trusted proxy, the nearest address in X-Forwarded-For
// that is not one. Headers from anyone else are ignored, since any client can
// forge them to dodge the throttle.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(addr, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := parseHop(strings.TrimSpace(hops[i]))
		if err != nil {
			// A hop a trusted proxy could not vouch for: stop at the last known one.
			break
		}
		addr = hop
		if !isTrusted(hop, trusted) {
			break
		}
	}
	return addr.Unmap().String()
}

// parseHop reads one X-Forwarded-For entry: an address, possibly with a port
// ("203.0.113.7:5555", "[2001:db8::5]:443") or in brackets ("[2001:db8::5]").
func parseHop(hop string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(hop); err == nil {
		return a, nil
	}
	if ap, err := netip.ParseAddrPort(hop); err == nil {
		return ap.Addr(), nil
	}
	if strings.HasPrefix(hop, "[") && strings.HasSuffix(hop, "]") {
		return netip.ParseAddr(hop[1 : len(hop)-1])
	}
	return netip.ParseAddr(hop)
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}
