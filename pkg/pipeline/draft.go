package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/conversation"
	"infernal/pkg/guard"
	"infernal/pkg/knowledge"
	"infernal/pkg/learning/shaper"
	"infernal/pkg/persona"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// Drafter writes the persona's responses.
type Drafter struct {
	Store  *store.Store
	Writer writer.Writer
	Log    *slog.Logger
	// Handle is the persona's handle, without the @.
	Handle string
	// Budget holds drafts back at a model spending ceiling; nil for none.
	Budget *spend.Gate
	// Settings keeps the settings between their changes; nil reads them
	// for every draft.
	Settings *store.SettingsCache
	// Recent keeps the persona's recent texts for the near-duplicate
	// guard; nil reads them for every draft.
	Recent *RecentTexts
	// Context gathers what a reply answers (its thread, the post it
	// quotes, the persona's earlier replies); nil drafts from the post alone.
	Context *conversation.Gatherer
	// Judge gives the second opinion on every draft; nil judges none.
	Judge writer.Judge
	// Now is the clock of the hour's draft cap; nil is time.Now.
	Now func() time.Time
	// Autopilot approves the new pending drafts its rules let through; nil
	// leaves every draft to the administrator.
	Autopilot *Autopilot
	// MaxLength is the limit the platform's server announced (Mastodon's
	// configuration.statuses.max_characters, read at start); zero keeps
	// its descriptor's.
	MaxLength int
	// Learning gives each reply the similar past cases and the lessons
	// the settings allow (settings.Learning); nil learns nothing.
	Learning *shaper.Shaper
	// Knowledge gives each reply the knowledge-base facts like its post
	// (settings.Knowledge); nil gives none.
	Knowledge *knowledge.Retriever
	// Users is the platform's client, which names the authors of its
	// posts in the settings (platform.Qualifier) and, on a platform whose
	// descriptor says ResolveBlocked, looks the blocked handles up to
	// their ids before a post is judged; nil does neither.
	Users UserLookup
}

// UserLookup looks an account up by its handle (platform.Platform's
// UserByUsername).
type UserLookup interface {
	UserByUsername(ctx context.Context, username string) (platform.User, error)
}

// RecentTexts keeps the persona's drafts and posts of the near-duplicate
// window (store.RecentPersonaTexts) with their guard.Words, so that a
// draft compares itself with a week of texts without reading and
// normalising them again: they are read at most every refresh, and the
// drafts of this process are added as they are saved. A draft may thus
// miss another worker's draft of the last refresh, as two drafts written at
// the same moment always miss each other. Its zero value is not usable;
// call NewRecentTexts.
type RecentTexts struct {
	refresh time.Duration
	mu      sync.Mutex
	readAt  time.Time
	texts   []string
	words   []guard.Words
}

// NewRecentTexts returns a RecentTexts read again at most every refresh.
func NewRecentTexts(refresh time.Duration) *RecentTexts {
	return &RecentTexts{refresh: refresh}
}

// of returns the recent texts and their Words, read from st when r is nil
// or its copy is older than its refresh. The lists are never changed
// afterwards: they may be read after r has moved on.
func (r *RecentTexts) of(ctx context.Context, st *store.Store, now time.Time) ([]string, []guard.Words, error) {
	if r == nil {
		return readRecentTexts(ctx, st, now, nil)
	}
	// One read at a time; the others wait for it rather than read too.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.readAt.IsZero() || now.Sub(r.readAt) >= r.refresh || now.Before(r.readAt) {
		known := make(map[string]guard.Words, len(r.texts))
		for i, t := range r.texts {
			known[t] = r.words[i]
		}
		texts, words, err := readRecentTexts(ctx, st, now, known)
		if err != nil {
			return nil, nil, err
		}
		r.readAt, r.texts, r.words = now, texts, words
	}
	return r.texts, r.words, nil
}

// readRecentTexts reads the persona's texts of the near-duplicate window
// before now and their Words, taken from known when it has them.
func readRecentTexts(ctx context.Context, st *store.Store, now time.Time, known map[string]guard.Words) ([]string, []guard.Words, error) {
	texts, err := st.RecentPersonaTexts(ctx, now.Add(-nearDuplicateWindow), store.RecentTextsLimit)
	if err != nil {
		return nil, nil, err
	}
	words := make([]guard.Words, len(texts))
	for i, t := range texts {
		w, ok := known[t]
		if !ok {
			w = guard.ContentWords(t)
		}
		words[i] = w
	}
	return texts, words, nil
}

// add puts text, a draft just saved, first among the recent texts, the
// oldest beyond store.RecentTextsLimit left out.
func (r *RecentTexts) add(text string) {
	if r == nil {
		return
	}
	w := guard.ContentWords(text)
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(len(r.texts), store.RecentTextsLimit-1)
	r.texts = append([]string{text}, r.texts[:n]...)
	r.words = append([]guard.Words{w}, r.words[:n]...)
}

