package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// BeginSend is the mark that makes a send at most once: of many deliveries
// of the same send at once, exactly one finds no earlier mark, and every
// other reports the mark it found. A post that is not approved, or none,
// is refused.
func TestBeginSendMarksOnce(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "1", post.SourceMention, "burn")
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
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
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	var ids []int64
	for _, n := range []string{"1", "2", "3"} {
		id := pending(t, s, n, post.SourceMention, "burn "+n)
		ids = append(ids, id)
	}
	// Approved out of id order: the list follows the approvals.
	for _, id := range []int64{ids[2], ids[0], ids[1]} {
		if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
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
			q, err := s.ListQueued(ctx, tt.page, 1, guard.SendCaps{})
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
	if _, err := s.ListQueued(ctx, 0, 1, guard.SendCaps{}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("page 0: %v, want ErrInvalid", err)
	}
}

// Started at once, more first sends than the caps allow start exactly as
// many as the caps allow: the ones with room start in one round trip, the
// others read the queue under the same lock; every start is counted in
// send_days, and a retry of a started send is not asked about.
func TestBeginSendWithinCapsAtOnce(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	caps := guard.SendCaps{PerWindow: 5, PerDay: 5}
	var ids []int64
	for i := range 8 {
		id := pending(t, s, fmt.Sprintf("cap-%d", i), post.SourceMention, "burn")
		if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	errHeld := errors.New("held")
	allow := func(q store.SendQueue) error {
		if _, ok := guard.SendTurn(q.Sent, q.Ahead, q.Now, caps); !ok {
			return errHeld
		}
		return nil
	}
	var wg sync.WaitGroup
	results := make(chan error, len(ids))
	for _, id := range ids {
		wg.Go(func() {
			_, started, err := s.BeginSendWithin(ctx, id, caps, allow)
			if err == nil && started != nil {
				err = errors.New("a first send reported an earlier start")
			}
			results <- err
		})
	}
	wg.Wait()
	close(results)
	startedN, held := 0, 0
	for err := range results {
		switch {
		case err == nil:
			startedN++
		case errors.Is(err, errHeld):
			held++
		default:
			t.Error(err)
		}
	}
	if startedN != 5 || held != 3 {
		t.Errorf("%d started and %d held, want 5 and 3", startedN, held)
	}
	counts, err := s.SendCounts(ctx)
	if err != nil || counts.Last24h != 5 {
		t.Errorf("SendCounts = %+v, %v; want 5 in the last 24 hours", counts, err)
	}
	var days int64
	if err := s.Pool().QueryRow(ctx, `SELECT coalesce(sum(sends), 0) FROM send_days`).Scan(&days); err != nil || days != 5 {
		t.Errorf("send_days counts %d sends (%v), want 5", days, err)
	}
	for _, id := range ids {
		p, err := s.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.SendStartedAt == nil {
			continue
		}
		// A retry: the caps are full, yet it goes on, reporting its start.
		if _, started, err := s.BeginSendWithin(ctx, id, caps, allow); err != nil || started == nil {
			t.Errorf("retry of %d: started %v, %v; want its earlier start", id, started, err)
		}
	}

	tests := []struct {
		name string
		id   int64
		want error
	}{
		{name: "not approved", id: pending(t, s, "cap-pending", post.SourceMention, "wait"), want: store.ErrConflict},
		{name: "no such post", id: 999999, want: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.BeginSendWithin(ctx, tt.id, guard.SendCaps{PerWindow: 1000, PerDay: 1000}, allow); !errors.Is(err, tt.want) {
				t.Errorf("BeginSendWithin = %v, want %v", err, tt.want)
			}
		})
	}
}

// Each platform has its own send caps: the queue a post meets counts the
// sends and the approvals ahead of its own platform only.
func TestSendQueueIsPerPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	approved := func(platform, id string) int64 {
		t.Helper()
		p := found(id, post.SourceMention)
		p.Platform = platform
		rowID, _, err := s.UpsertFound(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveDraft(ctx, rowID, store.Draft{Response: "burn " + id, Category: "wrath"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApproveWith(ctx, rowID, store.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
		return rowID
	}
	// On x: one sent, one waiting; on bluesky: nothing before.
	sentX := approved("x", "1")
	if _, _, err := s.BeginSend(ctx, sentX); err != nil {
		t.Fatal(err)
	}
	approved("x", "2")
	tests := []struct {
		name      string
		platform  string
		wantSent  int
		wantAhead int
	}{
		{name: "x counts its own send and approval", platform: "x", wantSent: 1, wantAhead: 1},
		{name: "bluesky counts none of x's", platform: "bluesky", wantSent: 0, wantAhead: 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := approved(tt.platform, fmt.Sprint(10+i))
			q, err := s.SendQueueOf(ctx, id, guard.SendCaps{PerDay: 5, PerWindow: 5, Window: 3 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Sent) != tt.wantSent || q.Ahead != tt.wantAhead {
				t.Errorf("SendQueueOf(%s) = %d sent, %d ahead; want %d, %d", tt.platform, len(q.Sent), q.Ahead, tt.wantSent, tt.wantAhead)
			}
		})
	}
}
