package x

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"infernal/pkg/platform"
	"infernal/pkg/spend"
)

// anyAnswer answers every call the client makes with an empty but valid
// answer of its shape.
func anyAnswer(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost:
		writeJSON(w, http.StatusCreated, `{"data":{"id":"1900000000000000001","text":"burn"}}`)
	case r.URL.Path == "/2/users/me":
		writeJSON(w, http.StatusOK, `{"data":{"id":"42","username":"devil","name":"Devil"}}`)
	case strings.HasPrefix(r.URL.Path, "/2/users/by/username/"):
		writeJSON(w, http.StatusOK, `{"data":{"id":"7","username":"m1","name":"M"}}`)
	default:
		writeJSON(w, http.StatusOK, `{"meta":{"result_count":0}}`)
	}
}

// endpointOf names every request the client sends as X counts and bills it.
func TestEndpointOf(t *testing.T) {
	tests := []struct {
		name     string
		call     func(context.Context, *Client) error
		want     string
		wantKind spend.Kind
	}{
		{name: "me", want: "GET /2/users/me", wantKind: spend.KindOwnedRead,
			call: func(ctx context.Context, c *Client) error { _, err := c.Me(ctx); return err }},
		{name: "user by username", want: "GET /2/users/by/username/:username", wantKind: spend.KindUserRead,
			call: func(ctx context.Context, c *Client) error { _, err := c.UserByUsername(ctx, "@m1"); return err }},
		{name: "mentions", want: "GET /2/users/:id/mentions", wantKind: spend.KindOwnedRead,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Mentions(ctx, "42", platform.Range{})
				return err
			}},
		{name: "another account's posts", want: "GET /2/users/:id/tweets", wantKind: spend.KindPostRead,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.UserPosts(ctx, "7", platform.Range{})
				return err
			}},
		{name: "the persona's own posts", want: "GET /2/users/:id/tweets", wantKind: spend.KindOwnedRead,
			call: func(ctx context.Context, c *Client) error {
				_, _, err := c.FindPublished(ctx, "42", "1800000000000000001", "burn")
				return err
			}},
		{name: "recent search", want: "GET /2/tweets/search/recent", wantKind: spend.KindPostRead,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Search(ctx, "mondays", platform.Range{})
				return err
			}},
		{name: "metrics of the persona's replies", want: "GET /2/tweets", wantKind: spend.KindOwnedRead,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Metrics(ctx, []string{"1900000000000000001"})
				return err
			}},
		{name: "lookup of anyone's posts", want: "GET /2/tweets", wantKind: spend.KindPostRead,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Lookup(ctx, []string{"1800000000000000001"})
				return err
			}},
		{name: "a post", want: "POST /2/tweets", wantKind: spend.KindPostCreate,
			call: func(ctx context.Context, c *Client) error { _, err := c.Publish(ctx, "burn", ""); return err }},
		{name: "a post with a link", want: "POST /2/tweets", wantKind: spend.KindPostCreateURL,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Publish(ctx, "see hell.example.com", "")
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, anyAnswer)
			c := f.client(t)
			// The persona is known, as it is once the worker has asked Me.
			if _, err := c.Me(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := tt.call(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			last := reqs[len(reqs)-1]
			got, kind := c.endpointOf(t.Context(), last.Method, last.Path, last.Query, last.Body)
			if got != tt.want || kind != tt.wantKind {
				t.Errorf("endpointOf(%s %s) = %q, %q; want %q, %q", last.Method, last.Path, got, kind, tt.want, tt.wantKind)
			}
		})
	}
}

// kinds records the kind of every billed call.
type kinds struct{ billed []spend.Kind }

func (k *kinds) Bill(_ context.Context, _ string, groups []spend.Resources) {
	k.billed = append(k.billed, groups[0].Kind)
}

// A reply to a post that summoned the persona is billed at the summoned
// price under every reply policy; any other reply, under the open policy,
// at the full price.
func TestSummonedReplyPriceUnderEveryPolicy(t *testing.T) {
	tests := []struct {
		name          string
		repliesSummon bool
		summoned      bool
		inReplyTo     string
		want          spend.Kind
	}{
		{name: "open policy, summoned reply", summoned: true, inReplyTo: "5", want: spend.KindPostCreateSummoned},
		{name: "open policy, other reply", inReplyTo: "5", want: spend.KindPostCreate},
		{name: "summoned policy, any reply", repliesSummon: true, inReplyTo: "5", want: spend.KindPostCreateSummoned},
		{name: "open policy, a marked profile post is no reply", summoned: true, want: spend.KindPostCreate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeX(t, anyAnswer)
			k := &kinds{}
			c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret,
				Meter: k, RepliesSummon: tt.repliesSummon})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if tt.summoned {
				ctx = platform.WithSummoned(ctx)
			}
			if _, err := c.Publish(ctx, "burn", tt.inReplyTo); err != nil {
				t.Fatal(err)
			}
			if len(k.billed) != 1 || k.billed[0] != tt.want {
				t.Errorf("billed %v, want %s", k.billed, tt.want)
			}
		})
	}
}