// DraftPost writes the response of a post in drafting and makes it pending.
// A reply not yet guarded first goes through the guards, before any model
// call: one they stop is skipped with its reason. The draft gets the
// near-duplicate guard and the outbound check, whose flags it is stored
// with. A refusal, or a writer still failing at the last attempt, leaves
// the post failed with the reason, visible to the administrator.
func (d *Drafter) DraftPost(ctx context.Context, t *asynq.Task) error {
	payload, err := tasks.DecodePost(t)
	if err != nil {
		return err
	}
	id := payload.PostID
	p, set, err := d.Store.PostWithSettings(ctx, id, d.Settings)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("draft %d: %w: %w", id, err, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if p.Status != post.StatusDrafting {
		return nil
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
	why, err := d.Budget.ModelBlocked(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		// It stays drafting; reconcile queues it again once the budget allows.
		d.Log.InfoContext(ctx, "draft deferred: budget", "post_id", id, "reason", why)
		return nil
	}
	if waits, err := d.overHourlyCap(ctx, id, set.Caps.DraftsPerHour); err != nil || waits {
		return err
	}
	req, learned, err := d.request(ctx, p, set, d.Context)
	if err != nil {
		return err
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
	// The draft's text is what is sent: on Mastodon with the @author prefix.
	text := post.ReplyText(p, post.StorableText(draft.Text))
	flags = append(guard.ReplyFlags(draft.Text, p.AuthorUsername, p.OriginalPostText, d.Handle), flags...)
	saved := store.Draft{
		Response: text, Category: draft.Category,
		Temperature: draft.Temperature, PresencePenalty: draft.PresencePenalty, FrequencyPenalty: draft.FrequencyPenalty,
		Flags:          guard.Strings(flags),
		PersonaVersion: req.Character.Version, Review: d.review(ctx, id, req, text, flags),
		Learned: learned, MaxLength: d.MaxLength,
	}
	reason := lowReview(saved.Review, set.Caps.MinReviewScore, p.ReviewWaived)
	pending := reason == ""
	if !pending {
		err = d.Store.SkipDraft(ctx, id, saved, reason)
		if err == nil {
			d.Log.InfoContext(ctx, "post skipped", "post_id", id, "reason", reason)
		}
	} else {
		err = d.Store.SaveDraft(ctx, id, saved)
	}
	if errors.Is(err, store.ErrConflict) {
		// Another delivery of the task got there first.
		return nil
	}
	if err != nil {
		return err
	}
	d.Recent.add(text)
	if pending {
		// Only a draft that has just become pending, while the autopilot is on.
		d.Autopilot.Consider(ctx, id, set)
	}
	return nil
}

// overHourlyCap reports whether post id must wait for its draft: the
// first drafts of the last hour and the posts in drafting before it reach
// perHour (caps.drafts_per_hour; 0 is its default). A waiting post stays
// in drafting, and reconcile queues it again each minute: the oldest are
// drafted first as the hour's drafts age out, and none is lost.
func (d *Drafter) overHourlyCap(ctx context.Context, id int64, perHour int) (bool, error) {
	if perHour <= 0 {
		perHour = settings.DefaultDraftsPerHour
	}
	now := time.Now()
	if d.Now != nil {
		now = d.Now()
	}
	drafted, ahead, err := d.Store.DraftQueue(ctx, id, now.Add(-time.Hour))
	if err != nil {
		return false, err
	}
	if drafted+ahead < perHour {
		return false, nil
	}
	d.Log.InfoContext(ctx, "draft deferred: the hour's draft cap", "post_id", id, "drafts_last_hour", drafted, "ahead", ahead, "per_hour", perHour)
	return true, nil
}

// request is what p's draft is written from: a reply carries its
// conversation as gather finds it (the platform read for what is not
// stored yet, when gather has one), and what it could not see is noted
// on the post for the reviewer; and what the persona learned (see learn),
// named by the LearnedFrom returned.
func (d *Drafter) request(ctx context.Context, p post.Post, set settings.Settings, gather *conversation.Gatherer) (writer.Request, post.LearnedFrom, error) {
	character, err := d.character(ctx)
	if err != nil {
		return writer.Request{}, post.LearnedFrom{}, err
	}
	// The draft is written under the server's limit (kept with it, as
	// store.Draft.MaxLength), less the content warning a reply carries
	// there: the limit its review will check (post.Post.Limit).
	p.MaxLength = d.MaxLength
	if p.IsProfile() {
		return writer.Request{Kind: writer.KindProfile, Persona: d.Handle, Character: character, Platform: p.Platform, MaxLength: p.Limit()}, post.LearnedFrom{}, nil
	}
	req := writer.Request{Kind: writer.KindReply, Persona: d.Handle, PostText: p.OriginalPostText, Author: p.AuthorUsername, Character: character,
		Media: p.Media, Link: p.Link, ContentWarning: p.ContentWarning, Platform: p.Platform, MaxLength: p.Limit()}
	learned, err := d.learn(ctx, p, set, &req)
	if err != nil {
		return writer.Request{}, post.LearnedFrom{}, err
	}
	if learned.Facts, err = d.ground(ctx, p, set, &req); err != nil {
		return writer.Request{}, post.LearnedFrom{}, err
	}
	if gather == nil {
		return req, learned, nil
	}
	c, err := gather.Gather(ctx, p, set.Caps.ContextDepth)
	if err != nil {
		return writer.Request{}, post.LearnedFrom{}, err
	}
	req.Context = writerContext(c.Items)
	if c.Note != p.ContextNote && (gather.Fetch != nil || c.Note != "") {
		if err := d.Store.SetContextNote(ctx, p.ID, c.Note); err != nil {
			return writer.Request{}, post.LearnedFrom{}, err
		}
	}
	return req, learned, nil
}

// learn puts into req what shapes p's draft under the learning settings:
// the similar past cases as examples and the lessons. The decisions still
// waiting for their lesson are distilled first, so a draft learns from the
// edit made just before it; a failing distiller is logged and waits for
// the next draft or reconcile. With learning off req stays as it was.
func (d *Drafter) learn(ctx context.Context, p post.Post, set settings.Settings, req *writer.Request) (post.LearnedFrom, error) {
	if d.Learning == nil || !set.Learning.Enabled {
		return post.LearnedFrom{}, nil
	}
	if _, err := d.Learning.Distil(ctx); err != nil {
		d.Log.WarnContext(ctx, "lessons not distilled yet", "post_id", p.ID, "error", err)
	}
	sh, err := d.Learning.Shape(ctx, p, set.Learning)
	if err != nil {
		return post.LearnedFrom{}, err
	}
	req.Examples, req.Lessons = sh.Examples, sh.Lessons
	return sh.Learned, nil
}

// ground puts into req the knowledge-base facts like p's post, at most
// set.Knowledge.Chunks above the similarity floor, and returns them by id
// (grounded_in); a post like nothing gets none.
func (d *Drafter) ground(ctx context.Context, p post.Post, set settings.Settings, req *writer.Request) ([]post.Ground, error) {
	if d.Knowledge == nil || set.Knowledge.Chunks <= 0 {
		return nil, nil
	}
	facts, err := d.Knowledge.Retrieve(ctx, p.OriginalPostText, set.Knowledge.Chunks)
	if err != nil {
		return nil, err
	}
	var out []post.Ground
	for _, f := range facts {
		req.Facts = append(req.Facts, writer.Fact{Title: f.Title, Text: f.Text})
		out = append(out, post.Ground{DocumentID: f.DocumentID, ChunkID: f.ChunkID})
	}
	return out, nil
}

// character is the persona drafts are written in: the stored one, the
// newest version; before one is stored (the web and the worker seed it at
// start), persona.Default() with version 0, which no draft names.
func (d *Drafter) character(ctx context.Context) (persona.Persona, error) {
	p, err := d.Store.Persona(ctx)
	if errors.Is(err, store.ErrNotFound) {
		p = persona.Default()
		p.Version = 0
		return p, nil
	}
	return p, err
}

// review is d.Judge's opinion of text, the draft of post id written for
// req; nil without a judge or when it fails, which is logged and never
// stops the draft, and nil for a draft a guard flagged: the reviewer must
// look at it anyway, and a judge call would only cost.
func (d *Drafter) review(ctx context.Context, id int64, req writer.Request, text string, flags []guard.Flag) *post.Review {
	if d.Judge == nil || len(flags) > 0 {
		return nil
	}
	r, err := d.Judge.Judge(ctx, req, text)
	if err != nil {
		d.Log.WarnContext(ctx, "judge failed: the draft stays unjudged", "post_id", id, "error", err)
		return nil
	}
	return &r
}

// lowReview is the skip reason of a draft whose review scores below min
// (0 is off), "" when it may go to review: unjudged, good enough, or
// waived by a "draft anyway".
func lowReview(r *post.Review, min int, waived bool) string {
	if r == nil || min <= 0 || waived || r.Score >= min {
		return ""
	}
	return fmt.Sprintf("%s: %d/%d: %s", guard.ReasonLowReview, r.Score, post.MaxReviewScore, r.Reason)
}

// storedContext is d.Context reading nothing from the platform: what a
// regenerate drafts from.
func (d *Drafter) storedContext() *conversation.Gatherer {
	if d.Context == nil {
		return nil
	}
	g := *d.Context
	g.Fetch = nil
	return &g
}

// guard runs the guards of a reply before it is drafted: the persona's
// own post, an opt-out (its author blocked at once), a blocked author or
// phrase, then the reply caps. It returns the reason the post was skipped
// for, "" when it passed (and is now guarded). A post that left drafting
// meanwhile gets ErrConflict.
func (d *Drafter) guard(ctx context.Context, p post.Post, set settings.Settings) (string, error) {
	if guard.SameHandle(p.AuthorUsername, d.Handle) {
		return guard.ReasonOwnPost, d.Store.Skip(ctx, p.ID, guard.ReasonOwnPost)
	}
	// The author as the settings name it (on Mastodon user@server.tld).
	author := d.entryOf(p.AuthorUsername)
	if phrase, ok := guard.OptOut(p.OriginalPostText); ok {
		reason := fmt.Sprintf("%s: %q", guard.ReasonOptOut, phrase)
		if err := d.Store.BlockAuthor(ctx, p.Platform, author, p.AuthorID, reason, p.ID); err != nil {
			return "", err
		}
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	if post.DescriptorOf(p.Platform).ResolveBlocked {
		if err := d.resolveBlocked(ctx, p.Platform); err != nil {
			return "", err
		}
	}
	// Blocked authors are matched by their stable id where it is known: a
	// renamed author stays blocked, and the next owner of a blocked handle
	// is not. Only the entries of the post's platform count: an X user id
	// never blocks the Mastodon account of the same digits.
	handle, blocked, err := d.Store.AuthorBlocked(ctx, p.Platform, p.AuthorID, func(blocked string) bool {
		_, ok := guard.BlockedAuthor(author, []string{blocked})
		return ok
	})
	if err != nil {
		return "", err
	}
	if blocked {
		reason := fmt.Sprintf("%s: @%s", guard.ReasonBlockedAuthor, strings.TrimPrefix(handle, "@"))
		if post.AccountKindOf(handle).ID {
			// Blocked by id: the reason names the author as seen now, and the id.
			reason = fmt.Sprintf("%s: @%s (%s)", guard.ReasonBlockedAuthor, strings.TrimPrefix(p.AuthorUsername, "@"), handle)
		}
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	if phrase, ok := guard.MatchPhrase(p.OriginalPostText, set.BlockedPhrases); ok {
		reason := fmt.Sprintf("%s: %q", guard.ReasonBlockedPhrase, phrase)
		return reason, d.Store.Skip(ctx, p.ID, reason)
	}
	return d.Store.PassGuards(ctx, p, set.Caps.Reply())
}

// entryOf is username as the settings name the account: lower-case,
// without the @, and, on a platform whose usernames are relative to its
// server (platform.Qualifier: Mastodon), with the server's domain.
func (d *Drafter) entryOf(username string) string {
	if q, ok := d.Users.(platform.Qualifier); ok {
		return q.Qualify(username)
	}
	return strings.ToLower(strings.TrimPrefix(username, "@"))
}

// resolveBlocked looks up the blocked entries of platform's account syntax
// known by handle only, each due (store.BlockedToResolve), and keeps the
// id of each the platform knows. An entry the platform does not know is
// looked up again after TargetLookupInterval or a settings change, and
// matched by its handle meanwhile; a lookup that fails for a while fails
// the draft, which is retried: a post is never judged while a block may
// be unknown.
func (d *Drafter) resolveBlocked(ctx context.Context, name string) error {
	if d.Users == nil {
		return nil
	}
	now := time.Now()
	if d.Now != nil {
		now = d.Now()
	}
	due, err := d.Store.BlockedToResolve(ctx, name, now.Add(-TargetLookupInterval))
	if err != nil {
		return err
	}
	for _, entry := range due {
		u, err := d.Users.UserByUsername(ctx, entry)
		var pe *platform.Error
		switch {
		case err == nil:
		case errors.As(err, &pe) && pe.Status == http.StatusNotFound:
			d.Log.InfoContext(ctx, "blocked account not known to the server yet: matched by its name until it is", "entry", entry)
		case platform.Temporary(err):
			return fmt.Errorf("look up blocked %s: %w", entry, err)
		default:
			d.Log.WarnContext(ctx, "blocked account not looked up: matched by its name", "entry", entry, "error", err)
		}
		if err := d.Store.BlockedLookedUp(ctx, name, entry, u.ID, now); err != nil {
			return err
		}
	}
	return nil
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
	recent, words, err := d.Recent.of(ctx, d.Store, time.Now())
	if err != nil {
		return writer.Draft{}, nil, err
	}
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
