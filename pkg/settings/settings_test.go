package settings_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"infernal/pkg/settings"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        settings.Settings
		wantField string
		want      settings.Settings
	}{
		{
			name: "cleans entries and fills default caps",
			in: settings.Settings{
				TargetUsernames: []string{" @ElonMusk ", "elonmusk", ""},
				SearchTopics:    []string{" coffee ", "Coffee", "monday"},
				BlockedAuthors:  nil,
				BlockedPhrases:  []string{"scam coin"},
			},
			want: settings.Settings{
				TargetUsernames: []string{"elonmusk"},
				SearchTopics:    []string{"coffee", "monday"},
				BlockedAuthors:  []string{},
				BlockedPhrases:  []string{"scam coin"},
				Caps:            settings.DefaultCaps(),
			},
		},
		{name: "bad handle", in: settings.Settings{TargetUsernames: []string{"ok", "not a handle"}}, wantField: "target_usernames[1]"},
		{name: "long handle", in: settings.Settings{BlockedAuthors: []string{"abcdefghijklmnop"}}, wantField: "blocked_authors[0]"},
		{name: "multi-line topic", in: settings.Settings{SearchTopics: []string{"a\nb"}}, wantField: "search_topics[0]"},
		{name: "topic X cannot search", in: settings.Settings{SearchTopics: []string{"fine", `a "quoted" topic`}}, wantField: "search_topics[1]"},
		{name: "invalid UTF-8 phrase", in: settings.Settings{BlockedPhrases: []string{"\xff"}}, wantField: "blocked_phrases[0]"},
		{name: "negative cap", in: settings.Settings{Caps: settings.Caps{PerConversation: -1}}, wantField: "caps.per_conversation"},
		{name: "huge cap", in: settings.Settings{Caps: settings.Caps{SendsPerDay: 100000}}, wantField: "caps.sends_per_day"},
		{name: "window over day", in: settings.Settings{Caps: settings.Caps{SendsPer3Hours: 60, SendsPerDay: 50}}, wantField: "caps.sends_per_3h"},
		{name: "threshold above 1", in: settings.Settings{Caps: settings.Caps{NearDuplicate: 1.5}}, wantField: "caps.near_duplicate"},
		{name: "threshold NaN", in: settings.Settings{Caps: settings.Caps{NearDuplicate: math.NaN()}}, wantField: "caps.near_duplicate"},
		{name: "review score above 5", in: settings.Settings{Caps: settings.Caps{MinReviewScore: 6}}, wantField: "caps.min_review_score"},
		{name: "context depth above 20", in: settings.Settings{Caps: settings.Caps{ContextDepth: 21}}, wantField: "caps.context_depth"},
		{name: "negative context depth", in: settings.Settings{Caps: settings.Caps{ContextDepth: -1}}, wantField: "caps.context_depth"},
		{name: "negative review score", in: settings.Settings{Caps: settings.Caps{MinReviewScore: -1}}, wantField: "caps.min_review_score"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Normalize()
			if tt.wantField != "" {
				var fe *settings.FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantField {
					t.Fatalf("Normalize() error = %v, want a FieldError on %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.TargetUsernames, tt.want.TargetUsernames) || !slices.Equal(got.SearchTopics, tt.want.SearchTopics) ||
				!slices.Equal(got.BlockedAuthors, tt.want.BlockedAuthors) || got.BlockedAuthors == nil ||
				!slices.Equal(got.BlockedPhrases, tt.want.BlockedPhrases) || got.Caps != tt.want.Caps {
				t.Errorf("Normalize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
