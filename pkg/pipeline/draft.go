package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Drafter writes the persona's responses.
type Drafter struct {
	Store  *store.Store
	Writer writer.Writer
	Log    *slog.Logger
	// Persona is the persona's handle, without the @.
	Persona string
	// Budget holds drafts back at a model spending ceiling; nil for none.
	Budget *Budget
}

// DraftPost writes the response of a post in drafting and makes it pending.
// A refusal, or a writer still failing at the last attempt, leaves the post
// failed with the reason, visible to the administrator.
func (d *Drafter) DraftPost(ctx context.Context, t *asynq.Task) error {
	id, err := tasks.DecodePost(t)
	if err != nil {
		return err
	}
	p, err := d.Store.Post(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("draft %d: %w: %w", id, err, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if p.Status != post.StatusDrafting {
		return nil
	}
	why, err := d.Budget.modelBlocked(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		// It stays drafting; reconcile queues it again once the budget allows.
		d.Log.InfoContext(ctx, "draft deferred: budget", "post_id", id, "reason", why)
		return nil
	}
	req := writer.Request{Kind: writer.KindReply, Persona: d.Persona, PostText: p.OriginalPostText, Author: p.AuthorUsername}
	if p.IsProfile() {
		req = writer.Request{Kind: writer.KindProfile, Persona: d.Persona}
	}
	draft, err := writer.Compose(ctx, d.Writer, req)
	if err != nil {
		// A busy model is waited for (IsFailure), never failed for.
		if errors.Is(err, writer.ErrRefused) || (lastAttempt(ctx) && !errors.Is(err, writer.ErrBusy)) {
			if ferr := d.Store.FailDraft(ctx, id, err.Error()); ferr != nil && !errors.Is(ferr, store.ErrConflict) {
				return ferr
			}
			d.Log.WarnContext(ctx, "draft failed", "post_id", id, "error", err)
			return nil
		}
		return err
	}
	err = d.Store.SaveDraft(ctx, id, store.Draft{
		Response: post.StorableText(draft.Text), Category: draft.Category,
		Temperature: draft.Temperature, PresencePenalty: draft.PresencePenalty, FrequencyPenalty: draft.FrequencyPenalty,
	})
	if errors.Is(err, store.ErrConflict) {
		// Another delivery of the task got there first.
		return nil
	}
	return err
}

// IsFailure tells the worker's server which errors count against a task's
// retries: a draft waiting for a rate-limited or overloaded model
// (writer.ErrBusy) is retried without using up its attempts, so a burst
// drains however long the model makes it wait, and no post is failed for
// the model's being busy; nor does a send the send caps hold (SendHeld),
// however long the caps hold it. The worker passes it as
// tasks.ServerConfig.IsFailure.
func IsFailure(err error) bool {
	var held *SendHeld
	return !errors.Is(err, writer.ErrBusy) && !errors.As(err, &held)
}
