package guard

import (
	"slices"
	"testing"
)

func TestFlags(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	want := []Flag{"link", "foreign_mention", "placeholder", "secret", "near_duplicate"}
	if got := AllFlags(); !slices.Equal(got, want) {
		t.Errorf("AllFlags() = %q, want %q (they are API values)", got, want)
	}
}

// TestFlagsSeeThroughObfuscation: the forms a hostile model or mortal
// would use to slip a link, a mention or a secret past the check are
// flagged like their plain forms, and ordinary prose stays clean.
func TestFlagsSeeThroughObfuscation(t *testing.T) {
	t.Parallel()
	conversation := []string{"coffee_wraith"}
	tests := []struct {
		name string
		text string
		want []Flag
	}{
		{name: "zero-width space in scheme and host", text: "h\u200bttps://evil\u200b.com", want: []Flag{FlagLink}},
		{name: "zero-width joiner in host", text: "visit evil\u200d.com now", want: []Flag{FlagLink}},
		{name: "word joiner and soft hyphen", text: "evil\u2060.co\u00adm", want: []Flag{FlagLink}},
		{name: "ideographic full stop", text: "go to evil。com", want: []Flag{FlagLink}},
		{name: "half-width ideographic full stop", text: "evil｡com", want: []Flag{FlagLink}},
		{name: "full-width full stop", text: "evil．com", want: []Flag{FlagLink}},
		{name: "one dot leader", text: "evil\u2024com", want: []Flag{FlagLink}},
		{name: "full-width letters", text: "ｅｖｉｌ．ｃｏｍ", want: []Flag{FlagLink}},
		{name: "Cyrillic look-alikes", text: "\u0435vil.c\u043em", want: []Flag{FlagLink}},
		{name: "reserved top-level domain", text: "https://evil.example/claim", want: []Flag{FlagLink}},
		{name: "any top-level domain without scheme", text: "claim at evil.zzz today", want: []Flag{FlagLink}},
		{name: "unknown scheme", text: "hxxp://evil", want: []Flag{FlagLink}},
		{name: "zero-width after the at sign", text: "@\u200bvictim_acct", want: []Flag{FlagForeignMention}},
		{name: "zero-width inside the handle", text: "ask @vic\u200btim_acct", want: []Flag{FlagForeignMention}},
		{name: "full-width at sign and letters", text: "＠ｖｉｃｔｉｍ", want: []Flag{FlagForeignMention}},
		// X reads "@c" here: a look-alike cuts a known handle into a foreign one.
		{name: "Cyrillic look-alike in a known handle", text: "@c\u043effee_wraith hi", want: []Flag{FlagForeignMention}},
		{name: "Cyrillic look-alike in a foreign handle", text: "@vict\u0456m_acct", want: []Flag{FlagForeignMention}},
		{name: "zero-width split key", text: "sk-proj-abcDEF1234\u200b567890ghijKLMN", want: []Flag{FlagSecret}},
		{name: "full-width key", text: "ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ", want: []Flag{FlagSecret}},
		{name: "zero-width placeholder", text: "dear {pers\u200bona}", want: []Flag{FlagPlaceholder}},
		{name: "prose with abbreviations", text: "Sinners, e.g. you, i.e. all of you, pay at 3.50 a.m.", want: nil},
		{name: "prose with ellipsis and emoji", text: "Hell waits... and waits. ☕🔥", want: nil},
		{name: "zero-width in prose", text: "your\u200b coffee is a sin", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Flags(tt.text, conversation, "@Infernal"); !slices.Equal(got, tt.want) {
				t.Errorf("Flags(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestOutbound(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain ASCII Stays As It Is", "plain ASCII Stays As It Is"},
		{"h\u200bttps://evil\u200b.com", "https://evil.com"},
		{"evil。com", "evil.com"},
		{"\u0435vil", "evil"},
		{"line\nbreak\ttab", "line break tab"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Outbound(tt.in); got != tt.want {
			t.Errorf("Outbound(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
