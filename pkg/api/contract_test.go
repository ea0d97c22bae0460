package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// contractPath is the API's OpenAPI document, relative to this package.
const contractPath = "../../docs/openapi.yaml"

// contract is the loaded API document and a router over its operations.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

// loadContract returns docs/openapi.yaml loaded and validated, failing t
// when it is not a valid OpenAPI document. It is read once per test binary
// (parsing it took a quarter of this package's CPU when every server did),
// and only read afterwards, by the servers of tests running in parallel.
func loadContract(t testing.TB) *contract {
	t.Helper()
	c, err := sharedContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sharedContract loads the contract the first time it is called.
var sharedContract = sync.OnceValues(func() (*contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(contractPath)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", contractPath, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", contractPath, err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", contractPath, err)
	}
	return &contract{doc: doc, router: router}, nil
})

// newServer starts h like httptest.NewServer, with every answer of the API
// checked against docs/openapi.yaml: an answer whose status the document
// does not list for its operation, or whose body does not match the
// document's schema (a field missing, of another type, or not documented),
// fails t. An answer to a route the document does not know must be the
// document's ApiError.
func newServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	c := loadContract(t)
	srv := httptest.NewServer(c.check(t, h))
	t.Cleanup(srv.Close)
	return srv
}

// checked reports whether the contract covers the answer to r: the API, the
// health checks; the SPA, the queue dashboard and /metrics are not JSON.
func checked(r *http.Request) bool {
	p := r.URL.Path
	return r.Method != http.MethodHead && (strings.HasPrefix(p, "/api/") || p == "/healthz" || p == "/readyz")
}

// check wraps h so that each answer it gives is validated before it is sent on.
func (c *contract) check(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !checked(r) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if err := c.validate(r, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Errorf("%s %s answered %d, which breaks %s: %v\nbody: %.500s", r.Method, r.URL.Path, rec.Code, contractPath, err, rec.Body.String())
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		// The test's client reads what it reads; a short write fails it there.
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// validate checks one answer against the document.
func (c *contract) validate(r *http.Request, status int, header http.Header, body []byte) error {
	// The router matches on the request as the client addressed it.
	route, pathParams, err := c.router.FindRoute(r)
	if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
		return c.validateUnrouted(status, header, body)
	}
	if err != nil {
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: pathParams, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: status,
		Header: header,
		// Every documented status must be listed, and every body match.
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	return nil
}

// validateUnrouted checks the answer to a path or method the API does not
// serve: a 404 or 405 with the document's ApiError.
func (c *contract) validateUnrouted(status int, header http.Header, body []byte) error {
	if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return errors.New("not a documented route, yet answered other than 404 or 405")
	}
	return c.validateError(header, body)
}

// validateError checks that an answer is the document's ApiError schema.
func (c *contract) validateError(header http.Header, body []byte) error {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errors.New("an error answer must be JSON")
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	schema := c.doc.Components.Schemas["ApiError"].Value
	return schema.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// The answer check fails on every kind of drift from the document, and
// passes the answers the document describes.
func TestContractCatchesDrift(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	jsonHeader := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		wantErr            bool
	}{
		{name: "documented", method: "GET", path: "/api/posts/stats", status: 200, header: jsonHeader,
			body: `{"pending":{"count":1},"posted":{"count":2},"rejected":{"count":0},"mentions":{"count":3},"platforms":["x"],"media_hosts":["pbs.twimg.com"]}`},
		{name: "field missing", method: "GET", path: "/api/posts/stats", status: 200, header: jsonHeader,
			body: `{"pending":{"count":1},"posted":{"count":2},"rejected":{"count":0}}`, wantErr: true},
		{name: "wrong type", method: "GET", path: "/api/posts/stats", status: 200, header: jsonHeader,
			body: `{"pending":{"count":"1"},"posted":{"count":2},"rejected":{"count":0},"mentions":{"count":3},"platforms":["x"],"media_hosts":["pbs.twimg.com"]}`, wantErr: true},
		{name: "field not documented", method: "GET", path: "/api/posts/stats", status: 200, header: jsonHeader,
			body: `{"pending":{"count":1},"posted":{"count":2},"rejected":{"count":0},"mentions":{"count":3},"platforms":["x"],"media_hosts":["pbs.twimg.com"],"extra":1}`, wantErr: true},
		{name: "status not documented", method: "GET", path: "/api/posts/stats", status: 418, header: jsonHeader,
			body: `{"error":"teapot"}`, wantErr: true},
		{name: "not JSON", method: "GET", path: "/api/posts/stats", status: 200, header: http.Header{"Content-Type": {"text/plain"}},
			body: `pending 1`, wantErr: true},
		{name: "error documented", method: "PUT", path: "/api/settings", status: 400, header: jsonHeader,
			body: `{"error":"caps.sends_per_day: must be 1 to 1000","field":"caps.sends_per_day"}`},
		{name: "error without message", method: "GET", path: "/api/spend", status: 401, header: jsonHeader,
			body: `{"error":""}`, wantErr: true},
		{name: "path parameter route", method: "POST", path: "/api/posts/12/approve", status: 409, header: jsonHeader,
			body: `{"error":"it is rejected, not pending"}`},
		{name: "unknown route, Error", method: "GET", path: "/api/nothing", status: 404, header: jsonHeader,
			body: `{"error":"no such API route"}`},
		{name: "unknown route answered 200", method: "GET", path: "/api/nothing", status: 200, header: jsonHeader,
			body: `{}`, wantErr: true},
		{name: "unknown method, not an Error", method: "DELETE", path: "/api/spend", status: 405, header: jsonHeader,
			body: `{"message":"no"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://localhost"+tt.path, nil)
			err := c.validate(r, tt.status, tt.header, []byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("validate: %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}
