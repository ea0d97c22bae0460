package twittertext

import "testing"

func TestMayHoldLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{name: "no dot", text: "Welcome to hell", want: false},
		{name: "sentences", text: "Welcome. To hell. 2.5 souls.", want: false},
		{name: "domain", text: "see example.com now", want: true},
		{name: "second dot of several", text: "Well... hell.example", want: true},
		{name: "cyrillic top-level domain", text: "пример.рф", want: true},
		{name: "punycode", text: "site.xn--p1ai", want: true},
		{name: "dot at the end", text: "hell.", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mayHoldLink(tt.text); got != tt.want {
				t.Errorf("mayHoldLink(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}
