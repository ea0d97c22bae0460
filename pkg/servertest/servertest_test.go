package servertest

import (
	"runtime"
	"testing"
)

// recorder stands in for a test, to see whether URL skips or fails it; like
// a real test, it stops the goroutine on either.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; runtime.Goexit() }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

func TestURL(t *testing.T) {
	tests := []struct {
		name        string
		value       string
		require     string
		want        string
		wantSkipped bool
		wantFailed  bool
	}{
		{name: "named", value: "redis://127.0.0.1:6379/0", want: "redis://127.0.0.1:6379/0"},
		{name: "named while required", value: "redis://x/0", require: "1", want: "redis://x/0"},
		{name: "missing skips", wantSkipped: true},
		{name: "missing fails when required", require: "1", wantFailed: true},
		{name: "only 1 requires", require: "yes", wantSkipped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SERVERTEST_PROBE_URL", tt.value)
			t.Setenv(RequireEnv, tt.require)
			r := &recorder{TB: t}
			var got string
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = URL(r, "SERVERTEST_PROBE_URL", "a probe server")
			}()
			<-done
			if got != tt.want || r.skipped != tt.wantSkipped || r.failed != tt.wantFailed {
				t.Errorf("URL = %q, skipped %v, failed %v; want %q, %v, %v", got, r.skipped, r.failed, tt.want, tt.wantSkipped, tt.wantFailed)
			}
		})
	}
}
