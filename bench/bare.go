package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// bareAnswer is one answer of the web tier as it was sent: its headers and
// its body, which the bare server answers byte for byte.
type bareAnswer struct {
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// Bare is the ceiling process (`bench -bare FILE`): a bare net/http server,
// no router and no middleware, on a free loopback port, answering each
// request URI of the JSON map in FILE with its recorded headers and body.
// It writes its address as one line on out, then serves until stdin closes.
func Bare(file string, stdin io.Reader, out io.Writer) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("bench: bare: %w", err)
	}
	var answers map[string]bareAnswer
	if err := json.Unmarshal(b, &answers); err != nil {
		return fmt.Errorf("bench: bare: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bench: bare: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		for k, v := range a.Header {
			h[k] = v
		}
		_, _ = w.Write(a.Body)
	})}
	if _, err := fmt.Fprintln(out, l.Addr().String()); err != nil {
		return fmt.Errorf("bench: bare: %w", err)
	}
	go func() {
		// Whatever ends the read (EOF or an error) ends the server.
		_, _ = io.Copy(io.Discard, stdin)
		_ = srv.Close()
	}()
	if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
		return fmt.Errorf("bench: bare: %w", err)
	}
	return nil
}

// bareProcess is a running ceiling process.
type bareProcess struct {
	cmd   *exec.Cmd
	stdin io.Closer
	base  string
}

// startBare records the web tier's answer to each path and starts the
// ceiling process answering the same bytes (less the Date header, which
// net/http writes itself, and the hop-by-hop Connection) in a process of its own, as the web binary runs.
func startBare(w *webProcess, paths []string, dir string) (*bareProcess, error) {
	answers := map[string]bareAnswer{}
	for _, p := range paths {
		resp, err := w.client.Get(w.base + p)
		if err != nil {
			return nil, fmt.Errorf("bench: record %s: %w", p, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("bench: record %s: status %d: %w", p, resp.StatusCode, err)
		}
		resp.Header.Del("Date")
		resp.Header.Del("Connection")
		answers[p] = bareAnswer{Header: resp.Header, Body: body}
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, fmt.Errorf("bench: record: %w", err)
	}
	file := dir + "/bare-answers.json"
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return nil, fmt.Errorf("bench: record: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: bare: %w", err)
	}
	cmd := exec.Command(self, "-bare", file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: bare: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: bare: %w", err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: bare: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = stdin.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("bench: bare address: %w", err)
	}
	return &bareProcess{cmd: cmd, stdin: stdin, base: "http://" + strings.TrimSpace(line)}, nil
}

// stop ends the ceiling process.
func (b *bareProcess) stop() {
	_ = b.stdin.Close()
	_ = b.cmd.Wait()
}
