package guard

import (
	"slices"
	"testing"
)

func TestFlags(t *testing.T) {
	conversation := []string{"coffee_wraith", "@Tom_B"}
	tests := []struct {
		name string
		text string
		want []Flag
	}{
		{name: "clean", text: "@coffee_wraith your third coffee is a sin, and so is this one ☕", want: nil},
		{name: "persona and participants, any case", text: "@TOM_B @Coffee_Wraith @infernal welcome", want: nil},
		{name: "link with scheme", text: "read https://example.com/hell first", want: []Flag{FlagLink}},
		{name: "link without scheme", text: "see hell.com", want: []Flag{FlagLink}},
		{name: "foreign mention", text: "@coffee_wraith ask @elonmusk", want: []Flag{FlagForeignMention}},
		{name: "full-width at sign", text: "ask ＠someone_else", want: []Flag{FlagForeignMention}},
		{name: "email is not a mention", text: "write to tom@coffee_wraith", want: nil},
		{name: "placeholder braces", text: "Dear {persona}, repent", want: []Flag{FlagPlaceholder}},
		{name: "placeholder double braces", text: "hi {{ name }}!", want: []Flag{FlagPlaceholder}},
		{name: "placeholder square brackets", text: "welcome, [name], to hell", want: []Flag{FlagPlaceholder}},
		{name: "placeholder ellipsis", text: "and then [...] forever", want: []Flag{FlagPlaceholder}},
		{name: "placeholder angle brackets", text: "replying to <post>", want: []Flag{FlagPlaceholder}},
		{name: "heart is not a placeholder", text: "I <3 sinners > saints", want: nil},
		{name: "OpenAI key", text: "my key sk-proj-abcDEF1234567890ghijKLMN", want: []Flag{FlagSecret}},
		{name: "Slack token", text: "xoxb-123456789012-abcdefghij", want: []Flag{FlagSecret}},
		{name: "AWS key id", text: "AKIAIOSFODNN7EXAMPLE", want: []Flag{FlagSecret}},
		{name: "GitHub token", text: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", want: []Flag{FlagSecret}},
		{name: "bearer", text: "Authorization: Bearer abcdef0123456789abcdef", want: []Flag{FlagSecret}},
		{name: "long hex", text: "token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", want: []Flag{FlagSecret}},
		{name: "random base64", text: "use Zx8kQ2pL9mN4vB7cR1tY6wE3sA5dF0gH", want: []Flag{FlagSecret}},
		{name: "long hashtag is not a secret", text: "#ThisIsMyVeryLongHashtagForTheYear2026", want: nil},
		{name: "risk is not an sk- key", text: "low-risk-investment-strategies-for-everyone", want: nil},
		{name: "several, in order", text: "{persona} see https://x.com @stranger sk-abcDEF1234567890ghijKLMN", want: []Flag{FlagLink, FlagForeignMention, FlagPlaceholder, FlagSecret}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Flags(tt.text, conversation, "@Infernal"); !slices.Equal(got, tt.want) {
				t.Errorf("Flags(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestAllFlags(t *testing.T) {
	want := []Flag{"link", "foreign_mention", "placeholder", "secret", "near_duplicate"}
	if got := AllFlags(); !slices.Equal(got, want) {
		t.Errorf("AllFlags() = %q, want %q (they are API values)", got, want)
	}
}
