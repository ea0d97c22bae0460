package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/mastodon"
	"infernal/pkg/platform/mastodon/mastodontest"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// mastodonPipeline is a pipeline on the sandbox (playing X) and on a
// Mastodon stand-in, with the client as the worker wires it: the server's
// domain read at start.
func mastodonPipeline(t *testing.T, e *env) (*pipeline.Pipeline, *mastodontest.Server) {
	t.Helper()
	srv := mastodontest.New()
	t.Cleanup(srv.Close)
	c, err := mastodon.New(mastodon.Config{Server: srv.URL, AccessToken: mastodontest.Token})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.MaxCharacters(context.Background()); err != nil {
		t.Fatal(err)
	}
	return pipeline.New(pipeline.Config{
		Store: e.store, Writer: offline.New("devil"), Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Handle: "devil",
		Accounts: []pipeline.Account{{Platform: e.plat}, {Platform: c, ReplyPolicy: platform.ReplyOpen, Handle: "infernal"}},
	}), srv
}

// foundOn stores a mortal's post of platform as a scan does (drafting).
func foundOn(t *testing.T, st *store.Store, platformName, id, author, authorID, text string) int64 {
	t.Helper()
	row, _, err := st.UpsertFound(context.Background(), post.Post{Platform: platformName, Source: post.SourceMention,
		OriginalPostID: id, ConversationID: "c" + id, OriginalPostText: text, OriginalPostUser: author,
		AuthorUsername: author, AuthorID: authorID, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// On Mastodon, blocks and opt-outs are kept by the account's id: an entry
// user@server.tld is looked up to its id before a post is judged (a local
// account, whose acct leaves the server out, included), an account the
// server does not know yet is matched by its acct and keeps the id it is
// met with, and an opt-out is kept as user@server.tld. Mastodon's ids are
// digits like X's: an X user id entry never blocks the Mastodon account
// of the same digits, nor a Mastodon block an X account.
func TestMastodonBlocksByAccountID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	pipe, srv := mastodonPipeline(t, e)
	dave := srv.Account("dave")                // local: its acct is "dave"
	gina := srv.Account("gina@remote.example") // remote, known to the server
	digits := srv.Account("ivy").ID            // an X user id of the same digits is blocked
	frankID := srv.Account("frank@later.example").ID
	putSettings(t, e.store, settings.Settings{
		BlockedAuthors: []string{"@Dave@" + mastodontest.Domain, "gina@remote.example", "@ghost@nowhere.example", digits, "kate"},
		Caps:           settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000},
	})
	stages := func(name string) *pipeline.Drafter {
		t.Helper()
		d := pipe.On(name)
		if d == nil {
			t.Fatalf("no stages for %s", name)
		}
		return d.Drafter
	}
	tests := []struct {
		name, platform, author, authorID string
		want                             string // the skip reason, "" for drafted
	}{
		{name: "a local account, looked up by its entry", platform: "mastodon", author: "dave", authorID: dave.ID,
			want: "blocked author: @dave@" + mastodontest.Domain},
		{name: "the same account, renamed", platform: "mastodon", author: "david", authorID: dave.ID,
			want: "blocked author: @dave@" + mastodontest.Domain},
		{name: "a remote account, looked up", platform: "mastodon", author: "gina@remote.example", authorID: gina.ID,
			want: "blocked author: @gina@remote.example"},
		{name: "X's user of the digits of a Mastodon account is not it", platform: "mastodon", author: "ivy", authorID: digits},
		{name: "X's user of those digits is blocked on the sandbox", platform: "sandbox", author: "whoever", authorID: digits,
			want: fmt.Sprintf("blocked author: @whoever (%s)", digits)},
		{name: "an X handle is not a Mastodon acct", platform: "mastodon", author: "kate", authorID: "99999"},
		{name: "the X handle on the sandbox", platform: "sandbox", author: "kate", want: "blocked author: @kate"},
		{name: "nobody blocked", platform: "mastodon", author: "frank@later.example", authorID: frankID},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := foundOn(t, e.store, tt.platform, fmt.Sprintf("mb%d", i), tt.author, tt.authorID, "@devil hello")
			p := draft(t, stages(tt.platform), row)
			if tt.want == "" && p.Status != post.StatusPending {
				t.Errorf("status %s (%q), want pending", p.Status, p.SkipReason)
			}
			if tt.want != "" && (p.Status != post.StatusSkipped || p.SkipReason != tt.want) {
				t.Errorf("status %s reason %q, want skipped %q", p.Status, p.SkipReason, tt.want)
			}
		})
	}
	// GET /api/settings shows the ids the lookups found; the account the
	// server does not know has none yet.
	set, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blocked, _, err := e.store.SettingsAccounts(ctx, set.TargetUsernames)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, a := range blocked {
		if a.ID != nil {
			ids[a.Entry] = *a.ID
		}
	}
	want := map[string]string{"dave@" + mastodontest.Domain: dave.ID, "gina@remote.example": gina.ID, digits: digits}
	for entry, id := range want {
		if ids[entry] != id {
			t.Errorf("entry %s shows id %q, want %q (all: %v)", entry, ids[entry], id, ids)
		}
	}
	if id, ok := ids["ghost@nowhere.example"]; ok {
		t.Errorf("the unknown account shows id %s", id)
	}
	// The server meets ghost later: its first post is matched by its acct,
	// and the entry keeps the id it came with.
	ghost := srv.Account("ghost@nowhere.example")
	if p := draft(t, stages("mastodon"), foundOn(t, e.store, "mastodon", "mb-ghost", "ghost@nowhere.example", ghost.ID, "@devil boo")); p.Status != post.StatusSkipped {
		t.Errorf("ghost's post: %s %q, want skipped", p.Status, p.SkipReason)
	}
	if p := draft(t, stages("mastodon"), foundOn(t, e.store, "mastodon", "mb-ghost2", "casper@nowhere.example", ghost.ID, "@devil boo")); p.Status != post.StatusSkipped {
		t.Errorf("ghost's post, renamed: %s %q, want skipped by its id", p.Status, p.SkipReason)
	}
}

