package store_test

import (
	"context"
	"errors"
	"slices"
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

// The approvals waiting for their first send are listed in approval order,
// paged, with the send times of the last day and how many wait on the
// pages before; a send started takes its post off the list.
func TestListQueued(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	var ids []int64
	for _, n := range []string{"1", "2", "3"} {
		id := pending(t, s, n, post.SourceMention, "burn "+n)
		ids = append(ids, id)
	}
	// Approved out of id order: the list follows the approvals.
	for _, id := range []int64{ids[2], ids[0], ids[1]} {
		if _, err := s.Approve(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.BeginSend(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		page      int
		wantIDs   []int64
		wantAhead int
	}{
		{name: "first page", page: 1, wantIDs: []int64{ids[0]}, wantAhead: 0},
		{name: "second page", page: 2, wantIDs: []int64{ids[1]}, wantAhead: 1},
		{name: "past the end", page: 3, wantIDs: nil, wantAhead: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := s.ListQueued(ctx, tt.page, 1)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range q.Posts {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, tt.wantIDs) || q.Total != 2 || q.Queue.Ahead != tt.wantAhead || len(q.Queue.Sent) != 1 || q.Queue.Now.IsZero() {
				t.Errorf("ListQueued(%d) = %v total %d queue %+v; want %v total 2, %d ahead, 1 sent",
					tt.page, got, q.Total, q.Queue, tt.wantIDs, tt.wantAhead)
			}
		})
	}
	if _, err := s.ListQueued(ctx, 0, 1); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("page 0: %v, want ErrInvalid", err)
	}
}
