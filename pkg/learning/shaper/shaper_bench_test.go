package shaper_test

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

	"infernal/pkg/learning/shaper"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store/storetest"
)

// BenchmarkRetrieval measures what learning adds to each draft: the
// similar cases and the lessons of one post (Shape: the candidates' query,
// the ranking, the lessons, the use counts), with 100,000 cases and 1,000
// lessons (LEARNING_CASES and LEARNING_LESSONS change them). Each
// iteration is one post, its words drawn from the cases' vocabulary as
// theirs were; p95-ms is the 95th percentile of the iterations. Target:
// p95 at most 20 ms.
func BenchmarkRetrieval(b *testing.B) {
	cases, lessons := envInt(b, "LEARNING_CASES", 100_000), envInt(b, "LEARNING_LESSONS", 1_000)
	st := storetest.New(b)
	ctx := context.Background()
	if err := storetest.GenerateLearning(ctx, st.Pool(), cases, lessons); err != nil {
		b.Fatal(err)
	}
	sh := &shaper.Shaper{Store: st, Persona: "devil"}
	set := settings.DefaultLearning()
	r := rand.New(rand.NewPCG(7, 11))
	post := func() post.Post {
		words := make([]string, 10)
		for i := range words {
			words[i] = storetest.Word(1 + int(math.Pow(r.Float64(), 2)*storetest.VocabularySize))
		}
		return post.Post{ID: 1, Platform: "x", AuthorUsername: "someone", OriginalPostText: strings.Join(words, " ")}
	}
	var took []time.Duration
	examples := 0
	for b.Loop() {
		p := post()
		start := time.Now()
		got, err := sh.Shape(ctx, p, set)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		examples += len(got.Examples)
	}
	slices.Sort(took)
	p95 := took[(len(took)*95+99)/100-1]
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(examples)/float64(len(took)), "examples/op")
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
