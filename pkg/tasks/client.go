package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"infernal/pkg/redisurl"
)

// Client enqueues the pipeline's tasks.
type Client struct {
	asynq     *asynq.Client
	inspector *asynq.Inspector
	redis     redis.UniversalClient
}

// NewClient connects to the Redis at redisURL (any form redisurl reads;
// behind Sentinel it follows the primary the sentinels name).
func NewClient(redisURL string) (*Client, error) {
	conn, err := redisurl.Parse(redisURL)
	if err != nil {
		return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
	}
	rc := conn.Client()
	return &Client{asynq: asynq.NewClientFromRedisClient(rc), inspector: asynq.NewInspectorFromRedisClient(rc), redis: rc}, nil
}

// Close releases the Redis connections.
func (c *Client) Close() error {
	return c.redis.Close()
}

// Ping checks that Redis answers.
func (c *Client) Ping(ctx context.Context) error {
	if err := c.redis.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("tasks: redis ping: %w", err)
	}
	return nil
}

// Inspector returns the asynq inspector on the same Redis.
func (c *Client) Inspector() *asynq.Inspector { return c.inspector }

// EnqueueDraft asks for post id, on platform, to be drafted. A draft task
// already queued or kept for the post is not doubled.
func (c *Client) EnqueueDraft(ctx context.Context, id int64, platform string) error {
	t, err := NewDraftTask(id, platform, QueueDefault)
	if err != nil {
		return err
	}
	return c.enqueueOnce(ctx, t)
}

// EnqueueDraftFirst asks for post id, a mention on platform, to be drafted
// ahead of every other draft (QueueHigh). A draft task already queued or
// kept for the post there is not doubled.
func (c *Client) EnqueueDraftFirst(ctx context.Context, id int64, platform string) error {
	t, err := NewDraftTask(id, platform, QueueHigh)
	if err != nil {
		return err
	}
	return c.enqueueOnce(ctx, t)
}

// EnqueueRegenerate asks for a new draft of post id, written to instruction.
func (c *Client) EnqueueRegenerate(ctx context.Context, id int64, instruction string) error {
	t, err := NewRegenerateTask(id, instruction)
	if err != nil {
		return err
	}
	if _, err := c.asynq.EnqueueContext(ctx, t); err != nil {
		return fmt.Errorf("tasks: enqueue %s: %w", t.Type(), err)
	}
	return nil
}

// EnqueuePreview asks a worker for a preview draft and returns the task's
// id, which PreviewResult reads its answer by.
func (c *Client) EnqueuePreview(ctx context.Context, p PreviewPayload) (string, error) {
	t, err := NewPreviewTask(p)
	if err != nil {
		return "", err
	}
	info, err := c.asynq.EnqueueContext(ctx, t)
	if err != nil {
		return "", fmt.Errorf("tasks: enqueue %s: %w", t.Type(), err)
	}
	return info.ID, nil
}

// PreviewResult reads the answer of preview task id: done is false while
// a worker has not finished it. A task the worker gave up on (archived)
// answers done with a result saying so.
func (c *Client) PreviewResult(ctx context.Context, id string) (PreviewResult, bool, error) {
	info, err := c.inspector.GetTaskInfo(QueueHigh, id)
	if err != nil {
		return PreviewResult{}, false, fmt.Errorf("tasks: inspect %s: %w", id, err)
	}
	switch info.State {
	case asynq.TaskStateCompleted:
		var r PreviewResult
		if err := json.Unmarshal(info.Result, &r); err != nil {
			return PreviewResult{}, false, fmt.Errorf("tasks: %s result: %w", id, err)
		}
		return r, true, nil
	case asynq.TaskStateArchived:
		return PreviewResult{Error: "the worker could not write the preview: " + info.LastErr}, true, nil
	}
	return PreviewResult{}, false, nil
}

// DropPreview deletes preview task id, nobody waiting for its answer any
// more, so that no model is paid for it; one a worker is already writing
// (or has written) is left to finish and expire.
func (c *Client) DropPreview(ctx context.Context, id string) error {
	err := c.inspector.DeleteTask(QueueHigh, id)
	if err != nil && !errors.Is(err, asynq.ErrTaskNotFound) && !errors.Is(err, asynq.ErrQueueNotFound) {
		info, ierr := c.inspector.GetTaskInfo(QueueHigh, id)
		if ierr == nil && (info.State == asynq.TaskStateActive || info.State == asynq.TaskStateCompleted) {
			return nil
		}
		return fmt.Errorf("tasks: drop %s: %w", id, err)
	}
	return nil
}

