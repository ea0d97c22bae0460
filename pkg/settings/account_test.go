package settings_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"infernal/pkg/settings"
)

func TestParseAccount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		kind settings.AccountKind
	}{
		{in: " @Alice_1 ", want: "alice_1", kind: settings.XHandle},
		{in: "alice", want: "alice", kind: settings.XHandle},
		{in: "_", want: "_", kind: settings.XHandle},
		{in: "1234567890", want: "1234567890", kind: settings.XUserID},
		{in: "9223372036854775807", want: "9223372036854775807", kind: settings.XUserID},
		{in: "@Alice.bsky.social", want: "alice.bsky.social", kind: settings.BlueskyHandle},
		{in: "example.com", want: "example.com", kind: settings.BlueskyHandle},
		{in: "did:plc:z72i7hdynmk6r22z27h6tvur", want: "did:plc:z72i7hdynmk6r22z27h6tvur", kind: settings.DID},
		{in: "did:web:example.com", want: "did:web:example.com", kind: settings.DID},
		{in: " @Alice@Mastodon.Social ", want: "alice@mastodon.social", kind: settings.MastodonAccount},
		{in: "alice@mastodon.social", want: "alice@mastodon.social", kind: settings.MastodonAccount},
		{in: "@a.b-c_d@social.example.co.uk", want: "a.b-c_d@social.example.co.uk", kind: settings.MastodonAccount},
		{in: "@12345@mastodon.social", want: "12345@mastodon.social", kind: settings.MastodonAccount}, // digits with a server: an acct, never an id
		// Refused, each with the reason.
		{in: "not a handle"},
		{in: "abcdefghijklmnop"}, // 16 characters, no dot
		{in: "@12345"},           // an all-digit handle is given by id
		{in: "12345678901234567890"},
		{in: "did:key:z6Mk"},
		{in: "did:plc"},
		{in: "alice..bsky.social"},
		{in: "alice.bsky.social."},
		{in: "al ice.bsky.social"},
		{in: "@"},
		{in: "@alice@"},
		{in: "alice@localhost"}, // a server is a domain with a dot
		{in: "@alice@@mastodon.social"},
		{in: "@@mastodon.social"},
		{in: "al ice@mastodon.social"},
		{in: "alice.@mastodon.social"},
		{in: "alice@mastodon..social"},
		{in: "alice@mastodon.social:443"},
		{in: "alice@mastodon.social/path"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, kind, err := settings.ParseAccount(tt.in)
			if tt.kind == 0 {
				if err == nil {
					t.Fatalf("ParseAccount(%q) = %q, %v, want an error", tt.in, got, kind)
				}
				return
			}
			if err != nil || got != tt.want || kind != tt.kind {
				t.Errorf("ParseAccount(%q) = %q, %v, %v, want %q, %v", tt.in, got, kind, err, tt.want, tt.kind)
			}
			if settings.KindOf(got) != tt.kind {
				t.Errorf("KindOf(%q) = %v, want %v", got, settings.KindOf(got), tt.kind)
			}
			if tt.kind.IsID() != (tt.kind == settings.XUserID || tt.kind == settings.DID) ||
				tt.kind.Bluesky() != (tt.kind == settings.BlueskyHandle || tt.kind == settings.DID) {
				t.Errorf("%v: IsID %v Bluesky %v", tt.kind, tt.kind.IsID(), tt.kind.Bluesky())
			}
			wantPlatform := map[settings.AccountKind]string{settings.XHandle: "x", settings.XUserID: "x",
				settings.BlueskyHandle: "bluesky", settings.DID: "bluesky", settings.MastodonAccount: "mastodon"}[tt.kind]
			if tt.kind.Platform() != wantPlatform {
				t.Errorf("%v: Platform %q, want %q", tt.kind, tt.kind.Platform(), wantPlatform)
			}
		})
	}
}

// Targets and blocked authors take handles and ids of every platform; a
// bad entry is a FieldError naming it.
func TestNormalizeAccounts(t *testing.T) {
	t.Parallel()
	got, err := settings.Settings{
		TargetUsernames: []string{"@Alice", "Alice.BSKY.social", "did:plc:z72i7hdynmk6r22z27h6tvur", "12", "@Carol@Mastodon.Example"},
		BlockedAuthors:  []string{"783214", "@bob.example.com", "bob.example.com", "@dave@social.example", "Dave@Social.Example"},
	}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"alice", "alice.bsky.social", "did:plc:z72i7hdynmk6r22z27h6tvur", "12", "carol@mastodon.example"}; !slices.Equal(got.TargetUsernames, want) {
		t.Errorf("targets = %q, want %q", got.TargetUsernames, want)
	}
	if want := []string{"783214", "bob.example.com", "dave@social.example"}; !slices.Equal(got.BlockedAuthors, want) {
		t.Errorf("blocked authors = %q, want %q", got.BlockedAuthors, want)
	}
	// The browser test and the admin match the start of the reason.
	var fe *settings.FieldError
	if _, err := (settings.Settings{TargetUsernames: []string{"sinner_one", "not a handle!"}}).Normalize(); !errors.As(err, &fe) ||
		!strings.HasPrefix(fe.Error(), `target_usernames[1]: "not a handle!" is not a handle`) {
		t.Errorf("a bad entry: %v", err)
	}
	for _, tt := range []struct {
		in    settings.Settings
		field string
	}{
		{settings.Settings{TargetUsernames: []string{"ok", "did:nope"}}, "target_usernames[1]"},
		{settings.Settings{BlockedAuthors: []string{"x.y", "-bad-.com"}}, "blocked_authors[1]"},
		{settings.Settings{BlockedAuthors: []string{"@ok@mastodon.social", "@bad@"}}, "blocked_authors[1]"},
		{settings.Settings{TargetUsernames: []string{"@Carol@Mastodon.Example", "carol@@mastodon.example"}}, "target_usernames[1]"},
	} {
		var fe *settings.FieldError
		if _, err := tt.in.Normalize(); !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("Normalize(%+v) = %v, want a FieldError on %s", tt.in, err, tt.field)
		}
	}
}
