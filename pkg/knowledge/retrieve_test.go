package knowledge_test

import (
	"context"
	"errors"
	"fmt"
	"infernal/pkg/store"
	"strings"
	"testing"

	"infernal/pkg/knowledge"
	"infernal/pkg/store/storetest"
)

// TestRetrieve runs the retrieval against PostgreSQL: a post that asks
// about a document's subject gets that chunk, a post on nothing gets no
// fact, a disabled document gives none, and a chunk holding two of the
// post's rare words ranks above one holding only one, even where a word
// every chunk holds would bring in every chunk, and words no chunk holds
// leave the others to choose.
func TestRetrieve(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	var filler strings.Builder
	// Many chunks sharing "pit": a word the statistics find everywhere.
	for i := range 400 {
		fmt.Fprintf(&filler, "# Room %d\n\nThe pit keeps room %d warm, chamber%d and hall%d.\n\n", i, i, i, i)
	}
	docs := []struct{ title, text string }{
		{"Hours", "# Opening hours\n\nThe pit opens at midnight and closes at dawn, brimstone saunas included.\n"},
		{"Ferry", "# Ferry\n\nCharon's ferry leaves hourly; obols accepted, no refunds.\n\n# Brimstone\n\nBrimstone saunas run hot.\n"},
		{"Rooms", filler.String()},
		{"Secret", "# Secret\n\nThe vault combination is hidden beneath the obsidian throne.\n"},
	}
	ids := map[string]int64{}
	for _, d := range docs {
		doc, err := st.AddDocument(ctx, d.title, len(d.text), knowledge.Split(d.text))
		if err != nil {
			t.Fatal(err)
		}
		ids[d.title] = doc.ID
	}
	if _, err := st.SetDocumentEnabled(ctx, ids["Secret"], false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `ANALYZE knowledge_chunks`); err != nil {
		t.Fatal(err)
	}
	ret := &knowledge.Retriever{Store: st}
	tests := []struct {
		name, query string
		first       string // the first fact's document title; "" for no fact
		absent      string // a title no fact may come from
	}{
		{"asks about it", "when does the pit open, before midnight?", "Hours", ""},
		{"two rare words rank first", "are the brimstone saunas open at midnight", "Hours", "Secret"},
		{"another subject", "how much is charon's ferry, in obols?", "Ferry", ""},
		{"words it never holds crowd nothing out", "aardvark abacus abbey abyss acorn adder: charon's ferry?", "Ferry", ""},
		{"nothing like it", "my cat likes tuna sandwiches", "", ""},
		{"disabled document", "where is the vault combination hidden", "", "Secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ret.Retrieve(ctx, tt.query, knowledge.MaxChunks)
			if err != nil {
				t.Fatal(err)
			}
			if tt.first == "" && tt.absent == "" && len(got) != 0 {
				t.Fatalf("facts %+v, want none", got)
			}
			if tt.first != "" && (len(got) == 0 || got[0].DocumentID != ids[tt.first]) {
				t.Fatalf("facts %+v, want %q's first", got, tt.first)
			}
			for _, f := range got {
				if tt.absent != "" && f.DocumentID == ids[tt.absent] {
					t.Errorf("fact %+v from %q", f, tt.absent)
				}
			}
		})
	}
}

// TestRetrieveFollowsTheDocuments checks that the word counts the
// retrieval chooses by follow every upload, disabling, enabling and
// deletion: a disabled or deleted document's words choose nothing.
func TestRetrieveFollowsTheDocuments(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	ret := &knowledge.Retriever{Store: st}
	count := func(lexeme string) int {
		t.Helper()
		var n int
		err := st.Pool().QueryRow(ctx, `SELECT coalesce((SELECT chunks FROM knowledge_lexemes WHERE lexeme = $1), 0)`, lexeme).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	text := "# Ferry\n\nCharon's ferry leaves hourly.\n\n# Fares\n\nThe ferry takes obols only.\n"
	a, err := st.AddDocument(ctx, "Ferry", len(text), knowledge.Split(text))
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.AddDocument(ctx, "Ferry again", len(text), knowledge.Split(text))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		do    func() error
		ferry int // chunks of enabled documents holding "ferri"
	}{
		{"two uploads", func() error { return nil }, 4},
		{"one disabled", func() error { _, err := st.SetDocumentEnabled(ctx, a.ID, false); return err }, 2},
		{"disabled twice", func() error { _, err := st.SetDocumentEnabled(ctx, a.ID, false); return err }, 2},
		{"enabled again", func() error { _, err := st.SetDocumentEnabled(ctx, a.ID, true); return err }, 4},
		{"one deleted", func() error { return st.DeleteDocument(ctx, b.ID) }, 2},
		{"the other disabled, then deleted", func() error {
			if _, err := st.SetDocumentEnabled(ctx, a.ID, false); err != nil {
				return err
			}
			return st.DeleteDocument(ctx, a.ID)
		}, 0},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := count("ferri"); got != s.ferry {
			t.Errorf("%s: %d chunks hold ferri, want %d", s.name, got, s.ferry)
		}
		facts, err := ret.Retrieve(ctx, "does the ferry take obols?", knowledge.MaxChunks)
		if err != nil {
			t.Fatal(err)
		}
		if (len(facts) > 0) != (s.ferry > 0) {
			t.Errorf("%s: facts %+v", s.name, facts)
		}
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM knowledge_lexemes`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d words still counted with no document (%v)", left, err)
	}
	if err := st.DeleteDocument(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting it again: %v, want ErrNotFound", err)
	}
}
