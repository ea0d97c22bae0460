// Package logbuf holds log lines in memory and writes them to their
// destination from a goroutine of its own, so that a request that logs a
// line never waits for a write to a file or a pipe. Lines are written in
// batches, at least every Interval and whenever FlushAt bytes are waiting,
// and all of them on Close. Memory is bounded: when Limit bytes wait, a
// Write waits up to Wait for room, then drops its line and counts it; the
// count is written as a line of its own with the next batch, so no line is
// lost silently.
package logbuf

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// DefaultInterval is how often waiting lines are written when Options.Interval is zero.
const DefaultInterval = 100 * time.Millisecond

// DefaultFlushAt is how many waiting bytes start a write before the
// interval ends when Options.FlushAt is zero.
const DefaultFlushAt = 64 << 10

// DefaultLimit is the most bytes held waiting when Options.Limit is zero.
const DefaultLimit = 4 << 20

// DefaultWait is how long a Write waits for room when Options.Wait is zero.
const DefaultWait = 50 * time.Millisecond

// Options tunes a Writer; zero values take the defaults.
type Options struct {
	// Interval is the longest a line waits before it is written.
	Interval time.Duration
	// FlushAt is how many waiting bytes start a write at once.
	FlushAt int
	// Limit is the most bytes held waiting; a line longer than Limit is
	// still taken when nothing else waits.
	Limit int
	// Wait is how long a Write waits for room when Limit bytes wait,
	// before it drops its line.
	Wait time.Duration
	// Now tells the time of the line reporting drops; nil means time.Now.
	Now func() time.Time
}

// Writer is an io.Writer that buffers whole lines (one per Write, as a
// slog handler writes them) and writes them to its destination in the
// background. It is safe for concurrent use; the lines of one goroutine
// keep their order.
type Writer struct {
	out      io.Writer
	interval time.Duration
	flushAt  int
	limit    int
	wait     time.Duration
	now      func() time.Time

	// flushing is held while a batch is written, so batches keep their order.
	flushing sync.Mutex

	mu sync.Mutex
	// buf holds the waiting lines; spare is the buffer last written, reused.
	buf, spare []byte
	// dropped counts the lines dropped since the last report.
	dropped int
	// room is closed, and replaced, whenever waiting lines are taken to be written.
	room   chan struct{}
	closed bool
	// err is the first error of the destination.
	err error

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

// New returns a Writer writing to out, and starts its goroutine; Close
// stops it.
func New(out io.Writer, opts Options) *Writer {
	w := &Writer{
		out: out, interval: opts.Interval, flushAt: opts.FlushAt, limit: opts.Limit, wait: opts.Wait, now: opts.Now,
		room: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	if w.interval <= 0 {
		w.interval = DefaultInterval
	}
	if w.flushAt <= 0 {
		w.flushAt = DefaultFlushAt
	}
	if w.limit <= 0 {
		w.limit = DefaultLimit
	}
	w.flushAt = min(w.flushAt, w.limit)
	if w.wait <= 0 {
		w.wait = DefaultWait
	}
	if w.now == nil {
		w.now = time.Now
	}
	go w.run()
	return w
}

// Write takes one line to be written later. It waits only when Limit bytes
// already wait, and then at most Wait, after which the line is dropped
// and counted. After Close, lines are written at once. It never fails:
// the destination's errors are reported by Close.
func (w *Writer) Write(p []byte) (int, error) {
	var deadline *time.Timer
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	w.mu.Lock()
	for {
		if w.closed {
			// No goroutine writes any more: the line goes out at once,
			// after those still waiting.
			w.buf = append(w.buf, p...)
			w.mu.Unlock()
			w.Flush()
			return len(p), nil
		}
		if len(w.buf) == 0 || len(w.buf)+len(p) <= w.limit {
			w.buf = append(w.buf, p...)
			if len(w.buf) >= w.flushAt {
				select {
				case w.kick <- struct{}{}:
				default:
				}
			}
			w.mu.Unlock()
			return len(p), nil
		}
		if deadline == nil {
			deadline = time.NewTimer(w.wait)
		}
		room := w.room
		w.mu.Unlock()
		select {
		case w.kick <- struct{}{}:
		default:
		}
		select {
		case <-room:
			w.mu.Lock()
		case <-deadline.C:
			w.mu.Lock()
			w.dropped++
			w.mu.Unlock()
			return len(p), nil
		}
	}
}

// Dropped returns how many lines were dropped since the last report was written.
func (w *Writer) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Flush writes every waiting line now.
func (w *Writer) Flush() {
	w.flushing.Lock()
	defer w.flushing.Unlock()
	w.mu.Lock()
	batch, dropped := w.buf, w.dropped
	w.buf, w.spare, w.dropped = w.spare[:0], nil, 0
	close(w.room)
	w.room = make(chan struct{})
	w.mu.Unlock()
	lost := bytes.Count(batch, []byte{'\n'}) + dropped
	if dropped > 0 {
		batch = w.appendDropReport(batch, dropped)
	}
	if len(batch) > 0 {
		w.writeOut(batch, lost)
	}
	w.mu.Lock()
	if w.spare == nil {
		w.spare = batch[:0]
	}
	w.mu.Unlock()
}

// writeOut writes b to the destination; called with w.flushing held. A
// failed write counts the lines it carried, lost, as dropped.
func (w *Writer) writeOut(b []byte, lost int) {
	if _, err := w.out.Write(b); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = fmt.Errorf("logbuf: write: %w", err)
		}
		w.dropped += max(lost, 1)
		w.mu.Unlock()
	}
}

// appendDropReport appends the JSON line that reports n dropped lines.
func (w *Writer) appendDropReport(b []byte, n int) []byte {
	b = append(b, `{"time":"`...)
	b = w.now().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"WARN","msg":"log lines dropped: the log's destination was too slow or failed","dropped":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "}\n"...)
}

// run writes the waiting lines every interval, and sooner when FlushAt
// bytes wait, until Close.
func (w *Writer) run() {
	defer close(w.done)
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		case <-w.kick:
		}
		w.Flush()
	}
}

// Close writes every waiting line, and the count of any dropped, and stops
// the goroutine; lines written after it go straight to the destination.
// It returns the first error the destination gave, if any.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.Err()
	}
	w.closed = true
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	w.Flush()
	return w.Err()
}

// Err returns the first error the destination gave, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
