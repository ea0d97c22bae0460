package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"infernal/pkg/upstream"
)

// Excerpt makes any upstream body a short single line.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name, in, want string
	}{
		{name: "short text as it is", in: `{"ok":false,"error_code":502,"description":"Bad Gateway"}`, want: `{"ok":false,"error_code":502,"description":"Bad Gateway"}`},
		{name: "empty", in: "", want: ""},
		{name: "only space", in: " \n\t ", want: ""},
		{name: "gateway page", in: "<html>bad gateway</html>", want: "bad gateway"},
		{name: "whole error page", in: "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n",
			want: "502 Bad Gateway 502 Bad Gateway nginx"},
		{name: "comparisons are not tags", in: "a < b and c > d, x <= y", want: "a < b and c > d, x <= y"},
		{name: "line breaks and tabs", in: "line one\r\nline two\n\n\tthree", want: "line one line two three"},
		{name: "ANSI escape and BEL", in: "red\x1b[31m alert\a", want: "red [31m alert"},
		{name: "bidi override", in: "abc\u202edef", want: "abc def"},
		{name: "not UTF-8", in: "a\xffb", want: "a\ufffdb"},
		{name: "quoted in an error", in: "error decode response body for method sendMessage, <html>\n<body>bad gateway</body>\n</html>, invalid character '<'",
			want: "error decode response body for method sendMessage, bad gateway , invalid character '<'"},
		{name: "long", in: long, want: strings.TrimSpace(long[:upstream.MaxExcerpt-1]) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := upstream.Excerpt(tt.in)
			if got != tt.want {
				t.Errorf("Excerpt(%.60q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > upstream.MaxExcerpt {
				t.Errorf("%d characters, more than %d", n, upstream.MaxExcerpt)
			}
		})
	}
}

// However long the body, or made of multi-byte characters, the excerpt is
// at most MaxExcerpt characters of valid UTF-8 on one line.
func TestExcerptBounds(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		strings.Repeat("😈", 10000),
		strings.Repeat("<p>ab\ncd</p>", 100000),
		strings.Repeat("x", 1<<20),
		"<" + strings.Repeat("a", 1<<20),
	} {
		got := upstream.Excerpt(in)
		if n := utf8.RuneCountInString(got); n > upstream.MaxExcerpt || n == 0 {
			t.Errorf("excerpt of %.20q... is %d characters", in, n)
		}
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\r\n") {
			t.Errorf("excerpt %.40q is not one line of UTF-8", got)
		}
		if !strings.HasSuffix(got, "…") {
			t.Errorf("a cut excerpt %.40q does not end with an ellipsis", got)
		}
	}
}

// Error keeps the chain of the error it shortens.
func TestError(t *testing.T) {
	t.Parallel()
	if upstream.Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
	inner := fmt.Errorf("status 502, body: <html>\n%s</html>: %w", strings.Repeat("x", 5000), context.DeadlineExceeded)
	err := fmt.Errorf("openai: chat completion: %w", upstream.Error(inner))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the shortened error lost its chain")
	}
	if n := len(err.Error()); n > 300 || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "<html>") {
		t.Errorf("error text %q is %d bytes, want a short single line", err.Error(), n)
	}
}