// EnqueueSend asks for the approved post id to be sent, once. A send task
// still kept from an earlier approval (completed after a refusal, or
// archived) is replaced, so approving a failed post again sends it at once.
func (c *Client) EnqueueSend(ctx context.Context, id int64) error {
	_, err := c.EnsureSend(ctx, id)
	return err
}

// EnsureSend queues post id's send task unless one is waiting or running,
// and reports whether it did. A send task kept archived or completed while
// the post is still approved is replaced; reconciliation calls it for
// approved posts whose task was lost.
func (c *Client) EnsureSend(ctx context.Context, id int64) (bool, error) {
	t, err := NewSendTask(id)
	if err != nil {
		return false, err
	}
	return c.requeue(QueueCritical, SendTaskID(id), func() error { return c.enqueueOnce(ctx, t) })
}

// EnsureDraft queues the draft task of post id, on platform, unless one is
// waiting or running, and reports whether it did. A draft task kept archived or completed while
// the post is still drafting is replaced; reconciliation calls it for drafts
// never written.
//
// A mention's draft task lives in QueueHigh: one still waiting or running
// there counts too. A draft queued again goes to QueueDefault.
func (c *Client) EnsureDraft(ctx context.Context, id int64, platform string) (bool, error) {
	info, err := c.inspector.GetTaskInfo(QueueHigh, DraftTaskID(id))
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
	case err != nil:
		return false, fmt.Errorf("tasks: inspect %s: %w", DraftTaskID(id), err)
	case info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted:
		return false, nil
	}
	t, err := NewDraftTask(id, platform, QueueDefault)
	if err != nil {
		return false, err
	}
	return c.requeue(QueueDefault, DraftTaskID(id), func() error { return c.enqueueOnce(ctx, t) })
}

// EnqueuePeriodic enqueues one run of a periodic task now, for the
// worker's first platform; a run already queued within its uniqueness
// window is not doubled.
func (c *Client) EnqueuePeriodic(ctx context.Context, typ string) error {
	return c.EnqueuePeriodicOn(ctx, typ, "")
}

// EnqueuePeriodicOn enqueues one run of a periodic task now, for the
// platform named ("" for the worker's first); a run already queued within
// its uniqueness window is not doubled.
func (c *Client) EnqueuePeriodicOn(ctx context.Context, typ, platform string) error {
	t, err := newPeriodicTask(typ, platform, periodic[typ].unique)
	if err != nil {
		return err
	}
	return c.enqueueUnique(ctx, t)
}

// enqueueUnique enqueues a task made with asynq.Unique; one already held
// within its uniqueness window counts as done.
func (c *Client) enqueueUnique(ctx context.Context, t *asynq.Task) error {
	if _, err := c.asynq.EnqueueContext(ctx, t); err != nil && !errors.Is(err, asynq.ErrDuplicateTask) {
		return fmt.Errorf("tasks: enqueue %s: %w", t.Type(), err)
	}
	return nil
}

// enqueueOnce enqueues a task with a TaskID; one that already exists counts as done.
func (c *Client) enqueueOnce(ctx context.Context, t *asynq.Task) error {
	if _, err := c.asynq.EnqueueContext(ctx, t); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("tasks: enqueue %s: %w", t.Type(), err)
	}
	return nil
}

// requeue enqueues a task again, through enqueue, when the task with that id
// is gone from queue, or archived or completed while its work is still
// undone. It reports whether it did; a task still waiting or running is left.
func (c *Client) requeue(queue, taskID string, enqueue func() error) (bool, error) {
	info, err := c.inspector.GetTaskInfo(queue, taskID)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
	case err != nil:
		return false, fmt.Errorf("tasks: inspect %s: %w", taskID, err)
	case info.State == asynq.TaskStateArchived || info.State == asynq.TaskStateCompleted:
		if err := c.inspector.DeleteTask(queue, taskID); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
			return false, fmt.Errorf("tasks: delete %s: %w", taskID, err)
		}
	default:
		return false, nil
	}
	if err := enqueue(); err != nil {
		return false, err
	}
	return true, nil
}
