package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
)

// anyMethod marks a route served for every method (chi's Handle and
// Mount): the document lists the methods that mean something there.
const anyMethod = "*"

// served lists every route the router serves, as "METHOD /path" with chi's
// patterns turned into the document's: a mount's "/*" is its "/".
func served(t *testing.T, s *Server) map[string][]string {
	t.Helper()
	routes, ok := s.router.(chi.Routes)
	if !ok {
		t.Fatalf("the router is a %T, not a chi router", s.router)
	}
	out := map[string][]string{}
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "*")
		if !slices.Contains(out[route], method) {
			out[route] = append(out[route], method)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the router: %v", err)
	}
	// chi lists a Handle or Mount once per method it knows: the nine of HTTP.
	const allMethods = 9
	for route, methods := range out {
		if len(methods) >= allMethods {
			out[route] = []string{anyMethod}
		}
	}
	return out
}

// documented lists every operation of docs/openapi.yaml as path to methods.
func documented(t *testing.T) map[string][]string {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatalf("load the document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v", err)
	}
	out := map[string][]string{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out[path] = append(out[path], method)
		}
	}
	return out
}

// Every route the router serves is in docs/openapi.yaml, and every route
// there is served: with every optional part of the router turned on (the
// queue dashboard, /metrics and the benchmark's ceiling route).
func TestRoutesMatchTheDocument(t *testing.T) {
	t.Parallel()
	s := New(Config{BenchCeiling: true, Ops: http.NotFoundHandler(), Metrics: http.NotFoundHandler()})
	routes := served(t, s)
	doc := documented(t)
	for route, methods := range routes {
		have, ok := doc[route]
		if !ok {
			t.Errorf("%v %s is served but not in docs/openapi.yaml", methods, route)
			continue
		}
		if slices.Equal(methods, []string{anyMethod}) {
			// A route taking any method documents what it is for: at least GET.
			if !slices.Contains(have, http.MethodGet) {
				t.Errorf("%s takes any method; docs/openapi.yaml documents %v, not GET", route, have)
			}
			continue
		}
		for _, m := range methods {
			if !slices.Contains(have, m) {
				t.Errorf("%s %s is served but not in docs/openapi.yaml", m, route)
			}
		}
	}
	for path, methods := range doc {
		serves, ok := routes[path]
		if !ok {
			t.Errorf("docs/openapi.yaml documents %v %s, which the router does not serve", methods, path)
			continue
		}
		for _, m := range methods {
			if !slices.Contains(serves, m) && !slices.Equal(serves, []string{anyMethod}) {
				t.Errorf("docs/openapi.yaml documents %s %s, which the router does not serve", m, path)
			}
		}
	}
	if len(routes) < 30 {
		t.Fatalf("walked only %d routes; the walk is broken", len(routes))
	}
}
