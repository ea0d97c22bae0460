package x

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/platform"
)

// This file holds an independent OAuth 1.0a (RFC 5849) HMAC-SHA1 verifier
// for the fake X server, so that the client's signatures (made by
// dghubble/oauth1) are checked by code that shares nothing with the signer.

// rfc3986Encode percent-encodes every byte outside the unreserved set
// (RFC 5849 section 3.6).
func rfc3986Encode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// signatureBase builds the signature base string of RFC 5849 section 3.4.1
// from the method, the base string URI and every (decoded) parameter.
func signatureBase(method, baseURI string, params [][2]string) string {
	enc := make([][2]string, len(params))
	for i, p := range params {
		enc[i] = [2]string{rfc3986Encode(p[0]), rfc3986Encode(p[1])}
	}
	// Sort by encoded name, then by encoded value (section 3.4.1.3.2).
	sort.Slice(enc, func(i, j int) bool {
		if enc[i][0] != enc[j][0] {
			return enc[i][0] < enc[j][0]
		}
		return enc[i][1] < enc[j][1]
	})
	pairs := make([]string, len(enc))
	for i, p := range enc {
		pairs[i] = p[0] + "=" + p[1]
	}
	return strings.ToUpper(method) + "&" + rfc3986Encode(baseURI) + "&" + rfc3986Encode(strings.Join(pairs, "&"))
}

// hmacSHA1 signs base with consumer and token secrets (section 3.4.2).
func hmacSHA1(base, consumerSecret, tokenSecret string) string {
	mac := hmac.New(sha1.New, []byte(rfc3986Encode(consumerSecret)+"&"+rfc3986Encode(tokenSecret)))
	mac.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// parseAuthorization reads the OAuth parameters of an Authorization header
// (section 3.5.1), percent-decoded.
func parseAuthorization(h string) (map[string]string, error) {
	rest, ok := strings.CutPrefix(h, "OAuth ")
	if !ok {
		return nil, errors.New("authorization is not OAuth")
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, fmt.Errorf("malformed oauth parameter %q", part)
		}
		dk, err1 := url.PathUnescape(k)
		dv, err2 := url.PathUnescape(v[1 : len(v)-1])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("oauth parameter %q: %w", part, err)
		}
		if _, dup := out[dk]; dup {
			return nil, fmt.Errorf("duplicate oauth parameter %q", dk)
		}
		out[dk] = dv
	}
	return out, nil
}

// requestBaseURI is the base string URI of a request received by a plain
// HTTP server (section 3.4.1.2): scheme, lowercase host without the default
// port, and the path as sent.
func requestBaseURI(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := strings.ToLower(r.Host)
	if h, port, ok := strings.Cut(host, ":"); ok && (scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		host = h
	}
	return scheme + "://" + host + r.URL.EscapedPath()
}

// verifyOAuth checks r's OAuth 1.0a HMAC-SHA1 signature against the
// expected credentials; body is r's body, read by the caller.
func verifyOAuth(r *http.Request, body []byte, consumerKey, consumerSecret, token, tokenSecret string) error {
	op, err := parseAuthorization(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	switch {
	case op["oauth_consumer_key"] != consumerKey:
		return fmt.Errorf("oauth_consumer_key %q", op["oauth_consumer_key"])
	case op["oauth_token"] != token:
		return fmt.Errorf("oauth_token %q", op["oauth_token"])
	case op["oauth_signature_method"] != "HMAC-SHA1":
		return fmt.Errorf("oauth_signature_method %q", op["oauth_signature_method"])
	case op["oauth_version"] != "" && op["oauth_version"] != "1.0":
		return fmt.Errorf("oauth_version %q", op["oauth_version"])
	case op["oauth_nonce"] == "":
		return errors.New("no oauth_nonce")
	}
	ts, err := strconv.ParseInt(op["oauth_timestamp"], 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return fmt.Errorf("oauth_timestamp %q", op["oauth_timestamp"])
	}
	got, ok := op["oauth_signature"]
	if !ok {
		return errors.New("no oauth_signature")
	}

	var params [][2]string
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	for k, vs := range query {
		for _, v := range vs {
			params = append(params, [2]string{k, v})
		}
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return fmt.Errorf("form body: %w", err)
		}
		for k, vs := range form {
			for _, v := range vs {
				params = append(params, [2]string{k, v})
			}
		}
	}
	for k, v := range op {
		if k != "oauth_signature" && k != "realm" {
			params = append(params, [2]string{k, v})
		}
	}
	want := hmacSHA1(signatureBase(r.Method, requestBaseURI(r), params), consumerSecret, tokenSecret)
	if !hmac.Equal([]byte(got), []byte(want)) {
		return fmt.Errorf("oauth_signature %q, want %q", got, want)
	}
	return nil
}

