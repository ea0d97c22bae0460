package settings_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"infernal/pkg/settings"
)

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
