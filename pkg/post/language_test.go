package post

import (
	"strings"
	"testing"
)

func TestParseLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tag     string
		want    string
		wantOK  bool
		primary string
	}{
		{tag: "en", want: "en", wantOK: true, primary: "en"},
		{tag: " FR ", want: "fr", wantOK: true, primary: "fr"},
		{tag: "pt-br", want: "pt-BR", wantOK: true, primary: "pt"},
		{tag: "pt_BR", want: "pt-BR", wantOK: true, primary: "pt"},
		{tag: "zh-hant-tw", want: "zh-Hant-TW", wantOK: true, primary: "zh"},
		{tag: "es-419", want: "es-419", wantOK: true, primary: "es"},
		{tag: "ast", want: "ast", wantOK: true, primary: "ast"},
		{tag: "en-x-ab", want: "en-x-ab", wantOK: true, primary: "en"},
		{tag: "", want: "", wantOK: true},
		{tag: "und", want: "", wantOK: true},
		{tag: "zxx", want: "", wantOK: true},
		{tag: "qme", want: "", wantOK: true},
		{tag: "qht", want: "", wantOK: true},
		{tag: "e", wantOK: false},
		{tag: "12", wantOK: false},
		{tag: "en--us", wantOK: false},
		{tag: "en-", wantOK: false},
		{tag: "english language", wantOK: false},
		{tag: "en-abcdefghi", wantOK: false},
		{tag: "<script>", wantOK: false},
		{tag: "é", wantOK: false},
		{tag: "en-" + strings.Repeat("abcdefgh-", 4), wantOK: false},
	}
	for _, tt := range tests {
		got, ok := ParseLanguage(tt.tag)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q, %v", tt.tag, got, ok, tt.want, tt.wantOK)
		}
		if l := Language(tt.tag); l != tt.want {
			t.Errorf("Language(%q) = %q, want %q", tt.tag, l, tt.want)
		}
		if p := PrimaryLanguage(tt.tag); p != tt.primary {
			t.Errorf("PrimaryLanguage(%q) = %q, want %q", tt.tag, p, tt.primary)
		}
	}
}
