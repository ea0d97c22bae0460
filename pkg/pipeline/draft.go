package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/settings"
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
	// Words keeps the normalised words of recent persona posts for the
	// near-duplicate guard; nil normalises them for every draft.
	Words *WordCache
}

// WordCache remembers the guard.Words of the persona's recent texts, so
// that each draft normalises only itself: a burst compares thousands of
// drafts with the same week of posts. It forgets everything when it holds
// more than its bound. Its zero value is not usable; call NewWordCache.
type WordCache struct {
	mu    sync.Mutex
	words map[string]guard.Words
	bound int
}

// NewWordCache returns a cache of at most bound texts' words.
func NewWordCache(bound int) *WordCache {
	return &WordCache{words: map[string]guard.Words{}, bound: bound}
}

// of returns the words of each text, from the cache when c is not nil.
func (c *WordCache) of(texts []string) []guard.Words {
	out := make([]guard.Words, len(texts))
	if c == nil {
		for i, t := range texts {
			out[i] = guard.ContentWords(t)
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.words) > c.bound {
		clear(c.words)
	}
	for i, t := range texts {
		w, ok := c.words[t]
		if !ok {
			w = guard.ContentWords(t)
			c.words[t] = w
		}
		out[i] = w
	}
	return out
}

// DraftPost writes the response of a post in drafting and makes it pending.
// A reply not yet guarded first goes through the guards, before any model
// call: one they stop is skipped with its reason. The draft gets the
// near-duplicate guard and the outbound check, whose flags it is stored
// with. A refusal, or a writer still failing at the last attempt, leaves
// the post failed with the reason, visible to the administrator.
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
	set, err := d.Store.Settings(ctx)
	if err != nil {
		return err
	}
	if !p.IsProfile() && p.GuardedAt == nil {
		reason, err := d.guard(ctx, p, set)
		if errors.Is(err, store.ErrConflict) {
			// Another delivery of the task got there first.
			return nil
		}
		if err != nil {
			return err
		}
		if reason != "" {
			d.Log.InfoContext(ctx, "post skipped", "post_id", id, "reason", reason)
			return nil
		}
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
	draft, flags, err := d.compose(ctx, req, set.Caps.NearDuplicate)
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
		Flags: guard.Strings(append(guard.ReplyFlags(draft.Text, p.AuthorUsername, p.OriginalPostText, d.Persona), flags...)),
	})
	if errors.Is(err, store.ErrConflict) {
		// Another delivery of the task got there first.
		return nil
	}
	return err
}

// guard runs the guards of a reply before it is drafted: the persona's
// own post, an opt-out (its author blocked at once), a blocked author or
// phrase, then the reply caps. It returns the reason the post was skipped
// for, "" when it passed (and is now guarded). A post that left drafting
// meanwhile gets ErrConflict.
func (d *Drafter) guard(ctx context.Context, p post.Post, set settings.Settings) (string, error) {
	if guard.SameHandle(p.AuthorUsername, d.Persona) {
		return guard.ReasonOwnPost, d.Store.Skip(ctx, p.ID, guard.ReasonOwnPost)
	}
	if phrase, ok := guard.OptOut(p.OriginalPostText); ok {
		reason := fmt.Sprintf("%s: %q", guard.ReasonOptOut, phrase)
		if err := d.Store.BlockAuthor(ctx, strings.ToLower(strings.TrimPrefix(p.AuthorUsername, "@")), reason, p.ID); err != nil {
			return "", err
		}
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	if handle, ok := guard.BlockedAuthor(p.AuthorUsername, set.BlockedAuthors); ok {
		reason := fmt.Sprintf("%s: @%s", guard.ReasonBlockedAuthor, strings.TrimPrefix(handle, "@"))
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	if phrase, ok := guard.MatchPhrase(p.OriginalPostText, set.BlockedPhrases); ok {
		reason := fmt.Sprintf("%s: %q", guard.ReasonBlockedPhrase, phrase)
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	return d.Store.PassGuards(ctx, p.ID, set.Caps.Reply())
}

// nearDuplicateWindow is how far back the near-duplicate guard looks.
const nearDuplicateWindow = 7 * 24 * time.Hour

// compose writes the draft of req; a draft too like one of the persona's
// drafts and posts of the last week is written once more, asked to differ
// from it, and if the redraft is still too like one, kept with the flag
// guard.FlagNearDuplicate.
func (d *Drafter) compose(ctx context.Context, req writer.Request, threshold float64) (writer.Draft, []guard.Flag, error) {
	draft, err := writer.Compose(ctx, d.Writer, req)
	if err != nil {
		return writer.Draft{}, nil, err
	}
	recent, err := d.Store.RecentPersonaTexts(ctx, time.Now().Add(-nearDuplicateWindow), store.RecentTextsLimit)
	if err != nil {
		return writer.Draft{}, nil, err
	}
	words := d.Words.of(recent)
	i, _, dup := guard.NearDuplicateWords(guard.ContentWords(draft.Text), words, threshold)
	if !dup {
		return draft, nil, nil
	}
	req.Avoid = recent[i]
	redraft, err := writer.Compose(ctx, d.Writer, req)
	if err != nil {
		return writer.Draft{}, nil, err
	}
	if _, _, dup := guard.NearDuplicateWords(guard.ContentWords(redraft.Text), words, threshold); dup {
		return redraft, []guard.Flag{guard.FlagNearDuplicate}, nil
	}
	return redraft, nil, nil
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
