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
	if err := s.BlockAuthor(ctx, "quietplease", "", `opt-out: "stop"`, 0); err != nil {
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

// settings.mastodon is off before anything is stored, seeded by the
// environment as off, kept through a put, and read back by the cache a
// worker asks at every scan and send the moment it changes.
func TestMastodonSettingsStored(t *testing.T) {
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
		return plain.Mastodon.ReplyToDirect, cached.Mastodon.ReplyToDirect
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
		next.Mastodon.ReplyToDirect = on
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
	// The column of a database from before holds '{}': the default.
	if _, err := s.Pool().Exec(ctx, `UPDATE settings SET mastodon = '{}'`); err != nil {
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
		{name: "an opt-out blocks an author", change: func() error { return s.BlockAuthor(ctx, "quietone", "", "opt-out", 0) }},
		{name: "caps and phrases put", change: func() error {
			next := base
			next.BlockedPhrases, next.Caps.SendsPerDay = []string{}, 7
			next.BlockedAuthors = []string{"quietone"}
			return s.PutSettings(ctx, next)
		}},
		{name: "changed by another process", change: func() error { return other.BlockAuthor(ctx, "loudone", "", "added", 0) }},
		{name: "mastodon.reply_to_direct switched on", change: func() error {
			next := base
			next.Mastodon.ReplyToDirect = true
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
// only takes the id of the author who is next seen with it.
func TestAuthorBlockedByStableID(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	if err := s.BlockAuthor(ctx, "alice.test", "did:plc:alice", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockAuthor(ctx, "bob", "", "set by hand", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockAuthor(ctx, "carol", "", "set by hand", 0); err != nil {
		t.Fatal(err)
	}
	// Alice, renamed, opts out again: still one entry.
	if err := s.BlockAuthor(ctx, "alice2.test", "did:plc:alice", "opt-out again", 0); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, id, handle string
		wantAs           string // "" when not blocked
	}{
		{name: "the author, renamed", id: "did:plc:alice", handle: "alice-renamed.test", wantAs: "alice.test"},
		{name: "the next owner of the handle", id: "did:plc:mallory", handle: "alice.test"},
		{name: "a handle-only entry takes the id of the author seen with it", id: "100", handle: "@Bob", wantAs: "bob"},
		{name: "then another account with that handle is not blocked", id: "200", handle: "bob"},
		{name: "while the author is, renamed", id: "100", handle: "robert", wantAs: "bob"},
		{name: "an author of unknown id matches by handle", id: "", handle: "carol", wantAs: "carol"},
		{name: "nobody", id: "300", handle: "dave"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, blocked, err := s.AuthorBlocked(ctx, tt.id, func(b string) bool {
				return strings.EqualFold(b, strings.TrimPrefix(tt.handle, "@"))
			})
			if err != nil {
				t.Fatal(err)
			}
			if blocked != (tt.wantAs != "") || as != tt.wantAs {
				t.Fatalf("AuthorBlocked(%q, %q) = %q %v, want %q", tt.id, tt.handle, as, blocked, tt.wantAs)
			}
		})
	}
}

// Blocked authors and targets given by id or by handle: an id entry blocks
// its author at once, whatever the handle, and shows the handle last seen
// with the id; a handle entry shows the id found for it once the worker
// has met the author (blocked) or looked the handle up (target).
func TestSettingsAccounts(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	// An opt-out blocked one author under its handle, with its id.
	if err := s.BlockAuthor(ctx, "quiet", "555", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	set, err := settings.Settings{
		TargetUsernames: []string{"Alice", "did:plc:z72i7hdynmk6r22z27h6tvur", "4242", "nobody.bsky.social"},
		BlockedAuthors:  []string{"quiet", "777", "bob", "did:web:carol.example.com", "555"},
	}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	// The id 555 is blocked already, under its handle: it stays that one entry.
	got, err := s.Settings(ctx)
	if want := []string{"quiet", "777", "bob", "did:web:carol.example.com"}; err != nil || !slices.Equal(got.BlockedAuthors, want) {
		t.Fatalf("blocked authors = %q %v, want %q", got.BlockedAuthors, err, want)
	}
	// An entry by id blocks its author under any handle, at once.
	as, blocked, err := s.AuthorBlocked(ctx, "777", func(string) bool { return false })
	if err != nil || !blocked || as != "777" {
		t.Errorf("AuthorBlocked(777) = %q %v %v, want blocked as 777", as, blocked, err)
	}
	// The worker meets bob (id 888) and looks alice up (id 1); posts of 777 and of the DID were found.
	if _, _, err := s.AuthorBlocked(ctx, "888", func(b string) bool { return b == "bob" }); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTarget(ctx, "x", "alice", "1"); err != nil {
		t.Fatal(err)
	}
	for i, a := range []struct{ platform, id, handle string }{
		{"x", "777", "old_seven"}, {"x", "777", "seven"}, {"x", "4242", "fortytwo"},
		{post.BlueskyPlatform, "did:plc:z72i7hdynmk6r22z27h6tvur", "bsky.app"},
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
	}
	wantTargets := []settings.Account{
		{Entry: "alice", Handle: str("alice"), ID: str("1")},
		{Entry: "did:plc:z72i7hdynmk6r22z27h6tvur", Handle: str("bsky.app"), ID: str("did:plc:z72i7hdynmk6r22z27h6tvur")},
		{Entry: "4242", Handle: str("fortytwo"), ID: str("4242")},
		{Entry: "nobody.bsky.social", Handle: str("nobody.bsky.social")},
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
