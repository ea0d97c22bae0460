package logbuf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/logbuf"
)

// sink is a destination that records what it is given; it can be made to
// fail, or to block until released.
type sink struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	// fail makes the next fail writes fail.
	fail int
	// gate, when not nil, blocks every write until it is closed.
	gate chan struct{}
	// entered is signalled when a write starts, if not nil.
	entered chan struct{}
}

func (s *sink) Write(p []byte) (int, error) {
	if s.entered != nil {
		select {
		case s.entered <- struct{}{}:
		default:
		}
	}
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.fail > 0 {
		s.fail--
		return 0, errors.New("disk full")
	}
	return s.buf.Write(p)
}

func (s *sink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSuffix(s.buf.String(), "\n"), "\n")
}

func (s *sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// Every line written by concurrent goroutines arrives once Close returns,
// and the lines of each goroutine keep their order, whatever the batch
// sizes and the bound on memory.
func TestLinesAllArriveInOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       logbuf.Options
		goroutines int
		lines      int
	}{
		{name: "defaults, one writer", goroutines: 1, lines: 2000},
		{name: "defaults, concurrent writers", goroutines: 16, lines: 500},
		{name: "small batches, concurrent writers", opts: logbuf.Options{FlushAt: 64, Interval: time.Millisecond}, goroutines: 8, lines: 500},
		{name: "tight bound, concurrent writers wait for room", opts: logbuf.Options{FlushAt: 128, Limit: 256, Wait: time.Minute}, goroutines: 8, lines: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &sink{}
			w := logbuf.New(out, tt.opts)
			var wg sync.WaitGroup
			for g := range tt.goroutines {
				wg.Go(func() {
					for i := range tt.lines {
						if _, err := fmt.Fprintf(w, "{\"g\":%d,\"i\":%d}\n", g, i); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			next := make([]int, tt.goroutines)
			lines := out.lines()
			for _, l := range lines {
				var v struct{ G, I int }
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				if v.I != next[v.G] {
					t.Fatalf("goroutine %d: line %d came after line %d", v.G, v.I, next[v.G]-1)
				}
				next[v.G]++
			}
			if want := tt.goroutines * tt.lines; len(lines) != want {
				t.Errorf("%d lines arrived, want %d", len(lines), want)
			}
			if d := w.Dropped(); d != 0 {
				t.Errorf("%d lines dropped", d)
			}
		})
	}
}

// Lines are written on the timer, without waiting for Close.
func TestFlushedOnTheTimer(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, logbuf.Options{Interval: time.Millisecond})
	defer w.Close()
	if _, err := w.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	for out.String() != "one\n" {
		time.Sleep(time.Millisecond)
	}
}

// A destination that hangs never holds a Write beyond the bound: once the
// buffer is full, lines are dropped and counted, and the count arrives as
// a line of its own once the destination recovers.
func TestStuckDestinationDropsAndCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		extra int
	}{
		{name: "one line over the bound", extra: 1},
		{name: "many lines over the bound", extra: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := make(chan struct{})
			out := &sink{gate: gate, entered: make(chan struct{}, 1)}
			// Every line is 10 bytes; the buffer holds 3 of them.
			w := logbuf.New(out, logbuf.Options{FlushAt: 10, Limit: 30, Wait: time.Millisecond, Interval: time.Hour})
			line := []byte("012345678\n")
			// The first line starts a write, which hangs.
			if _, err := w.Write(line); err != nil {
				t.Fatal(err)
			}
			<-out.entered
			for range 3 {
				if _, err := w.Write(line); err != nil {
					t.Fatal(err)
				}
			}
			// The buffer is full and its destination stuck: these must
			// come back (a hang would time the test out), dropped.
			for range tt.extra {
				if _, err := w.Write(line); err != nil {
					t.Fatal(err)
				}
			}
			if d := w.Dropped(); d != tt.extra {
				t.Errorf("dropped %d, want %d", d, tt.extra)
			}
			close(gate)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			lines := out.lines()
			if len(lines) != 5 {
				t.Fatalf("%d lines arrived, want the 4 kept and the report: %q", len(lines), lines)
			}
			var report struct {
				Level   string
				Dropped int
			}
			if err := json.Unmarshal([]byte(lines[4]), &report); err != nil || report.Level != "WARN" || report.Dropped != tt.extra {
				t.Errorf("report %q (%v), want WARN with dropped %d", lines[4], err, tt.extra)
			}
		})
	}
}

// A failing destination neither blocks nor fails a Write; the lines it lost
// are counted, reported once it works again, and its error is Close's.
func TestFailingDestination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fail       int
		wantReport bool
		wantErr    bool
	}{
		{name: "fails once, then works", fail: 1, wantReport: true, wantErr: true},
		{name: "never fails", fail: 0, wantReport: false, wantErr: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &sink{fail: tt.fail}
			w := logbuf.New(out, logbuf.Options{Interval: time.Hour})
			for range 3 {
				if _, err := w.Write([]byte("lost\n")); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			if _, err := w.Write([]byte("kept\n")); err != nil {
				t.Fatal(err)
			}
			err := w.Close()
			if (err != nil) != tt.wantErr {
				t.Errorf("Close: %v, want an error %v", err, tt.wantErr)
			}
			got := out.String()
			if tt.wantReport {
				if !strings.HasPrefix(got, "kept\n") || !strings.Contains(got, `"dropped":3}`) {
					t.Errorf("got %q, want the kept line and a report of 3 dropped", got)
				}
			} else if got != "lost\nlost\nlost\nkept\n" {
				t.Errorf("got %q", got)
			}
		})
	}
}

// After Close, a line goes straight to the destination, after those that
// were waiting.
func TestWriteAfterClose(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, logbuf.Options{Interval: time.Hour})
	if _, err := w.Write([]byte("before\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "before\nafter\n" {
		t.Errorf("got %q", got)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// BenchmarkWrite is the cost of one access-log line to a request: it
// never waits for the destination.
func BenchmarkWrite(b *testing.B) {
	w := logbuf.New(&sink{}, logbuf.Options{})
	defer w.Close()
	line := []byte(`{"time":"2026-11-25T15:40:09.482599869Z","level":"INFO","msg":"http","component":"web","method":"GET","path":"/api/public/logs","status":200,"bytes":3417,"duration_ms":0,"request_id":"be487546c12c0e3d"}` + "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = w.Write(line)
		}
	})
}
