package post

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckInstruction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "empty", in: "", want: ""},
		{name: "trimmed", in: "  shorter ", want: "shorter"},
		{name: "unicode", in: "moins cruel, s’il te plaît 🔥", want: "moins cruel, s’il te plaît 🔥"},
		{name: "exactly the limit", in: strings.Repeat("é", MaxInstruction), want: strings.Repeat("é", MaxInstruction)},
		{name: "one over", in: strings.Repeat("x", MaxInstruction+1), wantErr: true},
		{name: "two lines", in: "shorter\nand crueler", wantErr: true},
		{name: "carriage return", in: "shorter\rx", wantErr: true},
		{name: "line separator", in: "a\u2028b", wantErr: true},
		{name: "NUL", in: "a\x00b", wantErr: true},
		{name: "C1 control", in: "a\u0085b", wantErr: true},
		{name: "invalid UTF-8", in: "a\xffb", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckInstruction(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("CheckInstruction(%q) = %q, %v; want ErrInvalid", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CheckInstruction(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
