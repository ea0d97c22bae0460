package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

func TestSendPost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fail       error
		wantStatus post.Status
		wantErr    bool
		wantError  string
	}{
		{name: "posted", wantStatus: post.StatusPosted},
		{name: "duplicate content fails the row at once", fail: &platform.Error{Status: 403, Title: "Forbidden", Detail: "You are not allowed to create a Tweet with duplicate content."},
			wantStatus: post.StatusFailed, wantError: "duplicate content"},
		{name: "server error is retried", fail: &platform.Error{Status: 503, Title: "Service Unavailable"}, wantStatus: post.StatusApproved, wantErr: true, wantError: "503"},
		{name: "rate limit is retried", fail: &platform.Error{Status: 429, Title: "Too Many Requests", RetryAt: time.Now().Add(time.Minute)}, wantStatus: post.StatusApproved, wantErr: true, wantError: "429"},
		{name: "network error is retried", fail: &platform.Error{Err: errors.New("connection reset")}, wantStatus: post.StatusApproved, wantErr: true, wantError: "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			id := e.approvedMention(t)
			if tt.fail != nil {
				e.plat.err.Store(&tt.fail)
			}
			err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id}))
			if (err != nil) != tt.wantErr {
				t.Fatalf("SendPost error %v, want error %v", err, tt.wantErr)
			}
			p, _ := e.store.Post(ctx, id)
			if p.Status != tt.wantStatus || !strings.Contains(p.Error, tt.wantError) {
				t.Fatalf("post is %s with error %q, want %s with %q", p.Status, p.Error, tt.wantStatus, tt.wantError)
			}
			if tt.wantErr {
				// The fault clears; the retry posts exactly once.
				e.plat.err.Store(nil)
				if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
					t.Fatal(err)
				}
				if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPosted {
					t.Fatalf("after the retry the post is %s", p.Status)
				}
			}
			// A redelivered send of a posted row posts nothing more.
			if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			want := int32(0)
			if tt.wantStatus != post.StatusFailed {
				want = 1
			}
			if got := e.plat.published.Load(); got != want {
				t.Errorf("published %d times, want %d", got, want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(90 * time.Second)
	tests := []struct {
		name string
		err  error
		min  time.Duration
		max  time.Duration
	}{
		{name: "rate limit waits for the reset", err: &platform.Error{Status: 429, RetryAt: reset}, min: 85 * time.Second, max: 95 * time.Second},
		{name: "rate limit in the past", err: &platform.Error{Status: 429, RetryAt: time.Now().Add(-time.Minute)}, min: time.Second, max: time.Second},
		{name: "a dead worker's task resumes at once", err: asynq.ErrLeaseExpired, min: time.Second, max: time.Second},
		{name: "other errors back off", err: errors.New("boom"), min: 0, max: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pipeline.RetryDelay(1, tt.err, asynq.NewTask("x", nil))
			if got < tt.min || got > tt.max {
				t.Errorf("RetryDelay = %s, want between %s and %s", got, tt.min, tt.max)
			}
		})
	}
}
