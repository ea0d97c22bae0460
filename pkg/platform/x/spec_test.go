package x

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"infernal/pkg/platform"
)

// specEnums are the query parameters X's OpenAPI lists for the endpoints
// the client calls: testdata/enums-v2.159.json (latest-openapi.json) and
// enums-v2.167.json (specs/openapi.json), both of xdevplatform/xdk,
// extracted verbatim (their "source" names the commit). A parameter's
// enum is nil when it takes any value (an id, a token, a number).
type specEnums struct {
	Source    string                         `json:"source"`
	Version   string                         `json:"version"`
	Endpoints map[string]map[string][]string `json:"endpoints"`
}

func loadSpec(t *testing.T, version string) specEnums {
	t.Helper()
	b, err := os.ReadFile("testdata/enums-v" + version + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var s specEnums
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Version != version || len(s.Endpoints) == 0 || !strings.Contains(s.Source, "xdevplatform/xdk") {
		t.Fatalf("testdata for v%s holds version %q from %q with %d endpoints", version, s.Version, s.Source, len(s.Endpoints))
	}
	return s
}

// specFor is the spec a naming comes from.
var specFor = map[string]string{NamingTweets: "2.159", NamingPosts: "2.167"}

// outOfSpec lists what of a request's query the spec's endpoint does not
// list: an unknown parameter, or a value of a listed parameter outside its
// enum. endpoint is the spec's path ("/2/users/{id}/mentions").
func (s specEnums) outOfSpec(endpoint string, q map[string][]string) []string {
	params, ok := s.Endpoints["GET "+endpoint]
	if !ok {
		return []string{"the endpoint GET " + endpoint + " itself"}
	}
	var bad []string
	for name, vals := range q {
		enum, ok := params[name]
		if !ok {
			bad = append(bad, "parameter "+name)
			continue
		}
		if enum == nil {
			continue
		}
		for _, v := range vals {
			for _, item := range strings.Split(v, ",") {
				if !slices.Contains(enum, item) {
					bad = append(bad, name+"="+item)
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// specPath is the spec's path of a request's path.
func specPath(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 4 && parts[1] == "users" && parts[2] != "by":
		return "/2/users/{id}/" + parts[3]
	case len(parts) == 5 && parts[2] == "by":
		return "/2/users/by/username/{username}"
	}
	return path
}

// fixedNaming keeps one naming, as another process would have found it.
type fixedNaming string

func (f fixedNaming) Naming(context.Context) (string, error)  { return string(f), nil }
func (f fixedNaming) SetNaming(context.Context, string) error { return nil }

// Every parameter every call of the client sends, in either naming, is one
// the spec of that naming lists for the endpoint, with values from its
// enums: the documented naming against v2.159, the newest against v2.167.
// Every read that returns posts asks for their media (type, url, preview,
// alt text) and entities (the link cards).
func TestParamsInSpec(t *testing.T) {
	t.Parallel()
	calls := []struct {
		name  string
		posts bool
		call  func(context.Context, *Client) error
	}{
		{"me", false, func(ctx context.Context, c *Client) error { _, err := c.Me(ctx); return err }},
		{"user by username", false, func(ctx context.Context, c *Client) error { _, err := c.UserByUsername(ctx, "m1"); return err }},
		{"mentions", true, func(ctx context.Context, c *Client) error {
			_, err := c.Mentions(ctx, "42", platform.Range{SinceID: "1", UntilID: "9"})
			return err
		}},
		{"search", true, func(ctx context.Context, c *Client) error {
			_, err := c.Search(ctx, "hell", platform.Range{SinceID: "1"})
			return err
		}},
		{"user posts", true, func(ctx context.Context, c *Client) error {
			_, err := c.UserPosts(ctx, "7", platform.Range{UntilID: "9"})
			return err
		}},
		{"find published", true, func(ctx context.Context, c *Client) error {
			_, _, err := c.FindPublished(ctx, "42", "5", "burn")
			return err
		}},
		{"lookup", true, func(ctx context.Context, c *Client) error { _, err := c.Lookup(ctx, []string{"5", "6"}); return err }},
		{"metrics", false, func(ctx context.Context, c *Client) error { _, err := c.Metrics(ctx, []string{"5"}); return err }},
	}
	for _, n := range namings {
		spec := loadSpec(t, specFor[n.Name])
		for _, tt := range calls {
			t.Run(n.Name+"/"+tt.name, func(t *testing.T) {
				f := newFakeX(t, anyAnswer)
				c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret,
					Namings: fixedNaming(n.Name)})
				if err != nil {
					t.Fatal(err)
				}
				if err := tt.call(t.Context(), c); err != nil {
					t.Fatal(err)
				}
				reqs := f.requests()
				if len(reqs) == 0 {
					t.Fatal("no request sent")
				}
				for _, r := range reqs {
					if bad := spec.outOfSpec(specPath(r.Path), r.Query); len(bad) > 0 {
						t.Errorf("GET %s?%s: not in X's OpenAPI v%s: %v", r.Path, r.Raw, spec.Version, bad)
					}
					if !tt.posts {
						continue
					}
					if got := r.Query.Get("media.fields"); !containsAll(got, "type", "url", "preview_image_url", "alt_text") {
						t.Errorf("media.fields %q lacks the media's type, url, preview or alt text", got)
					}
					if got := r.Query.Get("expansions"); !containsAll(got, "attachments.media_keys", "author_id") {
						t.Errorf("expansions %q lack the media or the author", got)
					}
					if got := r.Query.Get(n.PostFields); !containsAll(got, "entities", "attachments", "lang") {
						t.Errorf("%s %q lacks the entities (link cards), attachments or lang", n.PostFields, got)
					}
				}
			})
		}
	}
}

// The enums tell the two namings apart as ARCHITECTURE.md says: v2.167's
// post.fields lists neither author_id nor referenced_posts, its expansion
// is referenced_posts without .id or .id.author_id, and
// edit_history_post_ids replaces edit_history_tweet_ids; v2.159 has the
// documented names. A check of the test data, so that a wrong extract
// cannot pass TestParamsInSpec.
func TestSpecEnumsAsPublished(t *testing.T) {
	t.Parallel()
	old, newest := loadSpec(t, "2.159"), loadSpec(t, "2.167")
	mentions := "GET /2/users/{id}/mentions"
	o, n := old.Endpoints[mentions], newest.Endpoints[mentions]
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"v2.159 tweet.fields has author_id and referenced_tweets", slices.Contains(o["tweet.fields"], "author_id") && slices.Contains(o["tweet.fields"], "referenced_tweets")},
		{"v2.159 expansions have referenced_tweets.id.author_id", slices.Contains(o["expansions"], "referenced_tweets.id.author_id")},
		{"v2.159 has no post.fields", o["post.fields"] == nil},
		{"v2.167 post.fields lacks author_id", !slices.Contains(n["post.fields"], "author_id")},
		{"v2.167 post.fields lacks referenced_posts", !slices.Contains(n["post.fields"], "referenced_posts") && len(n["post.fields"]) > 0},
		{"v2.167 expansion referenced_posts", slices.Contains(n["expansions"], "referenced_posts") && !slices.Contains(n["expansions"], "referenced_posts.id")},
		{"v2.167 has no referenced_posts.id.author_id", !slices.Contains(n["expansions"], "referenced_posts.id.author_id")},
		{"v2.167 edit_history_post_ids", slices.Contains(n["expansions"], "edit_history_post_ids") && !slices.Contains(n["expansions"], "edit_history_tweet_ids")},
		{"v2.167 has no tweet.fields", n["tweet.fields"] == nil},
		{"both list alt_text among media.fields", slices.Contains(o["media.fields"], "alt_text") && slices.Contains(n["media.fields"], "alt_text")},
		{"both list lang among the post fields", slices.Contains(o["tweet.fields"], "lang") && slices.Contains(n["post.fields"], "lang")},
	} {
		if !c.ok {
			t.Errorf("not so: %s", c.what)
		}
	}
}

// v2167Only is an X that takes only what OpenAPI v2.167 lists, refusing
// anything else with the 400 X gives an invalid parameter; refused counts
// the refusals.
func v2167Only(t *testing.T, refused func(), next http.HandlerFunc) http.HandlerFunc {
	spec := loadSpec(t, "2.167")
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if bad := spec.outOfSpec(specPath(r.URL.Path), r.URL.Query()); len(bad) > 0 {
				refused()
				writeJSON(w, http.StatusBadRequest, `{"errors":[{"parameters":{"`+strings.SplitN(strings.TrimPrefix(bad[0], "parameter "), "=", 2)[0]+`":["x"]},"message":"not one of the spec's values: `+strings.Join(bad, ", ")+`"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`)
				return
			}
		}
		next(w, r)
	}
}
