package store_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The environment seeds the settings once; the administrator's later
// changes survive a restart's seeding, and an opt-out's blocked author
// keeps its reason through a settings save that keeps the author.
func TestSettingsSeedPutAndBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.New(t)

	got, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.TargetUsernames) != 0 || got.TargetUsernames == nil || got.Caps != settings.DefaultCaps() {
		t.Errorf("fresh settings = %+v, want empty lists and default caps", got)
	}

	seed := settings.Settings{TargetUsernames: []string{"elonmusk"}, SearchTopics: []string{"coffee"}, BlockedPhrases: []string{"scam coin", "free money"}, Caps: settings.DefaultCaps()}
	if seeded, err := s.SeedSettings(ctx, seed); err != nil || !seeded {
		t.Fatalf("first seed = %v, %v; want true", seeded, err)
	}
	if err := s.BlockAuthor(ctx, "x", "quietplease", "", `opt-out: "stop"`, 0); err != nil {
		t.Fatal(err)
	}
	edited := seed
	edited.SearchTopics = []string{"monday", "gym"}
	edited.BlockedAuthors = []string{"quietplease", "spammer"}
	edited.Caps.SendsPerDay = 20
	if err := s.PutSettings(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if seeded, err := s.SeedSettings(ctx, seed); err != nil || seeded {
		t.Fatalf("second seed = %v, %v; want false", seeded, err)
	}
	got, err = s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.SearchTopics, edited.SearchTopics) || got.Caps.SendsPerDay != 20 ||
		!slices.Equal(got.BlockedAuthors, edited.BlockedAuthors) || !slices.Equal(got.BlockedPhrases, seed.BlockedPhrases) {
		t.Errorf("after edit and reseed = %+v, want %+v", got, edited)
	}
	edited.BlockedAuthors = nil
	edited.BlockedPhrases = nil
	if err := s.PutSettings(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Settings(ctx); err != nil || len(got.BlockedAuthors)+len(got.BlockedPhrases) != 0 {
		t.Errorf("after clearing = %+v, %v; want no blocked entries", got, err)
	}
}

// A platform's option (platforms.mastodon.reply_to_direct) is off before
// anything is stored, seeded by the environment as off, kept through a put,
// and read back by the cache a worker asks at every scan and send the
// moment it changes; options stored for a platform or an option the table
// no longer holds are dropped, those it lacks are off.
func TestPlatformOptionsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.New(t)
	var cache store.SettingsCache
	read := func() (bool, bool) {
		t.Helper()
		plain, err := s.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cached, err := s.CachedSettings(ctx, &cache)
		if err != nil {
			t.Fatal(err)
		}
		return plain.Platforms.On("mastodon", "reply_to_direct"), cached.Platforms.On("mastodon", "reply_to_direct")
	}
	if plain, cached := read(); plain || cached {
		t.Fatalf("fresh: %v %v, want off", plain, cached)
	}
	base := settings.Settings{Caps: settings.DefaultCaps()}
	if _, err := s.SeedSettings(ctx, base); err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false, true} {
		next := base
		next.Platforms = settings.PlatformOptions{"mastodon": {"reply_to_direct": on}}
		if err := s.PutSettings(ctx, next); err != nil {
			t.Fatal(err)
		}
		if plain, cached := read(); plain != on || cached != on {
			t.Fatalf("after a put of %v: stored %v, cached %v", on, plain, cached)
		}
	}
	// A later start's seed (off) changes nothing.
	if seeded, err := s.SeedSettings(ctx, base); err != nil || seeded {
		t.Fatalf("reseed: %v %v", seeded, err)
	}
	if plain, cached := read(); !plain || !cached {
		t.Fatalf("after a reseed: stored %v, cached %v, want on", plain, cached)
	}
	// Stored by a version whose table held other platforms and options.
	if _, err := s.Pool().Exec(ctx, `UPDATE settings SET platform_options = '{"mastodon": {"reply_to_direct": true, "gone": true}, "friendica": {"quiet": true}}'`); err != nil {
		t.Fatal(err)
	}
	got, err := s.Settings(ctx)
	if want := (settings.PlatformOptions{"mastodon": {"reply_to_direct": true}}); err != nil || !reflect.DeepEqual(got.Platforms, want) {
		t.Fatalf("options of another table: %v %v, want %v", got.Platforms, err, want)
	}
	// The column of a database from before holds '{}': the default.
	if _, err := s.Pool().Exec(ctx, `UPDATE settings SET platform_options = '{}'`); err != nil {
		t.Fatal(err)
	}
	if plain, cached := read(); plain || cached {
		t.Fatalf("'{}' stored: %v %v, want off", plain, cached)
	}
}