// A Mastodon opt-out blocks the account by its id, named in the settings
// as user@server.tld (a local account's acct with the server's domain), so
// the settings round-trip; an X account of the same handle or digits is
// still answered.
func TestMastodonOptOut(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	pipe, srv := mastodonPipeline(t, e)
	putSettings(t, e.store, settings.Settings{Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	hank := srv.Account("hank")
	d := pipe.On("mastodon").Drafter
	stop := foundOn(t, e.store, "mastodon", "oo1", "hank", hank.ID, "@infernal stop replying to me")
	if p := draft(t, d, stop); p.Status != post.StatusSkipped || !strings.HasPrefix(p.SkipReason, guard.ReasonOptOut) {
		t.Fatalf("opt-out: %s %q", p.Status, p.SkipReason)
	}
	set, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entry := "hank@" + mastodontest.Domain
	if !slices.Equal(set.BlockedAuthors, []string{entry}) {
		t.Fatalf("blocked authors %q, want [%s]", set.BlockedAuthors, entry)
	}
	// The settings as the admin saves them back keep the block as it is.
	norm, err := set.Normalize()
	if err != nil {
		t.Fatalf("the settings with the opt-out do not normalise: %v", err)
	}
	if err := e.store.PutSettings(ctx, norm); err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		platform, author, authorID string
		skipped                    bool
	}{
		{"mastodon", "hank", hank.ID, true},
		{"mastodon", "henry", hank.ID, true}, // renamed: the id holds
		{"sandbox", "hank", "", false},       // X's hank is someone else
		{"sandbox", "someone", hank.ID, false},
	} {
		p := draft(t, pipe.On(tt.platform).Drafter, foundOn(t, e.store, tt.platform, fmt.Sprintf("oo-later%d", i), tt.author, tt.authorID, "@devil hello again"))
		if (p.Status == post.StatusSkipped) != tt.skipped {
			t.Errorf("%s post by %s (%s): %s %q, want skipped %v", tt.platform, tt.author, tt.authorID, p.Status, p.SkipReason, tt.skipped)
		}
	}
}

// A lookup of a blocked Mastodon entry that fails for a while fails the
// draft, which is retried: the post is never judged while a block may be
// unknown.
func TestMastodonBlockLookupFailureFailsTheDraft(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	pipe, srv := mastodonPipeline(t, e)
	lena := srv.Account("lena")
	putSettings(t, e.store, settings.Settings{BlockedAuthors: []string{"lena@" + mastodontest.Domain},
		Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	d := pipe.On("mastodon").Drafter
	row := foundOn(t, e.store, "mastodon", "lf1", "lena", lena.ID, "@infernal hi")
	srv.RateLimitNext()
	if err := d.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: row})); err == nil {
		t.Fatal("the draft went on with the lookup refused")
	}
	if p, err := e.store.Post(ctx, row); err != nil || p.Status != post.StatusDrafting {
		t.Fatalf("after the refused lookup: %s %v, want still drafting", p.Status, err)
	}
	if p := draft(t, d, row); p.Status != post.StatusSkipped {
		t.Errorf("retried: %s %q, want skipped as blocked", p.Status, p.SkipReason)
	}
}

// A targeted Mastodon account is named user@server.tld and looked up to
// its id on Mastodon alone; an X user id target is never read there, nor
// the Mastodon account on the sandbox.
func TestMastodonTargetedByAccountID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	pipe, srv := mastodonPipeline(t, e)
	srv.Post("ivy", "a sermon on brimstone", "", "public")
	ivy := srv.Account("ivy")
	putSettings(t, e.store, settings.Settings{TargetUsernames: []string{"@Ivy@" + mastodontest.Domain, ivy.ID},
		Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	if err := pipe.On("mastodon").Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
		t.Fatal(err)
	}
	entry := "ivy@" + mastodontest.Domain
	if tg, err := e.store.Target(ctx, "mastodon", entry); err != nil || tg.UserID != ivy.ID {
		t.Errorf("the Mastodon target: %+v %v, want id %s", tg, err, ivy.ID)
	}
	if tg, err := e.store.Target(ctx, "sandbox", entry); err != nil || tg.UserID != "" || !tg.NotFoundAt.IsZero() {
		t.Errorf("the Mastodon target on the sandbox: %+v %v, want never looked up", tg, err)
	}
	// The sandbox (which has no user of those digits) scans the X entries alone.
	putSettings(t, e.store, settings.Settings{TargetUsernames: []string{entry}, Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	if err := pipe.On("sandbox").Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ platform, cursor string }{{"mastodon", "targeted:" + ivy.ID}, {"sandbox", "targeted:" + entry}} {
		if got, err := e.store.Cursor(ctx, c.platform, c.cursor); err != nil || got != "" {
			t.Errorf("%s read %s: cursor %q %v, want never read", c.platform, c.cursor, got, err)
		}
	}
	if got, err := e.store.Cursor(ctx, "mastodon", "targeted:"+entry); err != nil || got == "" {
		t.Errorf("the Mastodon target was not read: cursor %q %v", got, err)
	}
	set, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, targets, err := e.store.SettingsAccounts(ctx, set.TargetUsernames)
	if err != nil || len(targets) != 1 || targets[0].ID == nil || *targets[0].ID != ivy.ID {
		t.Fatalf("GET's targets: %+v %v, want %s with id %s", targets, err, entry, ivy.ID)
	}
}
