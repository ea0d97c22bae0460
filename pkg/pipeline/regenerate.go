package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Regenerate writes a new draft of a post under review, at the reviewer's
// request, to their instruction, in the current persona version, and has
// it judged (never skipped for its score: the reviewer asked for it). The draft goes through the same outbound
// check as every draft, and replaces the post's only while the post is
// still pending or failed; earlier drafts stay in its history.
func (d *Drafter) Regenerate(ctx context.Context, t *asynq.Task) error {
	payload, err := tasks.DecodeRegenerate(t)
	if err != nil {
		return err
	}
	id := payload.PostID
	p, set, err := d.Store.PostWithSettings(ctx, id, d.Settings)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("regenerate %d: %w: %w", id, err, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if !post.Regenerable(p.Status) {
		d.Log.InfoContext(ctx, "regenerate dropped: the post was judged meanwhile", "post_id", id, "status", p.Status)
		return nil
	}
	why, err := d.Budget.ModelBlocked(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		// The reviewer sees no new version and may ask again once the budget allows.
		d.Log.InfoContext(ctx, "regenerate dropped: budget", "post_id", id, "reason", why)
		return fmt.Errorf("regenerate %d: %s: %w", id, why, asynq.SkipRetry)
	}
	versions, err := d.Store.History(ctx, id)
	if err != nil {
		return err
	}
	// A regenerate reads nothing from the platform: the draft's context is stored.
	req, learned, err := d.request(ctx, p, set, d.storedContext())
	if err != nil {
		return err
	}
	req.CurrentDraft, req.Instruction, req.Variant = p.ProposedResponse, payload.Instruction, len(versions)
	draft, err := writer.Compose(ctx, d.Writer, req)
	if err != nil {
		if errors.Is(err, writer.ErrRefused) {
			// The draft under review stays; the reviewer sees no new version and may ask again.
			d.Log.WarnContext(ctx, "regenerate refused by the writer", "post_id", id, "error", err)
			return fmt.Errorf("regenerate %d: %w: %w", id, err, asynq.SkipRetry)
		}
		return err
	}
	// The draft's text is what is sent: on Mastodon with the @author prefix.
	text := post.ReplyText(p, post.StorableText(draft.Text))
	flags := guard.ReplyFlags(text, p.AuthorUsername, p.OriginalPostText, d.Handle)
	// A regenerated draft is judged too (unless flagged), but never skipped: the reviewer asked for it.
	_, err = d.Store.SaveRegenerated(ctx, id, store.Draft{
		Response: text, Category: draft.Category,
		Temperature: draft.Temperature, PresencePenalty: draft.PresencePenalty, FrequencyPenalty: draft.FrequencyPenalty,
		PersonaVersion: req.Character.Version, Review: d.review(ctx, id, req, text, flags),
		Learned: learned, MaxLength: d.MaxLength,
	}, payload.Instruction, guard.Strings(flags))
	if errors.Is(err, store.ErrConflict) {
		// Approved or rejected while the writer wrote: the verdict stands.
		return nil
	}
	return err
}