// The settings cache answers as Settings does after every kind of change:
// the settings row, an opt-out's blocked author, a blocked phrase removed,
// and a change made around the cache by another process.
func TestCachedSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewDatabase(t)
	open := func() *store.Store {
		st, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		return st
	}
	s, other := open(), open()
	var cache, postCache, pauseCache store.SettingsCache
	id := pending(t, s, "cached-1", post.SourceMention, "burn")

	base := settings.Settings{TargetUsernames: []string{"elonmusk"}, SearchTopics: []string{"coffee"}, BlockedPhrases: []string{"scam coin"}, Caps: settings.DefaultCaps()}
	tests := []struct {
		name   string
		change func() error
	}{
		{name: "nothing stored yet", change: func() error { return nil }},
		{name: "seeded", change: func() error { _, err := s.SeedSettings(ctx, base); return err }},
		{name: "unchanged", change: func() error { return nil }},
		{name: "an opt-out blocks an author", change: func() error { return s.BlockAuthor(ctx, "x", "quietone", "", "opt-out", 0) }},
		{name: "caps and phrases put", change: func() error {
			next := base
			next.BlockedPhrases, next.Caps.SendsPerDay = []string{}, 7
			next.BlockedAuthors = []string{"quietone"}
			return s.PutSettings(ctx, next)
		}},
		{name: "changed by another process", change: func() error { return other.BlockAuthor(ctx, "x", "loudone", "", "added", 0) }},
		{name: "platforms.mastodon.reply_to_direct switched on", change: func() error {
			next := base
			next.Platforms = settings.PlatformOptions{"mastodon": {"reply_to_direct": true}}
			return other.PutSettings(ctx, next)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			want, err := s.Settings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.CachedSettings(ctx, &cache)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("CachedSettings = %+v, want %+v", got, want)
			}
			if p, got, err := s.PostWithSettings(ctx, id, &postCache); err != nil || p.ID != id || !reflect.DeepEqual(got, want) {
				t.Errorf("PostWithSettings = post %d, %+v, %v; want post %d, %+v", p.ID, got, err, id, want)
			}
			if pause, got, err := s.PauseWithSettings(ctx, "x", time.Now(), &pauseCache); err != nil || pause != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("PauseWithSettings = %v, %+v, %v; want no pause, %+v", pause, got, err, want)
			}
			if got, err := s.CachedSettings(ctx, nil); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("CachedSettings without a cache = %+v, %v; want %+v", got, err, want)
			}
		})
	}
	if _, _, err := s.PostWithSettings(ctx, 999999, &postCache); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PostWithSettings of no post = %v, want ErrNotFound", err)
	}
	until := time.Now().Add(time.Hour)
	if err := s.SetPause(ctx, store.Pause{Platform: "x", Refusal: "usage_capped", Reason: "cap", Until: &until}); err != nil {
		t.Fatal(err)
	}
	if pause, _, err := s.PauseWithSettings(ctx, "x", time.Now(), &pauseCache); err != nil || pause == nil || pause.Reason != "cap" {
		t.Errorf("PauseWithSettings during a pause = %+v, %v; want it", pause, err)
	}
}

