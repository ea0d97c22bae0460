package knowledge_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"infernal/pkg/embeddings"
	"infernal/pkg/knowledge"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/writer/openai/openaitest"
)

// TestRetrieve runs the retrieval against PostgreSQL: a post that asks
// about a document's subject gets that chunk, a post on nothing gets no
// fact, a disabled document gives none, and a chunk holding two of the
// post's rare words ranks above one holding only one, even where a word
// every chunk holds would bring in every chunk, and words no chunk holds
// leave the others to choose.
func TestRetrieve(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// concepts are the words the embeddings stand-in takes for one meaning,
// as a real model's vectors bring synonyms together.
var concepts = [][]string{
	{"espresso", "coffee"},
	{"machine", "maker", "machines"},
	{"broke", "stopped", "died"},
	{"fix", "repair", "mend"},
}

// With embeddings, a chunk that means what the post asks in other words
// ranks above one that shares more of its words but means something
// else; without them, or when the provider fails (logged as a warning),
// the text's similarity ranks them as before.
func TestEmbeddingsRerankFacts(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	docs := map[string]string{
		"Ferry": "# Ferry\n\nThis morning Charon's ferry broke an oar near the obsidian docks; the harbour master will fix ropes, " +
			"sails and lanterns before nightfall.\n",
		"Coffee": "# Coffee maker\n\nWhen the coffee machine stopped, a demon could fix it.\n",
	}
	ids := map[int64]string{}
	for title, text := range docs {
		doc, err := st.AddDocument(ctx, title, len(text), knowledge.Split(text))
		if err != nil {
			t.Fatal(err)
		}
		ids[doc.ID] = title
	}
	const query = "my espresso machine broke this morning, who can fix it"
	titles := func(facts []knowledge.Fact) []string {
		var out []string
		for _, f := range facts {
			out = append(out, fmt.Sprintf("%s %.3f", ids[f.DocumentID], f.Score))
		}
		return out
	}

	lexical, rk, err := (&knowledge.Retriever{Store: st}).Search(ctx, query, knowledge.MaxChunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(lexical) == 0 || ids[lexical[0].DocumentID] != "Ferry" || rk.Embeddings || rk.Fallback != nil {
		t.Fatalf("by text: %v (%+v), want the ferry first", titles(lexical), rk)
	}

	s := openaitest.New(openaitest.Config{Concepts: concepts})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	emb, err := embeddings.New(embeddings.Config{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	ranked, rk, err := (&knowledge.Retriever{Store: st, Embedder: emb}).Search(ctx, query, knowledge.MaxChunks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("by text %v; with embeddings %v", titles(lexical), titles(ranked))
	if len(ranked) < 2 || ids[ranked[0].DocumentID] != "Coffee" || !rk.Embeddings || rk.Fallback != nil {
		t.Fatalf("with embeddings: %v (%+v), want the coffee machine first", titles(ranked), rk)
	}
	reqs := s.Embeddings()
	if len(reqs) != 1 || len(reqs[0].Input) != 3 || reqs[0].Input[0] != query {
		t.Fatalf("embeddings asked %+v, want one request: the post, then each candidate", reqs)
	}

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"The server had an error while processing your request."}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	broken, err := embeddings.New(embeddings.Config{BaseURL: failing.URL + "/v1", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	fallback, rk, err := (&knowledge.Retriever{Store: st, Embedder: broken, Log: log}).Search(ctx, query, knowledge.MaxChunks)
	if err != nil {
		t.Fatal(err)
	}
	if rk.Embeddings || rk.Fallback == nil || !strings.Contains(rk.Fallback.Error(), "answered 500") {
		t.Fatalf("ranking %+v, want the failure", rk)
	}
	if strings.Join(titles(fallback), ",") != strings.Join(titles(lexical), ",") {
		t.Fatalf("after a failure: %v, want the ranking by text %v", titles(fallback), titles(lexical))
	}
	if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), "facts ranked by text alone") {
		t.Fatalf("log %q, want a warning", logged.String())
	}
}
