package shaper_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"infernal/pkg/embeddings"
	"infernal/pkg/learning"
	"infernal/pkg/learning/shaper"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/writer/offline"
	"infernal/pkg/writer/openai/openaitest"
)

// topics are twelve subjects, each with words of its own.
var topics = [][]string{
	{"sourdough", "starter", "flour", "oven", "loaf", "crust", "yeast", "baking"},
	{"marathon", "running", "training", "pace", "sneakers", "mileage", "finish", "stretch"},
	{"guitar", "chords", "strings", "amplifier", "riff", "practice", "fingers", "tuning"},
	{"garden", "tomatoes", "compost", "seedlings", "weeds", "soil", "harvest", "watering"},
	{"python", "compiler", "debugging", "semicolon", "refactor", "deploy", "segfault", "variable"},
	{"coffee", "espresso", "caffeine", "latte", "barista", "grinder", "beans", "mug"},
	{"taxes", "receipts", "accountant", "deduction", "refund", "audit", "invoice", "deadline"},
	{"kitten", "litter", "whiskers", "purring", "scratching", "catnip", "meowing", "hairball"},
	{"chess", "bishop", "checkmate", "opening", "gambit", "rook", "endgame", "tournament"},
	{"airport", "luggage", "boarding", "delayed", "passport", "layover", "gate", "turbulence"},
	{"diet", "salad", "calories", "cheat", "pizza", "broccoli", "protein", "snacking"},
	{"wedding", "bride", "bouquet", "vows", "reception", "tuxedo", "honeymoon", "cake"},
}

// words of a topic, starting at i, n of them.
func words(topic, i, n int) string {
	w := topics[topic]
	var out []string
	for k := 0; k < n; k++ {
		out = append(out, w[(i+k)%len(w)])
	}
	return strings.Join(out, " ")
}

// An import of 120 cases in 12 topics, then 36 new posts: at least 2 of
// their 3 examples come from the post's own topic for at least 75 % of
// them, and posts on no topic get none.
func TestExamplesComeFromTheSameTopic(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	var cases []store.ImportedCase
	topicOf := map[string]int{}
	for tp := range topics {
		for i := 0; i < 10; i++ {
			mention := fmt.Sprintf("Honestly my %s and the %s, then %s again today", topics[tp][i%8], topics[tp][(i+3)%8], topics[tp][(i+5)%8])
			reply := fmt.Sprintf("Reply %d on %s: the %s is a sin of its own kind, number %d.", i, topics[tp][0], topics[tp][(i+1)%8], tp*10+i)
			cases = append(cases, store.ImportedCase{Platform: "x", Mention: mention, Reply: reply})
			topicOf[reply] = tp
		}
	}
	if n, err := st.ImportCases(ctx, cases); err != nil || n != 120 {
		t.Fatalf("import: %d, %v", n, err)
	}
	sh := &shaper.Shaper{Store: st, Persona: "devil"}
	set := settings.DefaultLearning()
	good := 0
	for tp := range topics {
		for i := 0; i < 3; i++ {
			text := fmt.Sprintf("Why is the %s always about %s, asks my %s", words(tp, i*2, 1), words(tp, i*2+1, 1), words(tp, i*2+4, 1))
			got, err := sh.Shape(ctx, post.Post{ID: int64(1000 + tp*3 + i), Platform: "x", OriginalPostText: text, AuthorUsername: "someone"}, set)
			if err != nil {
				t.Fatal(err)
			}
			same := 0
			for _, e := range got.Examples {
				if topicOf[e.Reply] == tp {
					same++
				}
			}
			if same >= 2 {
				good++
			}
			if len(got.Examples) != len(got.Learned.Cases) {
				t.Fatalf("%d examples named by %d cases", len(got.Examples), len(got.Learned.Cases))
			}
		}
	}
	t.Logf("%d of 36 posts got at least 2 of 3 examples from their own topic", good)
	if good*100 < 36*75 {
		t.Fatalf("%d of 36 posts got 2 of 3 examples from their topic; want at least 27", good)
	}
	for i, text := range []string{
		"Quarterly spreadsheet reconciliation meeting moved to Thursday",
		"The lighthouse keeper painted the fence blue",
		"Parliament votes on the fisheries quota tomorrow",
	} {
		got, err := sh.Shape(ctx, post.Post{ID: int64(2000 + i), Platform: "x", OriginalPostText: text, AuthorUsername: "someone"}, set)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Examples) != 0 {
			t.Fatalf("%q got %d examples, want none: %+v", text, len(got.Examples), got.Examples)
		}
	}
}

