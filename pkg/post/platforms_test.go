package post_test

import (
	"testing"

	"infernal/pkg/post"
)

func TestValidPlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		platform string
		want     bool
	}{
		{"x", true}, {"bluesky", true}, {"sandbox", true},
		{"", false}, {"X", false}, {"twitter", false}, {"x ", false},
	}
	for _, tt := range tests {
		if got := post.ValidPlatform(tt.platform); got != tt.want {
			t.Errorf("ValidPlatform(%q) = %v, want %v", tt.platform, got, tt.want)
		}
	}
}
