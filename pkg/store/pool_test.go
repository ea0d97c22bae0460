package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// openWith opens a second Store on the database of a fresh test store.
func openWith(t *testing.T, opts ...store.Option) *store.Store {
	t.Helper()
	url := storetest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(ctx, url, opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// With every connection of the public pool taken, the public reads wait
// (and give up at their deadline) while the admin's reads and the health
// check go on through the connections kept for them.
func TestPublicPoolCannotStarveTheRest(t *testing.T) {
	t.Parallel()
	s := openWith(t, store.WithMaxConns(4), store.WithPublicPool(2))
	ctx := context.Background()
	if got := s.PublicPool().Config().MaxConns; got != 2 {
		t.Fatalf("public pool holds %d connections, want 2", got)
	}
	for range 2 {
		c, err := s.PublicPool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, _, err := s.Logs(short, 0, 15); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Logs with the public pool taken = %v, want it to wait until its deadline", err)
	}
	admin, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Ping(admin); err != nil {
		t.Errorf("Ping with the public pool taken: %v", err)
	}
	if _, err := s.AdminStats(admin); err != nil {
		t.Errorf("AdminStats with the public pool taken: %v", err)
	}
}

// A public pool as large as the whole allowance is refused.
func TestPublicPoolMustLeaveConnections(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(ctx, url, store.WithMaxConns(3), store.WithPublicPool(3))
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a public pool that takes every connection")
	}
}

// Every connection runs under the statement timeout, so PostgreSQL stops a
// statement nobody waits for any more.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	s := openWith(t, store.WithMaxConns(3), store.WithPublicPool(1), store.WithStatementTimeout(150*time.Millisecond))
	ctx := context.Background()
	var got string
	if err := s.Pool().QueryRow(ctx, `SHOW statement_timeout`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "150ms" {
		t.Errorf("statement_timeout = %q, want 150ms", got)
	}
	if err := s.PublicPool().QueryRow(ctx, `SHOW statement_timeout`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "150ms" {
		t.Errorf("public statement_timeout = %q, want 150ms", got)
	}
	_, err := s.Pool().Exec(ctx, `SELECT pg_sleep(2)`)
	if err == nil {
		t.Error("a 2 s statement ran to its end under a 150 ms statement_timeout")
	}
}
