package e2e

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks/taskstest"
)

// freeAddr returns a loopback address no one listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// The health checks compose runs, `worker -healthcheck` and `scheduler
// -healthcheck`, fail before their process runs, pass while it runs, and fail
// again once it has stopped.
func TestHealthcheckFlags(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	st, err := store.Open(context.Background(), dbURL) // applies the migrations the worker needs
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	tests := []struct {
		name string
		env  []string
	}{
		{name: "worker", env: []string{"DATABASE_URL=" + dbURL, "METRICS_ADDR=" + freeAddr(t), "PLATFORM=sandbox", "WRITER=offline"}},
		{name: "scheduler", env: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bin := buildBinary(t, tt.name)
			env := append(os.Environ(), append(tt.env, "REDIS_URL="+taskstest.RedisURL(t), "LOG_LEVEL=warn")...)
			check := func() error {
				cmd := exec.Command(bin, "-healthcheck")
				cmd.Env = env
				return cmd.Run()
			}
			if err := check(); err == nil {
				t.Fatal("healthcheck passed before the process started")
			}
			var logs bytes.Buffer
			proc := exec.Command(bin)
			proc.Env, proc.Stdout, proc.Stderr = env, &logs, &logs
			if err := proc.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- proc.Wait() }()
			deadline := time.Now().Add(30 * time.Second)
			for {
				err := check()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = proc.Process.Kill() // the test has failed; the process must not outlive it
					t.Fatalf("healthcheck never passed while %s ran: %v\n%s", tt.name, err, logs.String())
				}
				time.Sleep(200 * time.Millisecond)
			}
			if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("%s exit after SIGTERM: %v\n%s", tt.name, err, logs.String())
				}
			case <-time.After(40 * time.Second):
				_ = proc.Process.Kill() // the test has failed; the process must not outlive it
				t.Fatalf("%s did not stop", tt.name)
			}
			if err := check(); err == nil {
				t.Errorf("healthcheck passed after %s stopped", tt.name)
			}
		})
	}
}
