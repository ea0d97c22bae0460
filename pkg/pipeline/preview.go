package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"

	"infernal/pkg/post"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Preview writes one draft answering the preview's post text, with the
// persona it carries (unsaved) or the stored one, and writes it as the
// task's result (tasks.PreviewResult) for the web tier waiting on it. It
// makes no post; the model's tokens are metered like a draft's (the
// writer's Usage). A draft the budget holds back or the writer cannot
// write is answered as the result's error, never retried.
func (d *Drafter) Preview(ctx context.Context, t *asynq.Task) error {
	payload, err := tasks.DecodePreview(t)
	if err != nil {
		return err
	}
	rw := t.ResultWriter()
	if rw == nil {
		return fmt.Errorf("%s: no result writer: %w", t.Type(), asynq.SkipRetry)
	}
	result, err := d.preview(ctx, payload)
	if err != nil {
		return err
	}
	b, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("%s: result: %w", t.Type(), err)
	}
	if _, err := rw.Write(b); err != nil {
		return fmt.Errorf("%s: result: %w", t.Type(), err)
	}
	return nil
}

// preview writes the draft of payload; what stops it is the result's Error.
func (d *Drafter) preview(ctx context.Context, payload tasks.PreviewPayload) (tasks.PreviewResult, error) {
	why, err := d.Budget.ModelBlocked(ctx)
	if err != nil {
		return tasks.PreviewResult{}, err
	}
	if why != "" {
		return tasks.PreviewResult{Error: "the model budget holds drafts back: " + why}, nil
	}
	req := writer.Request{Kind: writer.KindReply, Persona: d.Handle, PostText: payload.PostText}
	if payload.Persona != nil {
		// The web tier checked it; a task enqueued by other hands is checked again.
		if req.Character, err = payload.Persona.Normalize(); err != nil {
			return tasks.PreviewResult{Error: "the preview's persona is not valid: " + err.Error()}, nil
		}
	} else if req.Character, err = d.character(ctx); err != nil {
		return tasks.PreviewResult{}, err
	}
	draft, err := writer.Compose(ctx, d.Writer, req)
	if err != nil {
		d.Log.WarnContext(ctx, "preview not written", "error", err, "refused", errors.Is(err, writer.ErrRefused))
		return tasks.PreviewResult{Error: "the writer wrote no draft: " + err.Error()}, nil
	}
	return tasks.PreviewResult{Response: post.StorableText(draft.Text), Category: string(draft.Category)}, nil
}
