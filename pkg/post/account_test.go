package post_test

import (
	"strings"
	"testing"

	"infernal/pkg/post"
)

func TestParseAccount(t *testing.T) {
	t.Parallel()
	var (
		xHandle    = post.AccountKind{Syntax: "x"}
		xID        = post.AccountKind{Syntax: "x", ID: true}
		bskyHandle = post.AccountKind{Syntax: "bluesky"}
		did        = post.AccountKind{Syntax: "bluesky", ID: true}
		acct       = post.AccountKind{Syntax: "mastodon"}
	)
	tests := []struct {
		in   string
		want string
		kind post.AccountKind
		// reason is part of a refusal's message.
		reason string
	}{
		{in: " @Alice_1 ", want: "alice_1", kind: xHandle},
		{in: "alice", want: "alice", kind: xHandle},
		{in: "_", want: "_", kind: xHandle},
		{in: "1234567890", want: "1234567890", kind: xID},
		{in: "9223372036854775807", want: "9223372036854775807", kind: xID},
		{in: "@Alice.bsky.social", want: "alice.bsky.social", kind: bskyHandle},
		{in: "example.com", want: "example.com", kind: bskyHandle},
		{in: "did:plc:z72i7hdynmk6r22z27h6tvur", want: "did:plc:z72i7hdynmk6r22z27h6tvur", kind: did},
		{in: "did:web:example.com", want: "did:web:example.com", kind: did},
		{in: " @Alice@Mastodon.Social ", want: "alice@mastodon.social", kind: acct},
		{in: "alice@mastodon.social", want: "alice@mastodon.social", kind: acct},
		{in: "@a.b-c_d@social.example.co.uk", want: "a.b-c_d@social.example.co.uk", kind: acct},
		{in: "@12345@mastodon.social", want: "12345@mastodon.social", kind: acct}, // digits with a server: an acct, never an id
		// Refused, each with the reason.
		{in: "not a handle", reason: `"not a handle" is not a handle or an id: an X handle of 1 to 15 letters, digits or underscores, an X user id (digits), a Bluesky handle such as alice.bsky.social, a DID (did:plc:...) or a Mastodon account such as @alice@mastodon.social`},
		{in: "abcdefghijklmnop"},                                     // 16 characters, no dot
		{in: "@12345", reason: "give the account's user id instead"}, // an all-digit handle is given by id
		{in: "12345678901234567890", reason: "is not an X user id (at most 19 digits)"},
		{in: "did:key:z6Mk", reason: `is a DID of method "key"`},
		{in: "did:plc", reason: "is not a DID"},
		{in: "alice..bsky.social"},
		{in: "alice.bsky.social."},
		{in: "al ice.bsky.social"},
		{in: "@"},
		{in: "@alice@"},
		{in: "alice@localhost", reason: "the server of user@server.tld is a domain"}, // a server is a domain with a dot
		{in: "@alice@@mastodon.social"},
		{in: "@@mastodon.social"},
		{in: "al ice@mastodon.social", reason: "the user part of user@server.tld is letters"},
		{in: "alice.@mastodon.social"},
		{in: "alice@mastodon..social"},
		{in: "alice@mastodon.social:443"},
		{in: "alice@mastodon.social/path"},
		{in: "did:web:a@b.example", reason: "is not a DID"}, // Bluesky's shape is tried before Mastodon's
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, kind, err := post.ParseAccount(tt.in)
			if tt.kind == (post.AccountKind{}) {
				if err == nil {
					t.Fatalf("ParseAccount(%q) = %q, %v, want an error", tt.in, got, kind)
				}
				if !strings.Contains(err.Error(), tt.reason) {
					t.Errorf("ParseAccount(%q): %v, want it to say %q", tt.in, err, tt.reason)
				}
				return
			}
			if err != nil || got != tt.want || kind != tt.kind {
				t.Errorf("ParseAccount(%q) = %q, %v, %v, want %q, %v", tt.in, got, kind, err, tt.want, tt.kind)
			}
			if post.AccountKindOf(got) != tt.kind {
				t.Errorf("KindOf(%q) = %v, want %v", got, post.AccountKindOf(got), tt.kind)
			}
		})
	}
}
