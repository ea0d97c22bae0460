package api

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// requestContext is the context of one request: its id and its deadline.
// A deadline's timer is the costliest part of a context, so it is started
// only when something waits on Done or asks Err (a database call, a wait
// for a computation); an answer served from memory never does, and pays for
// none. Once started, it behaves as context.WithDeadline's context, which
// it then is underneath, and contexts made from it are cancelled with it
// without a goroutine of their own.
type requestContext struct {
	parent   context.Context
	id       string
	deadline time.Time

	once sync.Once
	// started is set once timed and cancel are.
	started atomic.Bool
	timed   context.Context
	cancel  context.CancelFunc
}

// newRequestContext returns the context of a request with id, due within
// d of now, and the function that releases it when the request ends.
func newRequestContext(parent context.Context, id string, d time.Duration) (*requestContext, func()) {
	c := &requestContext{parent: parent, id: id, deadline: time.Now().Add(d)}
	if pd, ok := parent.Deadline(); ok && pd.Before(c.deadline) {
		c.deadline = pd
	}
	return c, c.release
}

// start starts the deadline's timer, once.
func (c *requestContext) start() context.Context {
	c.once.Do(func() {
		c.timed, c.cancel = context.WithDeadline(c.parent, c.deadline)
		c.started.Store(true)
	})
	return c.timed
}

// release stops the timer, if it was started.
func (c *requestContext) release() {
	if c.started.Load() {
		c.cancel()
	}
}

// Deadline returns the request's deadline.
func (c *requestContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Done starts the deadline's timer and returns its channel.
func (c *requestContext) Done() <-chan struct{} { return c.start().Done() }

// Err starts the deadline's timer, so that Err, Done and context.Cause
// agree, and returns its error.
func (c *requestContext) Err() error { return c.start().Err() }

// Value returns the request's id, or the value of key in the parent (in
// the started context, once started, which context's own lookups rely on).
func (c *requestContext) Value(key any) any {
	if key == requestIDKey {
		return c.id
	}
	if c.started.Load() {
		return c.timed.Value(key)
	}
	return c.parent.Value(key)
}

// String names the context, as context's own do.
func (c *requestContext) String() string { return "api.requestContext" }