// TestSignatureVerifier checks the verifier itself against the worked
// example of X's "Creating a signature" guide, so that a passing signature
// check on the fake server means a correct signature, not two matching bugs.
func TestSignatureVerifier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		method         string
		baseURI        string
		params         [][2]string
		consumerSecret string
		tokenSecret    string
		want           string
	}{
		{
			name:    "x guide example",
			method:  "post",
			baseURI: "https://api.twitter.com/1.1/statuses/update.json",
			params: [][2]string{
				{"status", "Hello Ladies + Gentlemen, a signed OAuth request!"},
				{"include_entities", "true"},
				{"oauth_consumer_key", "xvz1evFS4wEEPTGEFPHBog"},
				{"oauth_nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"},
				{"oauth_signature_method", "HMAC-SHA1"},
				{"oauth_timestamp", "1318622958"},
				{"oauth_token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"},
				{"oauth_version", "1.0"},
			},
			consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
			tokenSecret:    "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
			want:           "hCtSmYh+iHYCEqBWrE7C7hYmtUk=",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hmacSHA1(signatureBase(tt.method, tt.baseURI, tt.params), tt.consumerSecret, tt.tokenSecret)
			if got != tt.want {
				t.Errorf("signature = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseAuthorization(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		header  string
		want    map[string]string
		wantErr bool
	}{
		{
			name:   "decodes values",
			header: `OAuth oauth_consumer_key="k", oauth_signature="a%2Bb%3D", oauth_nonce="n%20n"`,
			want:   map[string]string{"oauth_consumer_key": "k", "oauth_signature": "a+b=", "oauth_nonce": "n n"},
		},
		{name: "not oauth", header: `Bearer abc`, wantErr: true},
		{name: "unquoted", header: `OAuth oauth_nonce=abc`, wantErr: true},
		{name: "duplicate", header: `OAuth a="1", a="2"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAuthorization(tt.header)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestVerifierDetectsTampering signs a real request through the client and
// checks that the verifier accepts it as sent and refuses any change to what
// the signature covers.
func TestVerifierDetectsTampering(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tamper  func(r *http.Request)
		wantErr bool
	}{
		{name: "as sent", tamper: func(*http.Request) {}},
		{name: "query value changed", tamper: func(r *http.Request) {
			r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "since_id=42", "since_id=43", 1)
		}, wantErr: true},
		{name: "query parameter added", tamper: func(r *http.Request) { r.URL.RawQuery += "&max_results=5" }, wantErr: true},
		{name: "path changed", tamper: func(r *http.Request) { r.URL.Path = "/2/users/8/mentions"; r.URL.RawPath = "" }, wantErr: true},
		{name: "method changed", tamper: func(r *http.Request) { r.Method = http.MethodPost }, wantErr: true},
		{name: "host changed", tamper: func(r *http.Request) { r.Host = "evil.example" }, wantErr: true},
		{name: "stale timestamp", tamper: func(r *http.Request) {
			h := r.Header.Get("Authorization")
			i := strings.Index(h, `oauth_timestamp="`) + len(`oauth_timestamp="`)
			j := i + strings.Index(h[i:], `"`)
			r.Header.Set("Authorization", h[:i]+"1318622958"+h[j:])
		}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var captured *http.Request
			hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				captured = r
				return nil, errors.New("captured")
			})}
			c, err := New(Config{BaseURL: "http://api.example:8080", APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret, HTTPClient: hc})
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Mentions(t.Context(), "7", platform.Range{SinceID: "42"})
			if captured == nil {
				t.Fatal("no request captured")
			}
			captured.Host = captured.URL.Host
			tt.tamper(captured)
			err = verifyOAuth(captured, nil, testKey, testSecret, testToken, testTokenSecret)
			if (err != nil) != tt.wantErr {
				t.Errorf("verifyOAuth = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}
