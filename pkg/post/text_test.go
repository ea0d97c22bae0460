package post_test

import (
	"errors"
	"testing"

	"infernal/pkg/post"
)

// CheckText keeps plain text, line breaks and tabs, and refuses control
// characters and bidirectional overrides, naming the first.
func TestCheckText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		text     string
		wantRune rune // 0: accepted
		wantAt   int
		wantErr  string
	}{
		{name: "plain", text: "Burn, mortal."},
		{name: "empty", text: ""},
		{name: "line feeds", text: "line one\nline two\n\nthree"},
		{name: "CRLF line break", text: "line one\r\nline two"},
		{name: "tab", text: "a\tb"},
		{name: "emoji and accents", text: "héllo 😈 עברית"},
		{name: "the replacement character itself", text: "a\ufffdb"},
		{name: "left-to-right mark (not an override)", text: "a\u200eb"},
		{name: "NUL", text: "a\x00b", wantRune: 0x00, wantAt: 2, wantErr: "holds the control character U+0000 at character 2"},
		{name: "BEL", text: "ding\a", wantRune: 0x07, wantAt: 5},
		{name: "ANSI escape", text: "\x1b[31mred", wantRune: 0x1b, wantAt: 1},
		{name: "lone carriage return", text: "over\rwrite", wantRune: '\r', wantAt: 5},
		{name: "carriage return at the end", text: "end\r", wantRune: '\r', wantAt: 4},
		{name: "vertical tab", text: "a\vb", wantRune: '\v', wantAt: 2},
		{name: "DEL", text: "a\x7f", wantRune: 0x7f, wantAt: 2},
		{name: "C1 CSI", text: "a\u009b31m", wantRune: 0x9b, wantAt: 2},
		{name: "right-to-left override", text: "evil\u202egnp.exe", wantRune: 0x202e, wantAt: 5, wantErr: "holds the bidirectional control U+202E at character 5"},
		{name: "left-to-right embedding", text: "\u202ax", wantRune: 0x202a, wantAt: 1},
		{name: "first strong isolate", text: "ab\u2068c", wantRune: 0x2068, wantAt: 3},
		{name: "pop directional isolate", text: "\u2069", wantRune: 0x2069, wantAt: 1},
		{name: "not UTF-8", text: "a\xffb", wantRune: 0xfffd, wantAt: 2, wantErr: "is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := post.CheckText(tt.text)
			if tt.wantAt == 0 {
				if err != nil {
					t.Fatalf("refused %q: %v", tt.text, err)
				}
				return
			}
			var textErr *post.TextError
			if !errors.As(err, &textErr) {
				t.Fatalf("CheckText(%q) = %v, want a *post.TextError", tt.text, err)
			}
			if textErr.Rune != tt.wantRune || textErr.At != tt.wantAt {
				t.Fatalf("CheckText(%q) refused U+%04X at %d, want U+%04X at %d", tt.text, textErr.Rune, textErr.At, tt.wantRune, tt.wantAt)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Fatalf("message %q, want %q", err.Error(), tt.wantErr)
			}
		})
	}
}
