package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

type otherKey struct{}

// A request's context behaves as context.WithDeadline's whether or not its
// timer was started: it ends at its deadline, with its parent and when the
// request is released, and so do contexts made from it.
func TestRequestContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    time.Duration
		// end ends the context some way, given its parent's cancel and its release.
		end     func(cancelParent, release func())
		wantErr error
		// viaChild waits on a context made from it rather than on it.
		viaChild bool
	}{
		{name: "deadline passes", d: time.Millisecond, end: func(func(), func()) {}, wantErr: context.DeadlineExceeded},
		{name: "deadline passes, seen by a child", d: time.Millisecond, end: func(func(), func()) {}, wantErr: context.DeadlineExceeded, viaChild: true},
		{name: "parent cancelled", d: time.Hour, end: func(cancel, _ func()) { cancel() }, wantErr: context.Canceled},
		{name: "parent cancelled, seen by a child", d: time.Hour, end: func(cancel, _ func()) { cancel() }, wantErr: context.Canceled, viaChild: true},
		{name: "request released", d: time.Hour, end: func(_, release func()) { release() }, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "other"))
			defer cancelParent()
			start := time.Now()
			ctx, release := newRequestContext(parent, "id-1", tt.d)
			defer release()
			if requestID(ctx) != "id-1" || ctx.Value(otherKey{}) != "other" {
				t.Fatalf("values %q %v", requestID(ctx), ctx.Value(otherKey{}))
			}
			if dl, ok := ctx.Deadline(); !ok || dl.Before(start.Add(tt.d)) {
				t.Fatalf("deadline %v %v, want %v after %v", dl, ok, tt.d, start)
			}
			if ctx.started.Load() {
				t.Fatal("the timer started before anything waited")
			}
			var waited context.Context = ctx
			if tt.viaChild {
				child, cancel := context.WithCancel(context.WithValue(ctx, otherKey{}, "child"))
				defer cancel()
				waited = child
			}
			// Started, not ended, unless its deadline is already gone.
			if err := waited.Err(); err != nil && tt.d >= time.Second {
				t.Fatalf("ended early: %v", err)
			}
			tt.end(cancelParent, release)
			<-waited.Done()
			if err := waited.Err(); !errors.Is(err, tt.wantErr) {
				t.Errorf("Err %v, want %v", err, tt.wantErr)
			}
			if cause := context.Cause(waited); !errors.Is(cause, tt.wantErr) {
				t.Errorf("Cause %v, want %v", cause, tt.wantErr)
			}
			if requestID(waited) != "id-1" {
				t.Errorf("id %q after start", requestID(waited))
			}
		})
	}
}

// A request whose context nobody waits on never starts a timer, and a
// parent's deadline earlier than the request's is kept.
func TestRequestContextLazyAndBounded(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx, release := newRequestContext(parent, "id", time.Hour)
	if got := requestID(context.WithoutCancel(context.WithValue(ctx, otherKey{}, 1))); got != "id" {
		t.Errorf("id %q", got)
	}
	pd, _ := parent.Deadline()
	if dl, _ := ctx.Deadline(); !dl.Equal(pd) {
		t.Errorf("deadline %v, want the parent's %v", dl, pd)
	}
	release()
	if ctx.started.Load() {
		t.Error("the timer started though nothing waited")
	}
}
