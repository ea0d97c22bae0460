package x

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/spend"
	"infernal/pkg/store/storetest"
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
	t.Parallel()
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
	t.Parallel()
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

// A run's reads, metered into the real ledger, cost what X bills: every
// resource (post, user, media) once per UTC day, whatever the kind of read
// it came back in. The run reads the persona (an owned read), two mentions
// (owned reads) with their authors, a parent, the persona's earlier reply
// and its author (the persona again) and two photos in includes, then
// looks up the parent's parent and the persona's reply (with their
// authors) and one mention again (with its author and photos). The meter
// used to bill the persona a second time as a user read and the mention a
// second time as a post read, 22 % over X's bill here.
func TestMeterBillsAsXDoes(t *testing.T) {
	t.Parallel()
	f := newFakeX(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/2/users/me":
			writeJSON(w, http.StatusOK, `{"data":{"id":"42","username":"devil","name":"Devil"}}`)
		case r.URL.Path == "/2/users/42/mentions":
			writeJSON(w, http.StatusOK, `{"data":[
 {"id":"101","text":"@devil look","author_id":"7","referenced_tweets":[{"type":"replied_to","id":"90"}],"attachments":{"media_keys":["3_1","3_2"]}},
 {"id":"102","text":"@devil again","author_id":"8","referenced_tweets":[{"type":"replied_to","id":"95"}]}],
 "includes":{"users":[{"id":"7","username":"m7"},{"id":"8","username":"m8"},{"id":"9","username":"m9"},{"id":"42","username":"devil"}],
  "tweets":[{"id":"90","text":"parent","author_id":"9","referenced_tweets":[{"type":"replied_to","id":"80"}]},{"id":"95","text":"burn","author_id":"42"}],
  "media":[{"media_key":"3_1","type":"photo","url":"https://pbs.twimg.com/media/1.jpg","alt_text":"one"},{"media_key":"3_2","type":"photo","url":"https://pbs.twimg.com/media/2.jpg"}]},
 "meta":{"result_count":2,"newest_id":"102","oldest_id":"101"}}`)
		case r.URL.Path == "/2/tweets" && r.URL.Query().Get("ids") == "80,95":
			writeJSON(w, http.StatusOK, `{"data":[{"id":"80","text":"root","author_id":"10"},{"id":"95","text":"burn","author_id":"42"}],
 "includes":{"users":[{"id":"10","username":"m10"},{"id":"42","username":"devil"}]}}`)
		case r.URL.Path == "/2/tweets" && r.URL.Query().Get("ids") == "101":
			writeJSON(w, http.StatusOK, `{"data":[{"id":"101","text":"@devil look","author_id":"7","attachments":{"media_keys":["3_1","3_2"]}}],
 "includes":{"users":[{"id":"7","username":"m7"}],
  "media":[{"media_key":"3_1","type":"photo","url":"https://pbs.twimg.com/media/1.jpg","alt_text":"one"},{"media_key":"3_2","type":"photo","url":"https://pbs.twimg.com/media/2.jpg"}]}}`)
		default:
			t.Errorf("unexpected %s", r.URL)
			writeJSON(w, http.StatusNotFound, `{"title":"Not Found Error","type":"about:blank","status":404,"detail":"no"}`)
		}
	})
	st := storetest.New(t)
	prices := spend.DefaultPrices()
	meter := &spend.Meter{Ledger: st, Prices: prices, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	c, err := New(Config{BaseURL: f.srv.URL, APIKey: testKey, APISecret: testSecret, AccessToken: testToken, AccessSecret: testTokenSecret, Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := c.Me(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := c.Mentions(ctx, "42", platform.Range{})
	if err != nil || len(page.Posts) != 2 || len(page.Posts[1].Media) != 2 || page.Posts[1].Media[0].Alt != "one" {
		t.Fatalf("Mentions = %+v, %v", page, err)
	}
	for _, ids := range [][]string{{"80", "95"}, {"101"}} {
		if _, err := c.Lookup(ctx, ids); err != nil {
			t.Fatal(err)
		}
	}
	// What X bills: the persona and the two mentions as owned reads; the
	// users 7, 8, 9 and 10; the posts 90, 95 and 80; the two photos.
	bill := 3*prices.OwnedRead + 4*prices.UserRead + 3*prices.PostRead + 2*prices.MediaRead
	spent, err := meter.Spent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := spent.Today.XUSD; math.Abs(got-bill) > 0.02*bill {
		t.Errorf("the meter counts $%.3f against $%.3f billed (%.0f %%); want within 2 %%", got, bill, 100*(got-bill)/bill)
	}
}
