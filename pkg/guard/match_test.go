package guard

import "testing"

func TestMatchPhrase(t *testing.T) {
	t.Parallel()
	phrases := []string{"scam coin", "rug pull", "kys", "停止"}
	tests := []struct {
		name   string
		text   string
		want   string
		wantOK bool
	}{
		{name: "plain", text: "this is a scam coin, trust me", want: "scam coin", wantOK: true},
		{name: "case", text: "SCAM COIN!!", want: "scam coin", wantOK: true},
		{name: "Cyrillic letters", text: "buy this ѕсаm соіn", want: "scam coin", wantOK: true},
		{name: "zero-width joiners", text: "s\u200dc\u200da\u200dm c\u200do\u200di\u200dn", want: "scam coin", wantOK: true},
		{name: "full-width", text: "ｒｕｇ ｐｕｌｌ incoming", want: "rug pull", wantOK: true},
		{name: "spaced letters", text: "k y s", want: "kys", wantOK: true},
		{name: "dotted letters", text: "k.y.s", want: "kys", wantOK: true},
		{name: "run together", text: "classic rugpull", want: "rug pull", wantOK: true},
		{name: "digits for letters", text: "5cam c0in", wantOK: false},
		{name: "look-alike digit zero", text: "scam c0in", want: "scam coin", wantOK: true},
		{name: "mathematical letters", text: "𝐫𝐮𝐠 𝐩𝐮𝐥𝐥", want: "rug pull", wantOK: true},
		{name: "inside a longer word", text: "scam coins", wantOK: false},
		{name: "prefix of a word", text: "kysely is a library", wantOK: false},
		{name: "unspaced script", text: "请停止吧", want: "停止", wantOK: true},
		{name: "nothing", text: "a lovely day for coffee", wantOK: false},
		{name: "empty text", text: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MatchPhrase(tt.text, phrases)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("MatchPhrase(%q) = %q, %v, want %q, %v", tt.text, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestMatchPhraseIgnoresWordlessPhrases(t *testing.T) {
	t.Parallel()
	if got, ok := MatchPhrase("what?!", []string{"", "?!", "  "}); ok {
		t.Errorf("MatchPhrase with wordless phrases = %q, true, want no match", got)
	}
}

func TestBlockedAuthor(t *testing.T) {
	t.Parallel()
	blocked := []string{"@SpamKing", "bot_farm"}
	tests := []struct {
		name   string
		author string
		want   string
		wantOK bool
	}{
		{name: "exact", author: "SpamKing", want: "@SpamKing", wantOK: true},
		{name: "case and @", author: "@spamking", want: "@SpamKing", wantOK: true},
		{name: "full-width", author: "ｓｐａｍｋｉｎｇ", want: "@SpamKing", wantOK: true},
		{name: "digit for letter", author: "b0t_farm", want: "bot_farm", wantOK: true},
		{name: "other author", author: "coffee_wraith", wantOK: false},
		{name: "prefix only", author: "spamkingdom", wantOK: false},
		{name: "empty", author: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := BlockedAuthor(tt.author, blocked)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("BlockedAuthor(%q) = %q, %v, want %q, %v", tt.author, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestSameHandle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "same", a: "infernal", b: "infernal", want: true},
		{name: "@ and case", a: "@Infernal", b: "INFERNAL", want: true},
		{name: "look-alike 1 for l", a: "Infernal", b: "inferna1", want: true},
		{name: "full-width", a: "infernal", b: "ｉｎｆｅｒｎａｌ", want: true},
		{name: "different", a: "infernal", b: "inferno", want: false},
		{name: "both empty", a: "", b: "@", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameHandle(tt.a, tt.b); got != tt.want {
				t.Errorf("SameHandle(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
