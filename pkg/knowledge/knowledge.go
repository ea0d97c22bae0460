// Package knowledge is the operator's knowledge base: documents (.md or
// .txt) cut into chunks along headings and paragraphs, of which the few
// most like a post go into its prompt as facts the persona may use.
// Retrieval is pkg/retrieval's, shared with the persona's learning:
// pkg/store finds candidates by text search and trigrams, Select scores
// them, keeps those above the floor and picks the best.
package knowledge

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"infernal/pkg/settings"
)

// The limits of the knowledge base.
const (
	// MaxDocumentBytes is the largest document, in bytes (1 MB).
	MaxDocumentBytes = 1 << 20
	// MaxDocuments is the most documents stored.
	MaxDocuments = 200
	// MaxTitle is the longest title, in characters.
	MaxTitle = 200
	// ChunkChars is about the longest chunk, in characters.
	ChunkChars = 800
	// MaxQuery is the longest search text, in characters.
	MaxQuery = 2000
)

// Errors of an upload, each answered with its own status by the API.
var (
	// ErrTooLarge is a document over MaxDocumentBytes.
	ErrTooLarge = fmt.Errorf("a document is at most %d bytes", MaxDocumentBytes)
	// ErrTooMany is a document past MaxDocuments.
	ErrTooMany = fmt.Errorf("the knowledge base holds at most %d documents", MaxDocuments)
	// ErrType is a file that is neither .md nor .txt.
	ErrType = errors.New("a document is a .md or .txt file")
	// ErrNotUTF8 is text that is not valid UTF-8 (or holds NUL bytes: binary).
	ErrNotUTF8 = errors.New("the document is not UTF-8 text")
	// ErrEmpty is a document with no text.
	ErrEmpty = errors.New("the document is empty")
)

// Document is one uploaded document.
type Document struct {
	ID        int64
	Title     string
	Bytes     int
	Chunks    int
	Enabled   bool
	CreatedAt time.Time
}

// Chunk is one piece of a document.
type Chunk struct {
	ID         int64
	DocumentID int64
	// Position is its place in the document, from 0.
	Position int
	// Heading is the heading it stands under ("" before any).
	Heading string
	Text    string
}

// Fact is a chunk retrieved for a text, with its document's title.
type Fact struct {
	DocumentID int64
	ChunkID    int64
	Title      string
	Text       string
	// Score is its similarity to the text, 0 to 1.
	Score float64
}

// CheckFilename returns ErrType unless name ends in .md or .txt (any case).
func CheckFilename(name string) error {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".txt", ".markdown":
		return nil
	}
	return ErrType
}

// TitleFromFilename is a file's title: its name without the extension.
func TitleFromFilename(name string) string {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	return strings.TrimSpace(strings.TrimSuffix(base, path.Ext(base)))
}

// CheckText checks a document's title and text: the text at most
// MaxDocumentBytes (ErrTooLarge), UTF-8 without NUL (ErrNotUTF8), not
// blank (ErrEmpty); the title 1 to MaxTitle characters, UTF-8 (a
// *settings.FieldError). It returns the text with its line endings made "\n" and
// a leading byte-order mark dropped.
func CheckText(title, text string) (string, string, error) {
	if len(text) > MaxDocumentBytes {
		return "", "", ErrTooLarge
	}
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return "", "", ErrNotUTF8
	}
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if strings.TrimSpace(text) == "" {
		return "", "", ErrEmpty
	}
	title = strings.TrimSpace(title)
	if !utf8.ValidString(title) || strings.ContainsRune(title, 0) {
		return "", "", &settings.FieldError{Field: "title", Problem: "is not UTF-8 text"}
	}
	if title == "" {
		return "", "", &settings.FieldError{Field: "title", Problem: "is required"}
	}
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		return "", "", &settings.FieldError{Field: "title", Problem: fmt.Sprintf("is %d characters; at most %d", n, MaxTitle)}
	}
	return title, text, nil
}
