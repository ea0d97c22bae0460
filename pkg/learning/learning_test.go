package learning_test

import (
	"errors"
	"strings"
	"testing"

	"infernal/pkg/learning"
)

func TestCheckLesson(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"  No emoji ", "No emoji", true},
		{"", "", false},
		{strings.Repeat("x", 201), "", false},
		{strings.Repeat("é", 200), strings.Repeat("é", 200), true},
		{"see https://example.com", "", false},
		{"see example.com", "", false},
		{"ask @someone", "", false},
		{"two\nlines", "", false},
		{"\xff", "", false},
	}
	for _, tt := range tests {
		got, err := learning.CheckLesson(tt.in)
		if (err == nil) != tt.ok || got != tt.want || (err != nil && !errors.Is(err, learning.ErrInvalid)) {
			t.Errorf("CheckLesson(%q) = %q, %v", tt.in, got, err)
		}
	}
	for _, tt := range []struct {
		in string
		ok bool
	}{{"", true}, {"Wrong tone", true}, {strings.Repeat("x", 201), false}, {"a\nb", false}} {
		if _, err := learning.CheckReason(tt.in); (err == nil) != tt.ok {
			t.Errorf("CheckReason(%q): %v", tt.in, err)
		}
	}
}
