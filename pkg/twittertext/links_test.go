package twittertext

import (
	"slices"
	"testing"
)

func TestExtractURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{name: "none", text: "no links here, just a sentence.", want: nil},
		{name: "with scheme", text: "see https://example.com/a?b=1 now", want: []string{"https://example.com/a?b=1"}},
		{name: "without scheme", text: "go to example.com today", want: []string{"example.com"}},
		{name: "t.co", text: "https://t.co/abc123 ok", want: []string{"https://t.co/abc123"}},
		{name: "two", text: "a.io and http://b.org/x", want: []string{"a.io", "http://b.org/x"}},
		{name: "after a word with @ is not a link", text: "mail me@example.com", want: nil},
		{name: "unknown TLD", text: "file.txt is not a link", want: nil},
		{name: "emoji before", text: "☕https://example.com", want: []string{"https://example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExtractURLs(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("ExtractURLs(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}
