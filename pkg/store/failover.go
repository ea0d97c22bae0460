package store

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A PostgreSQL failover (the primary lost, a standby promoted, DATABASE_URL
// naming both with target_session_attrs=read-write) looks from here like a
// few seconds of errors: connections refused or reset, sessions terminated
// (admin_shutdown), a server that now refuses writes (read_only_sql_transaction),
// a standby not yet accepting connections. The pool below waits them out
// where doing the work again cannot do it twice:
//
//   - a statement the server never ran (nothing was sent, no connection
//     could be made, the server refused it as read-only or starting) is
//     retried, whatever it is;
//   - a statement whose connection died while it ran is retried only when
//     it is a read, or when it is inside a transaction whose COMMIT was not
//     sent: the server rolls such a transaction back, so the whole
//     transaction runs again;
//   - an autocommit write, or a COMMIT, lost in flight may or may not have
//     happened: it is not retried here. Its error goes back to the caller,
//     and every caller is built for that: a pipeline task fails and is
//     retried (drafts are unique per post, a send is marked before the
//     platform call and checked on the platform after), an API request
//     answers 503 and the administrator tries again, which finds the
//     approval either done or not.
//
// Retries stop at the context's end or after failoverWait, whichever comes
// first; the error is then the last one, which the API maps to 503.

// failoverWait bounds how long one call waits out a failover. A promotion
// by a managed service takes tens of seconds; a request of the API has its
// own, shorter deadline in its context.
const failoverWait = 30 * time.Second

// Backoff between retries: short at first, since a refused connection to a
// dead host fails at once and the next host may already answer.
const (
	firstRetryDelay = 50 * time.Millisecond
	maxRetryDelay   = time.Second
)

// retryPool is the pgx pool every Store method uses, with the retries above.
type retryPool struct {
	*pgxpool.Pool
	// wait is failoverWait.
	wait time.Duration
	// retries counts the calls run again, for the tests.
	retries atomic.Int64
}

// Exec runs sql, retried as the comment at the top of this file says.
func (p *retryPool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	err := p.retry(ctx, forStatement(sql), func() error {
		var err error
		tag, err = p.Pool.Exec(ctx, sql, args...)
		return err
	})
	return tag, err
}

// Query runs sql, retried until it starts answering; an error while its
// rows are read is the caller's.
func (p *retryPool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	var rows pgx.Rows
	err := p.retry(ctx, forStatement(sql), func() error {
		var err error
		rows, err = p.Pool.Query(ctx, sql, args...)
		return err
	})
	return rows, err
}

// QueryRow runs sql when its row is scanned, retried like Exec.
func (p *retryPool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return retryRow{p: p, ctx: ctx, sql: sql, args: args}
}

// retryRow is QueryRow's row: the statement runs, and is retried, in Scan.
type retryRow struct {
	p    *retryPool
	ctx  context.Context
	sql  string
	args []any
}

// Scan implements pgx.Row.
func (r retryRow) Scan(dest ...any) error {
	return r.p.retry(r.ctx, forStatement(r.sql), func() error {
		return r.p.Pool.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
	})
}

// SendBatch sends b on a connection acquired with retries; the batch itself
// is not retried, since its statements may write.
func (p *retryPool) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	var conn *pgxpool.Conn
	err := p.retry(ctx, neverRan, func() error {
		var err error
		conn, err = p.Acquire(ctx)
		return err
	})
	if err != nil {
		// pgxpool's own batch, which tries once more and answers its error.
		return p.Pool.SendBatch(ctx, b)
	}
	return &connBatch{BatchResults: conn.SendBatch(ctx, b), conn: conn}
}

// connBatch releases its connection when closed, as pgxpool's own does.
type connBatch struct {
	pgx.BatchResults
	conn *pgxpool.Conn
}

// Close implements pgx.BatchResults.
func (b *connBatch) Close() error {
	defer b.conn.Release()
	return b.BatchResults.Close()
}

// inTx runs fn in a transaction of opts, committed when fn returns nil. The
// whole transaction runs again when it failed before its COMMIT was sent
// in a way a failover explains, so fn must do nothing but through tx, or
// do it again harmlessly.
func (p *retryPool) inTx(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	var committing bool
	again := func(err error) bool { return neverRan(err) || (!committing && connLost(err)) }
	return p.retry(ctx, again, func() error {
		committing = false
		tx, err := p.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			if rerr := tx.Rollback(ctx); rerr != nil && !errors.Is(rerr, pgx.ErrTxClosed) && !connLost(rerr) {
				return errors.Join(err, rerr)
			}
			return err
		}
		committing = true
		return tx.Commit(ctx)
	})
}

// retry runs op until it succeeds, fails in a way again does not accept,
// the context ends or the wait is over.
func (p *retryPool) retry(ctx context.Context, again func(error) bool, op func() error) error {
	deadline := time.Now().Add(p.wait)
	for delay := firstRetryDelay; ; delay = min(2*delay, maxRetryDelay) {
		err := op()
		if err == nil || !again(err) || ctx.Err() != nil || time.Now().Add(delay).After(deadline) {
			return err
		}
		p.retries.Add(1)
		if readOnly(err) {
			// The pool's connections lead to a server that no longer takes
			// writes (a demoted primary behind the same address): new ones
			// go through target_session_attrs again.
			p.Reset()
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// forStatement is the retry rule of one statement outside a transaction;
// whether sql only reads is asked only once it has failed.
func forStatement(sql string) func(error) bool {
	return func(err error) bool { return neverRan(err) || (connLost(err) && isRead(sql)) }
}

// SQLSTATEs of a failover (PostgreSQL's errcodes).
const (
	codeReadOnly         = "25006" // read_only_sql_transaction
	codeAdminShutdown    = "57P01"
	codeCrashShutdown    = "57P02"
	codeCannotConnectNow = "57P03"
)

// neverRan reports whether err proves the server did not run the statement.
func neverRan(err error) bool {
	if err == nil || pgconn.Timeout(err) || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	answered := errors.As(err, &pgErr)
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		// No connection: worth another try, unless a server refused it for
		// good (no such database, a wrong password).
		return !answered || pgErr.Code == codeCannotConnectNow || sessionEnded(pgErr.Code)
	}
	if answered {
		return pgErr.Code == codeReadOnly || pgErr.Code == codeCannotConnectNow
	}
	return pgconn.SafeToRetry(err)
}

// sessionEnded reports whether SQLSTATE code is the server ending the
// session: shut down, crashed, or the connection broken (class 08).
func sessionEnded(code string) bool {
	return code == codeAdminShutdown || code == codeCrashShutdown || strings.HasPrefix(code, "08")
}

// readOnly reports whether the server refused a write as read-only.
func readOnly(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == codeReadOnly
}

// connLost reports whether err is the connection dying under a statement:
// the session terminated by the server, or the connection reset or closed.
func connLost(err error) bool {
	if err == nil || pgconn.Timeout(err) || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return sessionEnded(pgErr.Code)
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// writes finds what makes a statement more than a read: a data-changing
// keyword, a row lock, or a function with effects.
var writes = regexp.MustCompile(`(?i)\b(insert|update|delete|merge|for\s+(no\s+key\s+)?update|for\s+(key\s+)?share|pg_advisory\w*|nextval|setval|pg_notify)\b`)

// leadingSelect finds a statement that starts as a query.
var leadingSelect = regexp.MustCompile(`(?i)^\s*(select|with)\b`)

// isRead reports whether sql only reads, so that running it twice is harmless.
func isRead(sql string) bool {
	return leadingSelect.MatchString(sql) && !writes.MatchString(sql)
}
