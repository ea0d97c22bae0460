package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// failoverStore opens a store on a fresh database, and a connection of the
// test's own to the same database, from which it plays the failover.
func failoverStore(t *testing.T) (*store.Store, *pgx.Conn, string) {
	t.Helper()
	dbURL := storetest.NewDatabase(t)
	ctx := context.Background()
	s, err := store.Open(ctx, dbURL, store.WithoutIdlePing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	admin, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return s, admin, strings.TrimPrefix(u.Path, "/")
}

// terminate ends every other session on the database, as a server going
// down does (admin_shutdown): the store's pooled connections are dead, and
// used again they still look alive (the store under test does not ping
// idle connections first).
func terminate(t *testing.T, admin *pgx.Conn) {
	t.Helper()
	var n int
	err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no session of the store to terminate")
	}
}

// A read and a whole transaction whose sessions were terminated under
// them run again on new connections; the transaction's work lands once.
func TestFailoverRetriesReadsAndTransactions(t *testing.T) {
	t.Parallel()
	s, admin, _ := failoverStore(t)
	ctx := context.Background()
	id := pending(t, s, "failover-1", post.SourceMention, "The pit remembers.")

	terminate(t, admin)
	before := s.Retries()
	p, err := s.Post(ctx, id)
	if err != nil || p.ID != id {
		t.Fatalf("Post after the sessions ended = %+v, %v; want the post", p.ID, err)
	}
	if s.Retries() == before {
		t.Error("the read did not meet a dead connection; the test proves nothing")
	}

	terminate(t, admin)
	before = s.Retries()
	edited := "The pit remembers, and it bills by the hour."
	p, err = s.ApproveWith(ctx, id, store.Approval{Edited: &edited, By: post.ByWeb})
	if err != nil || p.Status != post.StatusApproved || p.ProposedResponse != edited {
		t.Fatalf("Approve after the sessions ended = %s %q, %v; want approved with the edit", p.Status, p.ProposedResponse, err)
	}
	if s.Retries() == before {
		t.Error("the approval did not meet a dead connection; the test proves nothing")
	}
	history, err := s.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, v := range history {
		if v.Text == edited {
			edits++
		}
	}
	if edits != 1 {
		t.Errorf("the edit is in the history %d times, want once: %+v", edits, history)
	}
}

// A write outside a transaction whose session died under it may have
// happened: it is not run again, and its error says the database is
// unavailable (the API's 503), so the caller decides.
func TestFailoverLeavesAnAutocommitWriteToTheCaller(t *testing.T) {
	t.Parallel()
	s, admin, _ := failoverStore(t)
	ctx := context.Background()
	if err := s.SetCursor(ctx, "sandbox", "mentions", "1"); err != nil {
		t.Fatal(err)
	}
	terminate(t, admin)
	err := s.SetCursor(ctx, "sandbox", "mentions", "2")
	if err == nil {
		t.Fatal("SetCursor on a terminated session succeeded; want its error back")
	}
	if !store.IsUnavailable(err) {
		t.Errorf("SetCursor = %v, want an error IsUnavailable knows", err)
	}
	// The next call finds new connections.
	if err := s.SetCursor(ctx, "sandbox", "mentions", "3"); err != nil {
		t.Fatalf("SetCursor afterwards: %v", err)
	}
	if got, err := s.Cursor(ctx, "sandbox", "mentions"); err != nil || got != "3" {
		t.Errorf("Cursor = %q, %v; want 3", got, err)
	}
}

// A server that refuses writes (a demoted primary still answering) makes
// a write wait, on fresh connections, until a server takes it.
func TestFailoverWaitsOutAReadOnlyServer(t *testing.T) {
	t.Parallel()
	s, admin, db := failoverStore(t)
	ctx := context.Background()
	ident := pgx.Identifier{db}.Sanitize()
	if _, err := s.Cursor(ctx, "sandbox", "mentions"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `ALTER DATABASE `+ident+` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	terminate(t, admin)
	// A read opens a connection that is read-only from the start.
	if _, err := s.Cursor(ctx, "sandbox", "mentions"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// The standby is promoted: the database takes writes again.
		time.Sleep(300 * time.Millisecond)
		_, err := admin.Exec(context.Background(), `ALTER DATABASE `+ident+` RESET default_transaction_read_only`)
		done <- err
	}()
	before := s.Retries()
	if err := s.SetCursor(ctx, "sandbox", "mentions", "42"); err != nil {
		t.Fatalf("SetCursor while the server was read-only: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.Retries() == before {
		t.Error("the write was never refused; the test proves nothing")
	}
	if got, err := s.Cursor(ctx, "sandbox", "mentions"); err != nil || got != "42" {
		t.Errorf("Cursor = %q, %v; want 42", got, err)
	}
}