// After an edit, the lesson it teaches reaches a similar post's prompt,
// with the edit as an example; a post unlike it gets neither; a disabled
// lesson reaches no prompt; learning off gives nothing.
func TestShapeAfterAnEdit(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	id, _, err := st.UpsertFound(ctx, post.Post{Platform: "x", Source: post.SourceMention, OriginalPostID: "a1", ConversationID: "ca",
		OriginalPostText: "My sourdough starter collapsed in the oven again", AuthorUsername: "baker", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveDraft(ctx, id, store.Draft{Response: "Your sourdough starter collapsed? Hell's ovens weep with you, mortal baker! 🔥🔥", Category: "gluttony"}); err != nil {
		t.Fatal(err)
	}
	final := "Hell's ovens weep with you."
	if _, err := st.ApproveWith(ctx, id, store.Approval{Edited: &final, By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	sh := &shaper.Shaper{Store: st, Persona: "devil", Distiller: offline.New("devil")}
	if n, err := sh.Distil(ctx); err != nil || n != 1 {
		t.Fatalf("Distil = %d, %v", n, err)
	}
	set := settings.DefaultLearning()
	similar := post.Post{ID: 99, Platform: "x", OriginalPostText: "The sourdough starter collapsed, oven too hot?", AuthorUsername: "other"}
	got, err := sh.Shape(ctx, similar, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Examples) != 1 || got.Examples[0].Reply != final || len(got.Lessons) != 1 || got.Lessons[0].Text != offline.LessonNoEmoji {
		t.Fatalf("similar post: %+v", got)
	}
	unlike := post.Post{ID: 98, Platform: "x", OriginalPostText: "Parliament votes on the fisheries quota", AuthorUsername: "other"}
	if got, err := sh.Shape(ctx, unlike, set); err != nil || len(got.Examples)+len(got.Lessons) != 0 {
		t.Fatalf("unlike post: %+v, %v", got, err)
	}
	if got, err := sh.Shape(ctx, similar, settings.Learning{Enabled: false, Examples: 3, Lessons: 5}); err != nil || len(got.Examples)+len(got.Lessons) != 0 {
		t.Fatalf("learning off: %+v, %v", got, err)
	}
	lessons, err := st.Lessons(ctx)
	if err != nil || len(lessons) != 1 || lessons[0].Kind != learning.KindEdit || lessons[0].UsedCount != 1 {
		t.Fatalf("lessons = %+v, %v", lessons, err)
	}
	off := false
	if _, err := st.UpdateLesson(ctx, lessons[0].ID, nil, &off); err != nil {
		t.Fatal(err)
	}
	if got, err := sh.Shape(ctx, similar, set); err != nil || len(got.Lessons) != 0 || len(got.Examples) != 1 {
		t.Fatalf("disabled lesson: %+v, %v", got, err)
	}
	if err := st.BlockAuthor(ctx, "x", "baker", "", "opted out", id); err != nil {
		t.Fatal(err)
	}
	if got, err := sh.Shape(ctx, similar, set); err != nil || len(got.Examples) != 0 {
		t.Fatalf("after the opt-out: %+v, %v", got, err)
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

// With the provider's embeddings (the real client against the OpenAI
// stand-in), a case whose post means what the new post says in other
// words is re-ranked above one that shares more of its words; without
// them, or when the provider fails (a warning in the log), the text's
// similarity ranks them.
func TestEmbeddingsRerankExamples(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	const (
		lexicalReply  = "Charon rows on, oar or no oar."
		semanticReply = "Even hell's coffee demons need a holiday."
	)
	if _, err := st.ImportCases(ctx, []store.ImportedCase{
		{Platform: "x", Mention: "This morning my rowing boat broke an oar near the obsidian docks; the harbour master will fix ropes, sails and lanterns before nightfall",
			Reply: lexicalReply},
		{Platform: "x", Mention: "When the coffee machine stopped, a demon could fix it", Reply: semanticReply},
	}); err != nil {
		t.Fatal(err)
	}
	p := post.Post{ID: 7, Platform: "x", OriginalPostText: "my espresso machine broke this morning, who can fix it", AuthorUsername: "someone"}
	set := settings.DefaultLearning()
	replies := func(s shaper.Shaping) []string {
		var out []string
		for _, e := range s.Examples {
			out = append(out, e.Reply)
		}
		return out
	}

	lexical, err := (&shaper.Shaper{Store: st, Persona: "devil"}).Shape(ctx, p, set)
	if err != nil {
		t.Fatal(err)
	}
	if got := replies(lexical); len(got) == 0 || got[0] != lexicalReply {
		t.Fatalf("by text: %q, want the rowing boat's first", got)
	}

	s := openaitest.New(openaitest.Config{Concepts: concepts})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	emb, err := embeddings.New(embeddings.Config{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	ranked, err := (&shaper.Shaper{Store: st, Persona: "devil", Embedder: emb}).Shape(ctx, p, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("by text %q; with embeddings %q", replies(lexical), replies(ranked))
	if got := replies(ranked); len(got) == 0 || got[0] != semanticReply {
		t.Fatalf("with embeddings: %q, want the coffee machine's first", got)
	}
	if reqs := s.Embeddings(); len(reqs) != 1 || len(reqs[0].Input) != 3 || reqs[0].Input[0] != p.OriginalPostText {
		t.Fatalf("embeddings asked %+v, want one request: the post, then each candidate's post", reqs)
	}

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[`) // cut short: garbage
	}))
	t.Cleanup(failing.Close)
	broken, err := embeddings.New(embeddings.Config{BaseURL: failing.URL + "/v1", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	fallback, err := (&shaper.Shaper{Store: st, Persona: "devil", Embedder: broken,
		Log: slog.New(slog.NewTextHandler(&logged, nil))}).Shape(ctx, p, set)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(replies(fallback), "|") != strings.Join(replies(lexical), "|") {
		t.Fatalf("after a failure: %q, want the ranking by text %q", replies(fallback), replies(lexical))
	}
	if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), "examples ranked by text alone") ||
		!strings.Contains(logged.String(), "not an embeddings list") {
		t.Fatalf("log %q, want a warning naming the failure", logged.String())
	}
}
