package bench

import (
	"context"
	"fmt"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// generateTarget is how long the full-size history may take to make.
const generateTarget = 3 * time.Minute

// generate migrates the database and fills it with the synthetic history.
func generate(ctx context.Context, dbURL string, posts, threads int, rep *report) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer st.Close()
	start := time.Now()
	if err := storetest.Generate(ctx, st.Pool(), posts, threads); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	took := time.Since(start)
	rep.add(Row{
		Figure: fmt.Sprintf("generate %d posts, %d log threads (SQL generate_series, with vacuum and analyze)", posts, threads),
		Value:  took.Round(100 * time.Millisecond).String(), Target: "< 3m0s at 1,000,000 posts",
		Verdict: verdict(took < generateTarget),
	})
	return nil
}
