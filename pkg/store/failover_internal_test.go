package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// The retry rules of a failover: which errors prove a statement never ran,
// which mean its connection died under it, and which are answers.
func TestFailoverErrors(t *testing.T) {
	t.Parallel()
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	tests := []struct {
		name         string
		err          error
		wantNeverRan bool
		wantConnLost bool
		wantDown     bool
	}{
		{name: "nil"},
		{name: "could not connect", err: &pgconn.ConnectError{}, wantNeverRan: true, wantDown: true},
		{name: "read only", err: fmt.Errorf("store: x: %w", &pgconn.PgError{Code: "25006"}), wantNeverRan: true, wantDown: true},
		{name: "starting up", err: &pgconn.PgError{Code: "57P03"}, wantNeverRan: true, wantDown: true},
		{name: "admin shutdown", err: &pgconn.PgError{Code: "57P01"}, wantConnLost: true, wantDown: true},
		{name: "crash shutdown", err: &pgconn.PgError{Code: "57P02"}, wantConnLost: true, wantDown: true},
		{name: "connection failure", err: &pgconn.PgError{Code: "08006"}, wantConnLost: true, wantDown: true},
		{name: "connection reset", err: fmt.Errorf("store: x: %w", reset), wantConnLost: true, wantDown: true},
		{name: "unexpected eof", err: io.ErrUnexpectedEOF, wantConnLost: true, wantDown: true},
		{name: "unique violation", err: &pgconn.PgError{Code: "23505"}},
		{name: "statement timeout", err: &pgconn.PgError{Code: "57014"}},
		{name: "cancelled", err: context.Canceled},
		{name: "domain error", err: ErrConflict},
		{name: "plain error", err: errors.New("boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := neverRan(tt.err); got != tt.wantNeverRan {
				t.Errorf("neverRan = %v, want %v", got, tt.wantNeverRan)
			}
			if got := connLost(tt.err); got != tt.wantConnLost {
				t.Errorf("connLost = %v, want %v", got, tt.wantConnLost)
			}
			if got := IsUnavailable(tt.err); got != tt.wantDown {
				t.Errorf("IsUnavailable = %v, want %v", got, tt.wantDown)
			}
		})
	}
}

// Only a statement that reads is run again after its connection died.
func TestIsRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sql  string
		want bool
	}{
		{name: "select", sql: "SELECT " + postColumns + " FROM posts WHERE id = $1", want: true},
		{name: "indented with", sql: "\n\t\tWITH x AS (SELECT 1) SELECT * FROM x", want: true},
		{name: "lowercase", sql: "select count(*) from posts", want: true},
		{name: "column named like a verb", sql: "SELECT updated_at, inserted FROM posts", want: true},
		{name: "insert", sql: "INSERT INTO posts (x) VALUES ($1)"},
		{name: "update", sql: "UPDATE posts SET x = 1"},
		{name: "data-changing with", sql: "WITH gone AS (DELETE FROM ops_pause RETURNING *) SELECT * FROM gone"},
		{name: "row lock", sql: "SELECT * FROM posts WHERE id = $1 FOR UPDATE"},
		{name: "advisory lock", sql: "SELECT pg_advisory_xact_lock($1)"},
		{name: "sequence", sql: "SELECT nextval('x')"},
		{name: "empty", sql: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isRead(tt.sql); got != tt.want {
				t.Errorf("isRead(%q) = %v, want %v", tt.sql, got, tt.want)
			}
		})
	}
}
