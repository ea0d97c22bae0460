package settings_test

import (
	"errors"
	"strings"
	"testing"

	"infernal/pkg/settings"
)

func TestSearchQuery(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 100)
	tests := []struct {
		name      string
		topics    []string
		want      string
		wantField string
	}{
		{name: "no topics, no search", topics: nil, want: ""},
		{name: "one word", topics: []string{"monday"}, want: "monday -is:retweet"},
		{name: "default topics", topics: []string{"monday", "coffee", "deadline", "gym"}, want: "(monday OR coffee OR deadline OR gym) -is:retweet"},
		{name: "phrase quoted", topics: []string{"cold brew", "gym"}, want: `("cold brew" OR gym) -is:retweet`},
		{name: "hashtag, cashtag and mention bare", topics: []string{"#gym", "$TSLA", "@nasa"}, want: "(#gym OR $TSLA OR @nasa) -is:retweet"},
		{name: "non-latin word bare", topics: []string{"понедельник", "café"}, want: "(понедельник OR café) -is:retweet"},
		{name: "punctuation and negation quoted", topics: []string{"-spam", "from:elon", "9-to-5"}, want: `("-spam" OR "from:elon" OR "9-to-5") -is:retweet`},
		{name: "operator words quoted", topics: []string{"OR", "AND", "or"}, want: `("OR" OR "AND" OR or) -is:retweet`},
		{name: "double quote refused", topics: []string{"ok", `say "hi"`}, wantField: "search_topics[1]"},
		{name: "too long names the topic that overflows", topics: []string{long, long, long, long, long, long}, wantField: "search_topics[4]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := settings.SearchQuery(tt.topics)
			if tt.wantField != "" {
				var fe *settings.FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantField {
					t.Fatalf("SearchQuery() = %q, %v; want a FieldError on %s", got, err, tt.wantField)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("SearchQuery() = %q, %v; want %q", got, err, tt.want)
			}
			if len([]rune(got)) > settings.MaxSearchQueryLength {
				t.Errorf("query of %d characters", len([]rune(got)))
			}
		})
	}
}
