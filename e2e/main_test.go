package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// commandNames are the product's binaries the tests run.
var commandNames = []string{"web", "worker", "scheduler"}

// builtCommands holds the binaries of one test process: each command is
// built once, on first use, and shared by every test that runs it.
type builtCommands struct {
	dir    string
	builds map[string]func() (string, error)
}

// binaries is set by TestMain before any test runs and only read after.
var binaries *builtCommands

// TestMain gives the package's tests one folder of binaries, removed at the end.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "infernal-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: binaries folder: %v\n", err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: remove %s: %v\n", dir, err)
		}
	}()
	b := &builtCommands{dir: dir, builds: map[string]func() (string, error){}}
	for _, name := range commandNames {
		b.builds[name] = sync.OnceValues(func() (string, error) {
			out := filepath.Join(dir, name)
			cmd := exec.Command("go", "build", "-o", out, "infernal/cmd/"+name)
			if b, err := cmd.CombinedOutput(); err != nil {
				return "", fmt.Errorf("go build %s: %w\n%s", name, err, b)
			}
			return out, nil
		})
	}
	binaries = b
	return m.Run()
}

// buildBinary returns the path of one of the commands, built on the first
// call of the test process; tests that run at once share the one build.
func buildBinary(t *testing.T, name string) string {
	t.Helper()
	build, ok := binaries.builds[name]
	if !ok {
		t.Fatalf("no command %q", name)
	}
	path, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return path
}