// Blocked authors are kept by their stable id: a renamed author stays
// blocked, the next owner of the handle is not, and an entry known by handle
// only takes the id of the author who is next seen with it. An entry
// blocks on the platforms of its account syntax alone: X's id 100 is not
// Mastodon's account 100, an X handle not a Mastodon acct; the sandbox
// plays X.
func TestAuthorBlockedByStableID(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	for _, b := range []struct{ platform, username, id, reason string }{
		{"bluesky", "alice.test", "did:plc:alice", "opt-out"},
		{"x", "bob", "", "set by hand"},
		{"x", "carol", "", "set by hand"},
		// Alice, renamed, opts out again: still one entry.
		{"bluesky", "alice2.test", "did:plc:alice", "opt-out again"},
		// A Mastodon author opts out: blocked by its id there alone.
		{"mastodon", "erin@social.example", "500", "opt-out"},
		// A Mastodon entry by name, not looked up yet.
		{"mastodon", "frank@social.example", "", "set by hand"},
	} {
		if err := s.BlockAuthor(ctx, b.platform, b.username, b.id, b.reason, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, platform, id, handle string
		wantAs                     string // "" when not blocked
	}{
		{name: "the author, renamed", platform: "bluesky", id: "did:plc:alice", handle: "alice-renamed.test", wantAs: "alice.test"},
		{name: "the next owner of the handle", platform: "bluesky", id: "did:plc:mallory", handle: "alice.test"},
		{name: "a Mastodon account named bob is not X's bob", platform: "mastodon", id: "100", handle: "bob"},
		{name: "a handle-only entry takes the id of the author seen with it", platform: "x", id: "100", handle: "@Bob", wantAs: "bob"},
		{name: "then another account with that handle is not blocked", platform: "x", id: "200", handle: "bob"},
		{name: "while the author is, renamed", platform: "x", id: "100", handle: "robert", wantAs: "bob"},
		{name: "and on the sandbox, which plays X", platform: "sandbox", id: "100", handle: "robert", wantAs: "bob"},
		{name: "but not on Mastodon, whose account 100 is another", platform: "mastodon", id: "100", handle: "robert"},
		{name: "an author of unknown id matches by handle", platform: "x", id: "", handle: "carol", wantAs: "carol"},
		{name: "nobody", platform: "x", id: "300", handle: "dave"},
		{name: "the Mastodon author who opted out, renamed", platform: "mastodon", id: "500", handle: "erin2@social.example", wantAs: "erin@social.example"},
		{name: "X's user 500 is not that author", platform: "x", id: "500", handle: "erin"},
		{name: "a Mastodon entry by name matches there", platform: "mastodon", id: "600", handle: "frank@social.example", wantAs: "frank@social.example"},
		{name: "and keeps the id", platform: "mastodon", id: "600", handle: "frank2@social.example", wantAs: "frank@social.example"},
		{name: "X's user 600 is not that author", platform: "x", id: "600", handle: "frank"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, blocked, err := s.AuthorBlocked(ctx, tt.platform, tt.id, func(b string) bool {
				return strings.EqualFold(b, strings.TrimPrefix(tt.handle, "@"))
			})
			if err != nil {
				t.Fatal(err)
			}
			if blocked != (tt.wantAs != "") || as != tt.wantAs {
				t.Fatalf("AuthorBlocked(%s, %q, %q) = %q %v, want %q", tt.platform, tt.id, tt.handle, as, blocked, tt.wantAs)
			}
		})
	}
	// The same digits blocked on X and on Mastodon are two entries.
	if err := s.BlockAuthor(ctx, "x", "xerin", "500", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	for _, platform := range []string{"x", "mastodon"} {
		if _, blocked, err := s.AuthorBlocked(ctx, platform, "500", func(string) bool { return false }); err != nil || !blocked {
			t.Errorf("500 on %s: %v %v, want blocked", platform, blocked, err)
		}
	}
}

// A Mastodon entry named by handle is looked up to its id (BlockedToResolve,
// BlockedLookedUp): found, it is blocked by the id alone; unknown, it is
// left for an hour or the next settings change; an id blocked already
// under another entry is not taken twice. An X entry is never due.
func TestBlockedLookups(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	set, err := settings.Settings{BlockedAuthors: []string{"@Dave@Social.Example", "ghost@social.example", "twin@social.example", "bob", "4242"},
		Caps: settings.DefaultCaps()}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockAuthor(ctx, "mastodon", "erin@social.example", "77", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	due := func(at time.Time) []string {
		t.Helper()
		got, err := s.BlockedToResolve(ctx, "mastodon", at.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := due(now), []string{"dave@social.example", "ghost@social.example", "twin@social.example"}; !slices.Equal(got, want) {
		t.Fatalf("due = %q, want %q (the Mastodon entries without an id)", got, want)
	}
	if got, err := s.BlockedToResolve(ctx, "x", now); err != nil || len(got) != 0 {
		// X's handles wait to meet their author: no lookups (X bills them).
		t.Fatalf("due on X = %q %v, want none asked for", got, err)
	}
	for _, l := range []struct{ entry, id string }{{"dave@social.example", "4242"}, {"ghost@social.example", ""}, {"twin@social.example", "77"}} {
		if err := s.BlockedLookedUp(ctx, "mastodon", l.entry, l.id, now); err != nil {
			t.Fatal(err)
		}
	}
	if got := due(now.Add(time.Minute)); len(got) != 0 {
		t.Errorf("due a minute on = %q, want none", got)
	}
	if got, want := due(now.Add(2*time.Hour)), []string{"ghost@social.example", "twin@social.example"}; !slices.Equal(got, want) {
		t.Errorf("due two hours on = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		platform, id string
		wantAs       string
	}{
		{"mastodon", "4242", "dave@social.example"},
		{"x", "4242", "4242"}, // the X entry of the same digits, on X alone
		{"mastodon", "77", "erin@social.example"},
		{"mastodon", "88", ""},
	} {
		as, blocked, err := s.AuthorBlocked(ctx, tt.platform, tt.id, func(string) bool { return false })
		if err != nil || blocked != (tt.wantAs != "") || as != tt.wantAs {
			t.Errorf("AuthorBlocked(%s, %s) = %q %v %v, want %q", tt.platform, tt.id, as, blocked, err, tt.wantAs)
		}
	}
	blocked, _, err := s.SettingsAccounts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, a := range blocked {
		if a.ID != nil {
			ids[a.Entry] = *a.ID
		}
	}
	if want := map[string]string{"dave@social.example": "4242", "4242": "4242", "erin@social.example": "77"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("GET's ids = %v, want %v", ids, want)
	}
	// A settings change looks the unknown ones up again at once.
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if got, want := due(now.Add(time.Minute)), []string{"ghost@social.example", "twin@social.example"}; !slices.Equal(got, want) {
		t.Errorf("due after a settings change = %q, want %q", got, want)
	}
}

// Blocked authors and targets given by id or by handle: an id entry blocks
// its author at once, whatever the handle, and shows the handle last seen
// with the id; a handle entry shows the id found for it once the worker
// has met the author (blocked) or looked the handle up (target).
func TestSettingsAccounts(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	// An opt-out blocked one author under its handle, with its id.
	if err := s.BlockAuthor(ctx, "x", "quiet", "555", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	set, err := settings.Settings{
		TargetUsernames: []string{"Alice", "did:plc:z72i7hdynmk6r22z27h6tvur", "4242", "nobody.bsky.social", "@Carol@Mastodon.Example"},
		BlockedAuthors:  []string{"quiet", "777", "bob", "did:web:carol.example.com", "555", "dave@social.example"},
	}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	// The id 555 is blocked already, under its handle: it stays that one entry.
	got, err := s.Settings(ctx)
	if want := []string{"quiet", "777", "bob", "did:web:carol.example.com", "dave@social.example"}; err != nil || !slices.Equal(got.BlockedAuthors, want) {
		t.Fatalf("blocked authors = %q %v, want %q", got.BlockedAuthors, err, want)
	}
	// An entry by id blocks its author under any handle, at once.
	as, blocked, err := s.AuthorBlocked(ctx, "x", "777", func(string) bool { return false })
	if err != nil || !blocked || as != "777" {
		t.Errorf("AuthorBlocked(777) = %q %v %v, want blocked as 777", as, blocked, err)
	}
	// The worker meets bob (id 888) and looks alice up (id 1); posts of 777 and of the DID were found.
	if _, _, err := s.AuthorBlocked(ctx, "x", "888", func(b string) bool { return b == "bob" }); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTarget(ctx, "x", "alice", "1"); err != nil {
		t.Fatal(err)
	}
	// The Mastodon worker looked carol and dave up: their ids are Mastodon's.
	if err := s.PutTarget(ctx, "mastodon", "carol@mastodon.example", "31"); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockedLookedUp(ctx, "mastodon", "dave@social.example", "41", time.Now()); err != nil {
		t.Fatal(err)
	}
	// The last posts found of ids 777 and 4242 are Mastodon's accounts of
	// those digits: never the handle of X's.
	for i, a := range []struct{ platform, id, handle string }{
		{"x", "777", "old_seven"}, {"x", "777", "seven"}, {"x", "4242", "fortytwo"},
		{post.BlueskyPlatform, "did:plc:z72i7hdynmk6r22z27h6tvur", "bsky.app"},
		{post.MastodonPlatform, "777", "mallory"}, {post.MastodonPlatform, "4242", "impostor@else.example"},
	} {
		p := found("acct"+string(rune('a'+i)), post.SourceMention)
		p.Platform, p.AuthorID, p.AuthorUsername = a.platform, a.id, a.handle
		if _, _, err := s.UpsertFound(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	blockedAccts, targets, err := s.SettingsAccounts(ctx, got.TargetUsernames)
	if err != nil {
		t.Fatal(err)
	}
	str := func(v string) *string { return &v }
	wantBlocked := []settings.Account{
		{Entry: "quiet", Handle: str("quiet"), ID: str("555")},
		{Entry: "777", Handle: str("seven"), ID: str("777")},
		{Entry: "bob", Handle: str("bob"), ID: str("888")},
		{Entry: "did:web:carol.example.com", ID: str("did:web:carol.example.com")},
		{Entry: "dave@social.example", Handle: str("dave@social.example"), ID: str("41")},
	}
	wantTargets := []settings.Account{
		{Entry: "alice", Handle: str("alice"), ID: str("1")},
		{Entry: "did:plc:z72i7hdynmk6r22z27h6tvur", Handle: str("bsky.app"), ID: str("did:plc:z72i7hdynmk6r22z27h6tvur")},
		{Entry: "4242", Handle: str("fortytwo"), ID: str("4242")},
		{Entry: "nobody.bsky.social", Handle: str("nobody.bsky.social")},
		{Entry: "carol@mastodon.example", Handle: str("carol@mastodon.example"), ID: str("31")},
	}
	for _, c := range []struct {
		name      string
		got, want []settings.Account
	}{{"blocked", blockedAccts, wantBlocked}, {"targets", targets, wantTargets}} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s accounts:\n got  %s\n want %s", c.name, accountsString(c.got), accountsString(c.want))
		}
	}
	// No targets, no blocked authors: empty lists, not nil.
	if err := s.PutSettings(ctx, settings.Settings{Caps: settings.DefaultCaps()}); err != nil {
		t.Fatal(err)
	}
	if b, tg, err := s.SettingsAccounts(ctx, nil); err != nil || b == nil || tg == nil || len(b)+len(tg) != 0 {
		t.Errorf("empty settings: %v %v %v", b, tg, err)
	}
}

// accountsString prints accounts with their pointers followed.
func accountsString(list []settings.Account) string {
	var b strings.Builder
	for _, a := range list {
		deref := func(p *string) string {
			if p == nil {
				return "<nil>"
			}
			return *p
		}
		b.WriteString("{" + a.Entry + " " + deref(a.Handle) + " " + deref(a.ID) + "} ")
	}
	return b.String()
}
