package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// Several replicas starting at once on an empty database all come up, and
// the schema is applied once.
func TestConcurrentStartsMigrateOnce(t *testing.T) {
	t.Parallel()
	url := storetest.NewEmptyDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	stores := make([]*store.Store, 4)
	errs := make([]error, 4)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = store.Open(ctx, url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	if _, err := stores[0].AdminStats(ctx); err != nil {
		t.Errorf("schema not usable: %v", err)
	}
}

func TestOpenRefusesBadURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		url  string
	}{
		{name: "garbage", url: "::not a url::"},
		{name: "unknown database", url: strings.Replace(storetest.NewEmptyDatabase(t), "?", "_missing?", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := store.Open(ctx, tt.url)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if store.IsUnavailable(err) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Open waited for a server that answered: %v", err)
			}
		})
	}
}
