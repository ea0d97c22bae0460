// Package storetest gives each test a fresh, migrated PostgreSQL database of
// its own on the server named by TEST_DATABASE_URL, and drops it afterwards.
// It never touches a database it did not create.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"infernal/pkg/servertest"
	"infernal/pkg/store"
)

// New returns a store on a fresh database, closed and dropped when t ends.
func New(t testing.TB) *store.Store {
	t.Helper()
	dbURL := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewDatabase creates a fresh migrated database and returns its URL; it is
// dropped when t ends, after every cleanup registered later has run.
func NewDatabase(t testing.TB) string {
	t.Helper()
	server := serverURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	template, err := ensureTemplate(ctx, server)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return newDatabase(t, server, template)
}

// NewEmptyDatabase creates a fresh database with no schema at all, for
// tests of the migrations themselves, and returns its URL.
func NewEmptyDatabase(t testing.TB) string {
	t.Helper()
	return newDatabase(t, serverURL(t), "template0")
}

// serverURL is TEST_DATABASE_URL; without it the test is skipped, or failed
// under the test command (see servertest).
func serverURL(t testing.TB) string {
	t.Helper()
	return servertest.URL(t, "TEST_DATABASE_URL", "PostgreSQL")
}

func newDatabase(t testing.TB, server, template string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := "infernal_test_" + randomHex(6)
	if err := withConn(ctx, server, func(c *pgx.Conn) error { return createFrom(ctx, c, name, template) }); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := withConn(ctx, server, func(c *pgx.Conn) error {
			_, err := c.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
			return err
		})
		if err != nil {
			t.Errorf("storetest: drop %s: %v", name, err)
		}
	})
	return databaseURL(server, name)
}

// ensureTemplate makes, once per schema, a migrated database to copy from.
// An advisory lock keeps test packages running in parallel from racing.
func ensureTemplate(ctx context.Context, server string) (string, error) {
	digest, err := store.SchemaDigest()
	if err != nil {
		return "", err
	}
	name := "infernal_template_" + digest
	err = withConn(ctx, server, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, `SELECT pg_advisory_lock(66600666)`); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		var exists bool
		if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
			return fmt.Errorf("look for template: %w", err)
		}
		if exists {
			return nil
		}
		building := name + "_building"
		if _, err := c.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{building}.Sanitize()); err != nil {
			return fmt.Errorf("drop half-built template: %w", err)
		}
		if _, err := c.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{building}.Sanitize()); err != nil {
			return fmt.Errorf("create template: %w", err)
		}
		s, err := store.Open(ctx, databaseURL(server, building))
		if err != nil {
			return fmt.Errorf("migrate template: %w", err)
		}
		s.Close()
		// Renamed only once complete, so a crash never leaves a half-migrated template behind.
		if _, err := c.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{building}.Sanitize()+` RENAME TO `+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("finish template: %w", err)
		}
		return nil
	})
	return name, err
}

func createFrom(ctx context.Context, c *pgx.Conn, name, template string) error {
	create := `CREATE DATABASE ` + pgx.Identifier{name}.Sanitize() + ` TEMPLATE ` + pgx.Identifier{template}.Sanitize()
	if major(c) >= 15 {
		// PostgreSQL 15's default strategy writes every block of the copy
		// to the WAL: twice the time of copying the files of a database as
		// small as a test's, and the copies of every test of the run queue
		// behind one another.
		create += ` STRATEGY FILE_COPY`
	}
	for attempt := 0; ; attempt++ {
		_, err := c.Exec(ctx, create)
		var pgErr *pgconn.PgError
		// 55006: another session is copying the template right now; wait a moment and copy again.
		if errors.As(err, &pgErr) && pgErr.Code == "55006" && attempt < 50 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
		return nil
	}
}

// major is the server's major version, 0 when it does not say.
func major(c *pgx.Conn) int {
	v := c.PgConn().ParameterStatus("server_version")
	n, err := strconv.Atoi(strings.SplitN(strings.SplitN(v, ".", 2)[0], " ", 2)[0])
	if err != nil {
		return 0
	}
	return n
}

func withConn(ctx context.Context, server string, fn func(*pgx.Conn) error) error {
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect to TEST_DATABASE_URL: %w", err)
	}
	defer c.Close(context.Background())
	return fn(c)
}

// databaseURL is server's URL pointing at database name instead.
func databaseURL(server, name string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("storetest: random: %v", err))
	}
	return hex.EncodeToString(b)
}

// UncapReplies raises the reply caps of st's settings to a million per
// conversation and per author a day, and the drafts an hour to a million,
// for tests that draft many posts of
// one author or conversation (a burst of 1,500 mentions of one mortal)
// and test something other than the caps. The value is stored as it is:
// it is above the 1,000 the settings API accepts.
func UncapReplies(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	s, err := st.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Caps.PerConversation, s.Caps.PerAuthorPerDay = 1_000_000, 1_000_000
	// A burst drafts past the hour's draft cap, which is not what it tests.
	s.Caps.DraftsPerHour = 1_000_000
	if err := st.PutSettings(ctx, s); err != nil {
		t.Fatal(err)
	}
}
