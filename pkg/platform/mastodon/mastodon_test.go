package mastodon_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/platform/platformtest"
	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

func client(t *testing.T, srv *mastodontest.Server, limiter mastodon.Limiter, direct bool) *mastodon.Client {
	t.Helper()
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token, Limiter: limiter,
		ReplyToDirect: func(context.Context) (bool, error) { return direct, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func windows(t *testing.T) *ratelimit.Windows {
	t.Helper()
	w, err := ratelimit.Open(taskstest.RedisURL(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// The platform contract holds for the client against the stand-in.
func TestContract(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	w := windows(t)
	platformtest.Run(t, platformtest.Harness{
		Platform: client(t, srv, w, false),
		Post:     func(_ *testing.T, text string) string { return srv.Post("mortal", text, "", "") },
		Mention: func(_ *testing.T, text, parent string) string {
			return srv.Post("mortal", text, parent, "")
		},
		Delete:   func(_ *testing.T, id string) { srv.Delete(id) },
		Language: "en",
		RateLimited: func(t *testing.T, kind platformtest.RateLimitKind) platform.Platform {
			if kind == platformtest.LimitAnswered {
				srv.RateLimitNext()
				return client(t, srv, nil, false)
			}
			// Another process was told the window is used up.
			closed := windows(t)
			if err := closed.Record(context.Background(), "mastodon GET /api/v1/notifications", http.Header{
				"X-Rate-Limit-Limit": {"300"}, "X-Rate-Limit-Remaining": {"0"},
				"X-Rate-Limit-Reset": {fmt.Sprint(time.Now().Add(time.Minute).Unix())},
			}); err != nil {
				t.Fatal(err)
			}
			return client(t, srv, closed, false)
		},
	})
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, html, want string }{
		{name: "paragraphs and breaks", html: "<p>one<br />two</p><p>three</p>", want: "one\ntwo\n\nthree"},
		{name: "mention span", html: `<p><span class="h-card" translate="no"><a href="https://m.example/@alice" class="u-url mention">@<span>alice</span></a></span> hi</p>`, want: "@alice hi"},
		{name: "link as its URL", html: `<p>see <a href="https://example.com/a/very/long/path" rel="nofollow"><span class="invisible">https://</span><span class="ellipsis">example.com/a/ve</span><span class="invisible">ry/long/path</span></a></p>`, want: "see https://example.com/a/very/long/path"},
		{name: "entities", html: "<p>&lt;3 &amp; &quot;fire&quot; &#39;ok&#39;</p>", want: `<3 & "fire" 'ok'`},
	}
	for _, tt := range tests {
		if got := mastodon.Text(tt.html); got != tt.want {
			t.Errorf("%s: Text = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Mentions read only mention notifications: boosts, favourites and follows
// are never drafted; a direct mention is left out unless reply_to_direct;
// the HTML content reads as text, the content warning above it.
func TestMentionsReadOnlyMentions(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c := client(t, srv, nil, false)
	ctx := context.Background()
	own := srv.Post("infernal", "my own words", "", "")
	srv.Boost("fan", own)
	srv.Favourite("fan", own)
	public := srv.Post("alice", "@infernal look: https://example.com/a/very/long/path/indeed & more", "", "public")
	unlisted := srv.Post("bob", "@infernal quietly", "", "unlisted")
	private := srv.Post("carol", "@infernal followers only", "", "private")
	direct := srv.Post("dave", "@infernal just us", "", "direct")
	page, err := c.Mentions(ctx, "1", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range page.Posts {
		got = append(got, p.ID)
	}
	if want := []string{private, unlisted, public}; !slices.Equal(got, want) {
		t.Fatalf("mentions %v, want %v (no boost, favourite, follow or direct message)", got, want)
	}
	if want := []platform.Withheld{{ID: direct, Reason: mastodon.ReasonDirect}}; !slices.Equal(page.Withheld, want) {
		t.Errorf("withheld %+v, want %+v: the direct mention is accounted for", page.Withheld, want)
	}
	if text := page.Posts[2].Text; text != "@infernal look: https://example.com/a/very/long/path/indeed & more" {
		t.Errorf("text %q", text)
	}
	withDirect, err := client(t, srv, nil, true).Mentions(ctx, "1", platform.Range{})
	if err != nil || len(withDirect.Posts) != 4 || withDirect.Posts[0].ID != direct || len(withDirect.Withheld) != 0 {
		t.Errorf("with reply_to_direct: %v %v", withDirect.Posts, err)
	}
	cw := srv.PostWithWarning("erin", "@infernal spoilers ahead", "film ending", "de")
	page, err = c.Mentions(ctx, "1", platform.Range{SinceID: page.NewestID})
	if err != nil || len(page.Posts) != 1 || page.Posts[0].ID != cw {
		t.Fatalf("mention behind a warning: %+v %v", page.Posts, err)
	}
	// The warning is its own field, the text the post's alone; the page is the status's url.
	if p := page.Posts[0]; p.Text != "@infernal spoilers ahead" || p.ContentWarning != "film ending" || p.WebURL != srv.URL+"/@erin/"+cw {
		t.Errorf("text %q, warning %q, page %q", p.Text, p.ContentWarning, p.WebURL)
	}
}

// A status's media attachments come as media, at most four of those that
// show an image (an image, a gifv, a video; never audio or an unknown
// file), their descriptions as alt texts; its preview card as the link
// card; media_url is the first image.
func TestMediaAndCard(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c := client(t, srv, nil, false)
	id := srv.PostWithMedia("alice", "@infernal behold https://pit.example/hours", []mastodontest.Attachment{
		{Type: "audio", Description: "a scream"}, {Type: "gifv"}, {Type: "image", Description: "a goat in a red cape"},
		{Type: "unknown"}, {Type: "video", Description: "lava"}, {Type: "image", Description: "second"}, {Type: "image", Description: "fifth shown"},
	}, &mastodontest.Card{URL: "https://pit.example/hours", Title: "The pit's hours", Description: "Open all night."})
	plain := srv.Post("bob", "@infernal nothing to see", "", "")
	page, err := c.Mentions(context.Background(), "1", platform.Range{})
	if err != nil || len(page.Posts) != 2 || page.Posts[1].ID != id || page.Posts[0].ID != plain {
		t.Fatalf("mentions: %+v %v", page.Posts, err)
	}
	files := srv.URL + "/system/media_attachments/files/" + id
	tests := []struct {
		name string
		got  platform.Post
		want []platform.Media
		link *platform.Link
		img  string
	}{
		{name: "with media and a card", got: page.Posts[1], want: []platform.Media{
			{Type: platform.MediaGIF, PreviewURL: files + "1/small/clip.png"},
			{Type: platform.MediaPhoto, URL: files + "2/original/image.png", PreviewURL: files + "2/small/image.png", Alt: "a goat in a red cape"},
			{Type: platform.MediaVideo, PreviewURL: files + "4/small/clip.png", Alt: "lava"},
			{Type: platform.MediaPhoto, URL: files + "5/original/image.png", PreviewURL: files + "5/small/image.png", Alt: "second"},
		}, link: &platform.Link{URL: "https://pit.example/hours", Title: "The pit's hours", Description: "Open all night."},
			img: files + "2/original/image.png"},
		{name: "without", got: page.Posts[0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got.Media, tt.want) {
				t.Errorf("media %+v\nwant %+v", tt.got.Media, tt.want)
			}
			if (tt.got.Link == nil) != (tt.link == nil) || (tt.link != nil && *tt.got.Link != *tt.link) {
				t.Errorf("link %+v, want %+v", tt.got.Link, tt.link)
			}
			if tt.got.MediaURL != tt.img {
				t.Errorf("media_url %q, want %q", tt.got.MediaURL, tt.img)
			}
		})
	}
}

// platforms.mastodon.reply_to_direct is asked at every read and every reply: a change
// applies to the same client at once; a setting that cannot be read fails
// the read and the reply, never answering a direct mention; no setting at
// all (nil) is off.
func TestReplyToDirectReadEachTime(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	var (
		on      bool
		readErr error
		asked   int
	)
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token,
		ReplyToDirect: func(context.Context) (bool, error) { asked++; return on, readErr }})
	if err != nil {
		t.Fatal(err)
	}
	direct := srv.Post("dave", "@infernal just us", "", "direct")
	public := srv.Post("alice", "@infernal hi", "", "public")
	tests := []struct {
		name         string
		on           bool
		readErr      error
		wantPosts    int
		wantWithheld int
		wantErr      bool
	}{
		{name: "off: withheld", wantPosts: 1, wantWithheld: 1},
		{name: "switched on: read", on: true, wantPosts: 2},
		{name: "switched off again: withheld", wantPosts: 1, wantWithheld: 1},
		{name: "unreadable: the read fails", on: true, readErr: errors.New("database down"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			on, readErr = tt.on, tt.readErr
			before := asked
			page, err := c.Mentions(ctx, "1", platform.Range{})
			if (err != nil) != tt.wantErr || len(page.Posts) != tt.wantPosts || len(page.Withheld) != tt.wantWithheld || asked != before+1 {
				t.Fatalf("posts %d withheld %d err %v (asked %d times), want %d, %d, error %v, asked once",
					len(page.Posts), len(page.Withheld), err, asked-before, tt.wantPosts, tt.wantWithheld, tt.wantErr)
			}
			for _, w := range page.Withheld {
				if w.ID != direct || w.Reason != mastodon.ReasonDirect {
					t.Errorf("withheld %+v, want %s for %s", w, mastodon.ReasonDirect, direct)
				}
			}
		})
	}
	// A reply to a public mention never asks; to a direct one, asks at the send.
	on, readErr = false, nil
	before := asked
	if _, err := c.Publish(ctx, "burn", public); err != nil || asked != before {
		t.Fatalf("reply to a public mention: %v (asked %d times)", err, asked-before)
	}
	creates := srv.Creates
	readErr = errors.New("database down")
	if _, err := c.Publish(ctx, "burn", direct); err == nil || srv.Creates != creates {
		t.Fatalf("reply to a direct mention with the setting unread: %v (creates %d -> %d)", err, creates, srv.Creates)
	}
	readErr = nil
	if _, err := c.Publish(ctx, "burn", direct); !strings.Contains(fmt.Sprint(err), mastodon.ReasonDirect) || srv.Creates != creates {
		t.Fatalf("reply to a direct mention while off: %v", err)
	}
	on = true
	if _, err := c.Publish(ctx, "burn", direct); err != nil {
		t.Fatalf("reply to a direct mention once switched on: %v", err)
	}
	if st := srv.Statuses(); st[len(st)-1].Visibility != "direct" {
		t.Errorf("reply to a direct mention: %s, want direct, never wider", st[len(st)-1].Visibility)
	}
	none, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token})
	if err != nil {
		t.Fatal(err)
	}
	if page, err := none.Mentions(ctx, "1", platform.Range{}); err != nil || len(page.Withheld) != 1 {
		t.Errorf("no setting: %+v %v, want the direct mention withheld", page, err)
	}
}

// A burst of mentions beyond one page is read whole by the Link header's
// next pages, and nothing read before comes again.
func TestMentionsFollowLinkPaging(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c := client(t, srv, nil, false)
	first := srv.Post("alice", "@infernal first", "", "")
	page, err := c.Mentions(context.Background(), "1", platform.Range{})
	if err != nil || len(page.Posts) != 1 || page.Posts[0].ID != first {
		t.Fatalf("first read: %+v %v", page.Posts, err)
	}
	var want []string
	for i := range 95 {
		want = append(want, srv.Post(fmt.Sprintf("m%d", i), "@infernal burst", "", ""))
	}
	next, err := c.Mentions(context.Background(), "1", platform.Range{SinceID: page.NewestID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range next.Posts {
		got = append(got, p.ID)
	}
	slices.Reverse(want)
	if !slices.Equal(got, want) || next.More {
		t.Fatalf("read %d of the burst of %d (more %v)", len(got), len(want), next.More)
	}
}

// A reply starts with @acct, keeps the mention's visibility, content
// warning and language; a direct mention is refused unless reply_to_direct.
func TestReplyNeverWidens(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c := client(t, srv, nil, false)
	for _, vis := range []string{"public", "unlisted", "private"} {
		id := srv.Post("alice", "@infernal hi", "", vis)
		sent, err := c.Publish(ctx, "burn", id)
		if err != nil {
			t.Fatal(err)
		}
		st := srv.Statuses()
		last := st[len(st)-1]
		if last.ID != sent.ID || last.Visibility != vis || last.Text != "@alice burn" || last.Language != "en" {
			t.Errorf("reply to a %s mention: %+v", vis, last)
		}
	}
	cw := srv.PostWithWarning("erin", "@infernal spoilers", "film ending", "de")
	if _, err := c.Publish(ctx, "@erin no spoilers here", cw); err != nil {
		t.Fatal(err)
	}
	st := srv.Statuses()
	if last := st[len(st)-1]; last.SpoilerText != "film ending" || last.Language != "de" || last.Text != "@erin no spoilers here" {
		t.Errorf("reply behind a warning: %+v", last)
	}
	direct := srv.Post("dave", "@infernal just us", "", "direct")
	before := srv.Creates
	_, err := c.Publish(ctx, "burn", direct)
	if !strings.Contains(fmt.Sprint(err), mastodon.ReasonDirect) || platform.Temporary(err) || srv.Creates != before {
		t.Errorf("a reply to a direct mention: %v (creates %d -> %d), want a lasting refusal", err, before, srv.Creates)
	}
	if _, err := client(t, srv, nil, true).Publish(ctx, "burn", direct); err != nil {
		t.Fatal(err)
	}
	st = srv.Statuses()
	if last := st[len(st)-1]; last.Visibility != "direct" {
		t.Errorf("reply to a direct mention with reply_to_direct: %s", last.Visibility)
	}
}

// A create that succeeds but answers 500 is never sent blindly again: the
// reply is found and answered; a resend under the same key is replayed.
func TestUnknownOutcomeIsLookedFor(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c := client(t, srv, nil, false)
	id := srv.Post("alice", "@infernal hi", "", "")
	srv.FailNextCreate()
	sent, err := c.PublishKeyed(ctx, "post-7-v1", "burn", id)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.PublishKeyed(ctx, "post-7-v1", "burn", id)
	if err != nil || again.ID != sent.ID || srv.Creates != 1 {
		t.Fatalf("sent %s, again %s (%v), creates %d; want one status", sent.ID, again.ID, err, srv.Creates)
	}
}

// A create that answers 503 without making its status is looked for,
// not found, and sent again under the same key: one status.
func TestUnknownOutcomeNotMadeIsSentAgain(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c := client(t, srv, nil, false)
	id := srv.Post("alice", "@infernal hi", "", "")
	srv.RefuseNextCreate()
	key := c.PublishKeyFor(7, 1)
	sent, err := c.PublishKeyed(ctx, key, "burn", id)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.PublishKeyed(ctx, key, "burn", id)
	if err != nil || again.ID != sent.ID || srv.Creates != 1 {
		t.Fatalf("sent %s, again %s (%v), creates %d; want one status", sent.ID, again.ID, err, srv.Creates)
	}
}

// The Idempotency-Key is the post's id and draft version: the same
// version is one key, an edited version or another post a new one.
func TestPublishKeyFor(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c := client(t, srv, nil, false)
	tests := []struct {
		id      int64
		version int
		want    string
	}{
		{7, 1, "infernal-7-v1"},
		{7, 2, "infernal-7-v2"},
		{71, 1, "infernal-71-v1"},
	}
	for _, tt := range tests {
		if got := c.PublishKeyFor(tt.id, tt.version); got != tt.want {
			t.Errorf("PublishKeyFor(%d, %d) = %q, want %q", tt.id, tt.version, got, tt.want)
		}
	}
	ctx := context.Background()
	id := srv.Post("alice", "@infernal hi", "", "")
	for _, key := range []string{c.PublishKeyFor(7, 1), c.PublishKeyFor(7, 1), c.PublishKeyFor(7, 2)} {
		if _, err := c.PublishKeyed(ctx, key, "burn", id); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Creates != 2 {
		t.Fatalf("creates %d, want 2: v1 once, the edited v2 once", srv.Creates)
	}
}

// The limit is the instance's max_characters, 500 when it names none.
func TestMaxCharacters(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c := client(t, srv, nil, false)
	for _, tt := range []struct{ set, want int }{{500, 500}, {5000, 5000}, {0, 500}} {
		srv.SetMaxCharacters(tt.set)
		if got, err := c.MaxCharacters(context.Background()); err != nil || got != tt.want {
			t.Errorf("max_characters %d: MaxCharacters = %d %v, want %d", tt.set, got, err, tt.want)
		}
	}
}

// The window headers (reset in ISO 8601) are kept in the shared windows,
// and a 429 closes the window until its reset.
func TestRateLimitWindows(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	w := windows(t)
	c := client(t, srv, w, false)
	if _, err := c.Me(ctx); err != nil {
		t.Fatal(err)
	}
	ws, err := w.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ws, func(x ratelimit.Window) bool { return x.Endpoint == "mastodon GET /api/v1/accounts/verify_credentials" })
	if i < 0 || ws[i].Limit != 300 || ws[i].Remaining != 299 || !ws[i].ResetAt.After(time.Now()) {
		t.Fatalf("windows %+v", ws)
	}
	srv.RateLimitNext()
	_, err = c.Me(ctx)
	at, ok := platform.RateLimited(err)
	if !ok || !at.After(time.Now()) {
		t.Fatalf("a 429: %v", err)
	}
	// The window stays closed: the next call is not sent.
	_, err = c.Me(ctx)
	if at2, ok := platform.RateLimited(err); !ok || !at2.Equal(at) {
		t.Fatalf("after the 429: %v", err)
	}
}

// The stand-in counts as Mastodon does: every URL 23, @user@domain as @user.
func TestStandInLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want int
	}{
		{"hello", 5},
		{"see https://example.com/" + strings.Repeat("a", 100), 4 + 23},
		{"@alice@mastodon.social hi", len("@alice hi")},
		{"日本語", 3},
	}
	for _, tt := range tests {
		if got := mastodontest.Length(tt.text); got != tt.want {
			t.Errorf("Length(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestValidateServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw string
		ok  bool
	}{
		{"https://mastodon.social", true},
		{"https://mastodon.social/", true},
		{"http://127.0.0.1:3000", true},
		{"http://localhost:3000", true},
		{"http://mastodon.social", false},
		{"mastodon.social", false},
		{"https://user:pw@mastodon.social", false},
		{"https://mastodon.social?x=1", false},
		{"ftp://mastodon.social", false},
		{"", false},
	}
	for _, tt := range tests {
		if _, err := mastodon.ValidateServer(tt.raw); (err == nil) != tt.ok {
			t.Errorf("ValidateServer(%q) = %v, want ok %v", tt.raw, err, tt.ok)
		}
	}
}

// An acct names an account from the server: a local one without its
// domain. Qualify gives the name it has from anywhere, with the domain the
// server names (its address's host until then); a lookup takes either
// form of a local account, and a remote one by user@domain.
func TestQualifyAndLookup(t *testing.T) {
	t.Parallel()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c := client(t, srv, nil, false)
	var _ platform.Qualifier = c
	if got := c.Qualify("alice"); got != "alice@127.0.0.1" {
		t.Errorf("before the instance is read: %q, want the address's host", got)
	}
	if _, err := c.MaxCharacters(ctx); err != nil {
		t.Fatal(err)
	}
	local := srv.Account("alice")
	remote := srv.Account("bob@remote.example")
	for _, tt := range []struct{ in, want string }{
		{"alice", "alice@" + mastodontest.Domain},
		{"@Alice", "alice@" + mastodontest.Domain},
		{"bob@remote.example", "bob@remote.example"},
		{"@Bob@Remote.Example", "bob@remote.example"},
		{"", ""},
	} {
		if got := c.Qualify(tt.in); got != tt.want {
			t.Errorf("Qualify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		acct, wantID string
		wantStatus   int
	}{
		{acct: "alice", wantID: local.ID},
		{acct: "alice@" + mastodontest.Domain, wantID: local.ID},
		{acct: "@alice@" + mastodontest.Domain, wantID: local.ID},
		{acct: "bob@remote.example", wantID: remote.ID},
		{acct: "bob", wantStatus: 404}, // a local bob is another account
		{acct: "alice@elsewhere.example", wantStatus: 404},
		{acct: "carol@remote.example", wantStatus: 404}, // not known to the server yet
	} {
		u, err := c.UserByUsername(ctx, tt.acct)
		var pe *platform.Error
		switch {
		case tt.wantStatus != 0 && (!errors.As(err, &pe) || pe.Status != tt.wantStatus):
			t.Errorf("lookup %q: %+v %v, want %d", tt.acct, u, err, tt.wantStatus)
		case tt.wantStatus == 0 && (err != nil || u.ID != tt.wantID):
			t.Errorf("lookup %q: %+v %v, want id %s", tt.acct, u, err, tt.wantID)
		}
	}
}
