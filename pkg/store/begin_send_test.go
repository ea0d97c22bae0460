package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// BeginSend is the mark that makes a send at most once: of many deliveries
// of the same send at once, exactly one finds no earlier mark, and every
// other reports the mark it found. A post that is not approved, or none,
// is refused.
func TestBeginSendMarksOnce(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "burn")
	if _, err := s.Approve(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	const deliveries = 8
	var wg sync.WaitGroup
	first := make(chan struct{}, deliveries)
	errs := make(chan error, deliveries)
	for range deliveries {
		wg.Go(func() {
			p, started, err := s.BeginSend(ctx, id)
			switch {
			case err != nil:
				errs <- err
			case p.ID != id || p.Status != post.StatusApproved:
				errs <- errors.New("BeginSend returned another post or status")
			case started == nil:
				first <- struct{}{}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(first) != 1 {
		t.Fatalf("%d deliveries found no earlier mark, want exactly 1", len(first))
	}

	tests := []struct {
		name string
		id   int64
		want error
	}{
		{name: "not approved", id: pending(t, s, "2", post.SourceMention, "wait"), want: store.ErrConflict},
		{name: "no such post", id: 999999, want: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.BeginSend(ctx, tt.id); !errors.Is(err, tt.want) {
				t.Errorf("BeginSend = %v, want %v", err, tt.want)
			}
		})
	}
}
