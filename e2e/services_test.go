package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDevPostgresIsDurable starts PostgreSQL through scripts/services.sh as
// `make dev` does (durable, the default) and as `make test` does
// (throwaway), and asks each server whether it syncs to disk: only the
// throwaway one may run with fsync off, since `make dev` keeps real data.
func TestDevPostgresIsDurable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed")
	}
	tests := []struct {
		name      string
		mode      string
		wantFsync string
		wantSync  string
	}{
		{name: "make dev", mode: "", wantFsync: "on", wantSync: "on"},
		{name: "make test", mode: "throwaway", wantFsync: "off", wantSync: "off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Not t.TempDir: its parents are private to this user, and PostgreSQL
			// runs as the postgres user when the tests run as root.
			dir, err := os.MkdirTemp("", "infernal-services-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := os.RemoveAll(dir); err != nil {
					t.Errorf("remove %s: %v", dir, err)
				}
			})
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			script := `set -e
. scripts/services.sh
port=$(free_port)
start_postgres "$1/pg" "$port" $2
trap 'stop_postgres "$1/pg"' EXIT
psql -X -At "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable" -c 'SHOW fsync' -c 'SHOW synchronous_commit'`
			cmd := exec.Command("bash", "-c", script, "services", dir, tt.mode)
			cmd.Dir = ".."
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("start_postgres %s: %v\n%s", tt.mode, err, out)
			}
			lines := strings.Fields(string(out))
			if len(lines) < 2 {
				t.Fatalf("psql printed %q, want two settings", out)
			}
			got := lines[len(lines)-2:]
			if got[0] != tt.wantFsync || got[1] != tt.wantSync {
				t.Errorf("fsync=%s synchronous_commit=%s, want %s and %s", got[0], got[1], tt.wantFsync, tt.wantSync)
			}
		})
	}
	t.Run("unknown mode is refused", func(t *testing.T) {
		cmd := exec.Command("bash", "-c", `. scripts/services.sh; start_postgres /nonexistent/pg 1 bogus`)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "unknown mode") {
			t.Errorf("start_postgres with mode bogus: %v %s, want a refusal naming the mode", err, out)
		}
	})
}
