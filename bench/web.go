package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// benchPassword is the administrator's password in the throwaway database.
const benchPassword = "bench-password-666"

// webProcess is the running web binary.
type webProcess struct {
	cmd *exec.Cmd
	// dir holds the web binary's log and the ceiling's answers; removed by stop.
	dir    string
	base   string
	token  string
	client *http.Client
}

// startWeb runs the web binary on a free loopback port and signs in.
func startWeb(ctx context.Context, cfg Config, dbURL string) (*webProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("bench: free port: %w", err)
	}
	dir, err := os.MkdirTemp("", "infernal-bench-web")
	if err != nil {
		return nil, fmt.Errorf("bench: web log: %w", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "web.log"))
	if err != nil {
		return nil, fmt.Errorf("bench: web log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, cfg.WebBin)
	// The shipped defaults (LOG_LEVEL=info: a JSON line per request), the
	// log going to a file, as a deployment's stderr does.
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_URL="+cfg.RedisURL, "HTTP_ADDR="+addr,
		"STATIC_DIR="+cfg.StaticDir, "ADMIN_PASSWORD="+benchPassword, "ADMIN_PASSWORD_FILE=/dev/null", "LOG_LEVEL=info")
	cmd.Stdout, cmd.Stderr = cfg.Log, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start web: %w", err)
	}
	w := &webProcess{cmd: cmd, dir: dir, base: "http://" + addr, client: &http.Client{
		Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, _, _, err := w.get("/readyz")
		if err == nil && status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			w.stop()
			return nil, fmt.Errorf("bench: web not ready: %d: %w", status, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	body, _ := json.Marshal(map[string]string{"username": "admin", "password": benchPassword})
	status, resp, err := w.send("POST", "/api/auth/login", body)
	if err != nil || status != http.StatusOK {
		w.stop()
		return nil, fmt.Errorf("bench: login: %d %s: %w", status, resp, err)
	}
	var out struct{ Token string }
	if err := json.Unmarshal(resp, &out); err != nil {
		w.stop()
		return nil, fmt.Errorf("bench: login answer: %w", err)
	}
	w.token = out.Token
	return w, nil
}

// stop ends the web process.
func (w *webProcess) stop() {
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
	_ = os.RemoveAll(w.dir)
}

// get fetches path as the administrator and says how long it took.
func (w *webProcess) get(path string) (int, []byte, time.Duration, error) {
	req, err := http.NewRequest("GET", w.base+path, nil)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("bench: %w", err)
	}
	if w.token != "" && strings.HasPrefix(path, "/api/posts") {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("bench: GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("bench: GET %s: %w", path, err)
	}
	return resp.StatusCode, b, took, nil
}

// send posts a JSON body as the administrator.
func (w *webProcess) send(method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, w.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("bench: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("bench: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("bench: %s %s: %w", method, path, err)
	}
	return resp.StatusCode, b, nil
}

// peakRSS reads the peak resident set of process pid (VmHWM).
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("bench: peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bench: peak RSS: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("bench: peak RSS: no VmHWM for %d", pid)
}
