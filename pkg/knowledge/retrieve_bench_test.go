package knowledge_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"infernal/pkg/knowledge"
	"infernal/pkg/store/storetest"
)

// BenchmarkRetrieval measures what the knowledge base adds to each draft:
// the facts of one post (Retrieve: the candidates' query and the ranking)
// among 200 documents of 1 MB (KNOWLEDGE_DOCS and KNOWLEDGE_DOC_BYTES
// change them). Each iteration is one post, its words drawn from the
// chunks' vocabulary as theirs were; p95-ms is the 95th percentile of the
// iterations. Target: p95 at most 20 ms.
func BenchmarkRetrieval(b *testing.B) {
	docs, size := envInt(b, "KNOWLEDGE_DOCS", knowledge.MaxDocuments), envInt(b, "KNOWLEDGE_DOC_BYTES", knowledge.MaxDocumentBytes)
	st := storetest.New(b)
	ctx := context.Background()
	if err := storetest.GenerateKnowledge(ctx, st.Pool(), docs, size); err != nil {
		b.Fatal(err)
	}
	ret := &knowledge.Retriever{Store: st}
	r := rand.New(rand.NewPCG(7, 11))
	query := func() string {
		words := make([]string, 10)
		for i := range words {
			words[i] = storetest.Word(1 + int(math.Pow(r.Float64(), 2)*storetest.VocabularySize))
		}
		return strings.Join(words, " ")
	}
	var took []time.Duration
	facts := 0
	for b.Loop() {
		q := query()
		start := time.Now()
		got, err := ret.Retrieve(ctx, q, knowledge.MaxChunks)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		facts += len(got)
	}
	slices.Sort(took)
	p95 := took[(len(took)*95+99)/100-1]
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(facts)/float64(len(took)), "facts/op")
}

// BenchmarkIndex measures an upload of 1 MB: cut into chunks and stored
// with its text-search and trigram indexes. Target: at most 5 s.
func BenchmarkIndex(b *testing.B) {
	st := storetest.New(b)
	ctx := context.Background()
	text := Document(knowledge.MaxDocumentBytes, 1)
	for b.Loop() {
		if _, err := st.AddDocument(ctx, "Bench", len(text), knowledge.Split(text)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := st.Pool().Exec(ctx, `DELETE FROM knowledge_documents`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
