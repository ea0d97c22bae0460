package knowledge_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"infernal/pkg/knowledge"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("The pit is hot. ", 120) // 1,920 characters of sentences
	word := strings.Repeat("x", 2000)
	tests := []struct {
		name string
		text string
		want []knowledge.Piece
		// n is the number of pieces when want is not given.
		n int
	}{
		{name: "empty", text: "", want: nil},
		{name: "blank", text: "\n \n\t\n", want: nil},
		{name: "one paragraph", text: "Open at midnight.", want: []knowledge.Piece{{Text: "Open at midnight."}}},
		{name: "paragraphs joined", text: "One.\n\nTwo.", want: []knowledge.Piece{{Text: "One.\n\nTwo."}}},
		{name: "headings cut", text: "# Hours\n\nOpen at midnight.\n\n## Prices\n\nFree for sinners.",
			want: []knowledge.Piece{{Heading: "Hours", Text: "Open at midnight."}, {Heading: "Prices", Text: "Free for sinners."}}},
		{name: "setext heading", text: "Hours\n=====\nOpen at midnight.",
			want: []knowledge.Piece{{Heading: "Hours", Text: "Open at midnight."}}},
		{name: "hashtag is no heading", text: "#sin is a tag", want: []knowledge.Piece{{Text: "#sin is a tag"}}},
		{name: "heading without text", text: "# Empty\n\n# Full\n\nText.", want: []knowledge.Piece{{Heading: "Full", Text: "Text."}}},
		{name: "long paragraph cut between sentences", text: long, n: 3},
		{name: "long word cut", text: word, n: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := knowledge.Split(tt.text)
			for _, p := range got {
				if n := utf8.RuneCountInString(p.Text); n > knowledge.ChunkChars || strings.TrimSpace(p.Text) == "" {
					t.Fatalf("a piece of %d characters: %q", n, p.Text)
				}
			}
			if tt.want == nil && tt.n == 0 {
				if len(got) != 0 {
					t.Fatalf("got %q, want none", got)
				}
				return
			}
			if tt.n > 0 {
				if len(got) != tt.n {
					t.Fatalf("%d pieces, want %d", len(got), tt.n)
				}
				if strings.Contains(tt.text, ". ") && !strings.HasSuffix(got[0].Text, ".") {
					t.Fatalf("not cut between sentences: %q", got[0].Text)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("piece %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestCheckText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, title, text string
		wantErr           error
		field             bool
	}{
		{name: "ok", title: "Hours", text: "Open."},
		{name: "too large", title: "t", text: strings.Repeat("a", knowledge.MaxDocumentBytes+1), wantErr: knowledge.ErrTooLarge},
		{name: "not UTF-8", title: "t", text: "\xff\xfe", wantErr: knowledge.ErrNotUTF8},
		{name: "NUL", title: "t", text: "a\x00", wantErr: knowledge.ErrNotUTF8},
		{name: "empty", title: "t", text: "  \n", wantErr: knowledge.ErrEmpty},
		{name: "no title", title: " ", text: "a", field: true},
		{name: "long title", title: strings.Repeat("t", knowledge.MaxTitle+1), text: "a", field: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := knowledge.CheckText(tt.title, tt.text)
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			case tt.field && err == nil:
				t.Fatal("no error for a bad title")
			case tt.wantErr == nil && !tt.field && err != nil:
				t.Fatal(err)
			}
		})
	}
	_, text, err := knowledge.CheckText("t", "\uFEFFa\r\nb\rc")
	if err != nil || text != "a\nb\nc" {
		t.Fatalf("line endings: %q %v", text, err)
	}
}

func TestCheckFilename(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{"a.md": true, "A.TXT": true, "notes.markdown": true, "a.png": false, "a": false, "a.md.exe": false} {
		if err := knowledge.CheckFilename(name); (err == nil) != ok {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := knowledge.TitleFromFilename(`C:\docs\Opening hours.md`); got != "Opening hours" {
		t.Errorf("title %q", got)
	}
}

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		limit int
		want  string
	}{
		{"The pit opens at midnight. Bring water.", 140, "The pit opens at midnight."},
		{"No full stop", 140, "No full stop"},
		{"", 140, ""},
		{"The pit opens at midnight. Bring water.", 10, "The pit o…"},
	}
	for _, tt := range tests {
		if got := knowledge.FirstSentence(tt.text, tt.limit); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.want)
		}
	}
}

// BenchmarkSplit cuts 1 MB of Markdown, the largest document: its
// indexing (Split plus the store's insert, see pkg/store's
// BenchmarkAddDocument) must take well under 5 s.
func BenchmarkSplit(b *testing.B) {
	text := Document(knowledge.MaxDocumentBytes, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		knowledge.Split(text)
	}
}
