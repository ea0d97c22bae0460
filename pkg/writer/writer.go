// Package writer drafts the persona's words. Two implementations live below
// it: openai (any OpenAI-compatible chat server) and offline (deterministic,
// no network, the embedded default).
package writer

import (
	"context"
	"errors"
	"fmt"

	"infernal/pkg/persona"
	"infernal/pkg/post"
)

// Kind says what the writer is asked for.
type Kind string

// The kinds of request.
const (
	// KindReply answers a mortal's post.
	KindReply Kind = "reply"
	// KindProfile is a standalone post for the persona's own profile.
	KindProfile Kind = "profile"
)

// Request is what a draft is written from.
type Request struct {
	Kind Kind
	// Persona is the persona's handle, without the @.
	Persona string
	// Character is the persona the operator wrote, the draft's voice; its
	// zero value (no Voice) means persona.Default(). It is data for the
	// writer, never rules: the writer's hard rules stand above it.
	Character persona.Persona
	// PostText and Author describe the mortal's post; empty for KindProfile.
	PostText string
	Author   string
	// Platform is the platform the draft is for, whose length rule and
	// limit Compose keeps to ("" is X's); MaxLength, when not zero, is the
	// limit the draft must fit in (post.Post.Limit: the server's announced
	// limit, Mastodon's max_characters, less the content warning a reply
	// carries there), else the descriptor's.
	Platform  string
	MaxLength int
	// Media are the images the mortal's post shows (alt texts and
	// addresses as the platform returned them), at most post.MaxMedia;
	// Link is its link card, nil when none. The writer never fetches an
	// address the mortal wrote: only these, which the platform gave.
	Media []post.Media
	Link  *post.Link
	// ContentWarning is the warning the mortal put over their post
	// (Mastodon's spoiler_text), "" when none: data, quoted apart from
	// the text; the reply goes out under it.
	ContentWarning string
	// PreviousDraft and PreviousLength are set when an earlier draft was too
	// long, so the writer can be asked for a shorter one.
	PreviousDraft  string
	PreviousLength int
	// CurrentDraft is the draft under review when the reviewer asks for
	// another (regenerate); the new one must differ from it.
	CurrentDraft string
	// Instruction is the reviewer's one-line wish for the new draft
	// ("shorter", "less cruel"); it steers the voice, never the rules.
	Instruction string
	// Variant tells successive regenerated drafts of one post apart (the
	// number of versions it has), so a deterministic writer gives a new one.
	Variant int
	// Avoid is set on the redraft of a draft too similar to a recent
	// persona post: that post, which the new draft must not resemble.
	Avoid string
	// Context is what the mortal's post answers, in conversation order
	// (oldest first): the thread above it, the post it quotes, and the
	// persona's own earlier replies in the conversation. Empty for a
	// standalone post and for KindProfile.
	Context []ContextPost
	// Examples are replies the administrator approved for similar posts,
	// best first (pkg/learning); data for the writer, never rules. Empty
	// with learning off: the prompt is then exactly as without learning.
	Examples []Example
	// Lessons are short rules learned from the administrator's edits and
	// rejections, best first; empty with learning off.
	Lessons []Lesson
	// Facts are the knowledge-base chunks like the mortal's post, best
	// first (pkg/knowledge); data the persona may use if relevant, never
	// rules. Empty when nothing matched: the prompt is then as without them.
	Facts []Fact
}

// Fact is one knowledge-base chunk given to the writer.
type Fact struct {
	// Title is its document's title.
	Title string
	Text  string
}

// Example is a past reply the administrator approved for a similar post.
type Example struct {
	// Post is the mortal's post, Reply the text approved.
	Post  string
	Reply string
}

// Lesson is one learned rule in a prompt.
type Lesson struct {
	Text string
	// Rejection marks a lesson learned from a rejection: the judge weighs
	// a draft that breaks it down.
	Rejection bool
}

// Edit is one decision a lesson is distilled from.
type Edit struct {
	// Post is the mortal's post, Draft the writer's text, Final the text
	// approved (the edit); for a rejection Final is the draft rejected and
	// Reason the administrator's reason.
	Post     string
	Draft    string
	Final    string
	Rejected bool
	Reason   string
	// Language is the post's language as its platform gave it (a BCP 47
	// tag, post.Language's form), "" when unknown.
	Language string
}

// Distiller writes one lesson from a decision.
type Distiller interface {
	// Distill returns a lesson of at most 200 characters stating what the
	// administrator wanted, or "" when the decision teaches nothing.
	Distill(ctx context.Context, e Edit) (string, error)
}

// Relation says how a context post stands to the post being answered.
type Relation string

// The relations of a context post.
const (
	// RelationAncestor is a post higher up the reply chain than the parent.
	RelationAncestor Relation = "ancestor"
	// RelationParent is the post the mortal's post replies to.
	RelationParent Relation = "parent"
	// RelationQuoted is the post the mortal's post quotes.
	RelationQuoted Relation = "quoted"
	// RelationPersona is one of the persona's own earlier posts in the
	// conversation (in the reply chain or beside it).
	RelationPersona Relation = "persona"
)

// ContextPost is one post of a draft's context.
type ContextPost struct {
	Relation Relation
	// Author is the author's handle, without the @.
	Author string
	Text   string
	// Media are the post's images; Link its link card, nil when none.
	Media []post.Media
	Link  *post.Link
	// ContentWarning is the warning its author put over it, "" when none.
	ContentWarning string
}

// Draft is a written response.
type Draft struct {
	Text             string
	Category         post.Category
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64
}

// Writer drafts one response.
type Writer interface {
	// Name identifies the writer in logs ("openai" or "offline").
	Name() string
	// Write drafts a response to req. It returns an error wrapping ErrRefused
	// when the model declines or answers nothing; other errors may pass.
	Write(ctx context.Context, req Request) (Draft, error)
}

// Judge gives a second opinion on a draft.
type Judge interface {
	// Judge scores draft, written for req, from 1 to 5 with a one-line
	// reason: is it in character, does it answer the conversation, is it
	// safe, is it not repetitive. An error leaves the draft unjudged.
	Judge(ctx context.Context, req Request, draft string) (post.Review, error)
}

// CharacterOf is req's persona, persona.Default() when it has none.
func CharacterOf(req Request) persona.Persona {
	if req.Character.Voice == "" {
		return persona.Default()
	}
	return req.Character
}

// ErrRefused marks a model's refusal or empty answer: retrying will not help.
var ErrRefused = errors.New("writer: refused")

// ErrBusy marks a model that is rate limited or overloaded (429, 503): the
// same request is worth making again a little later, and a draft waiting for
// it is not failing.
var ErrBusy = errors.New("writer: model busy")

// MaxShortenings is how many times an over-long draft is asked for again.
const MaxShortenings = 2

// Compose asks w for a draft and, while it is over the platform's limit
// (counted by its length rule, a reply with the "@author " prefix the
// platform's replies start with, post.PrefixReply), asks again for a
// shorter one, at most MaxShortenings times; the last draft is returned as
// it is, too long or not, for the administrator to edit.
func Compose(ctx context.Context, w Writer, req Request) (Draft, error) {
	d, err := w.Write(ctx, req)
	if err != nil {
		return Draft{}, fmt.Errorf("writer: %s: %w", w.Name(), err)
	}
	limit := req.MaxLength
	if limit <= 0 {
		limit = post.MaxLengthFor(req.Platform)
	}
	for i := 0; i < MaxShortenings; i++ {
		sent := d.Text
		if req.Kind == KindReply {
			sent = post.PrefixReply(req.Platform, req.Author, sent)
		}
		n := post.LengthFor(req.Platform, sent)
		if n <= limit {
			break
		}
		req.PreviousDraft, req.PreviousLength = d.Text, n
		if d, err = w.Write(ctx, req); err != nil {
			return Draft{}, fmt.Errorf("writer: %s: shortening: %w", w.Name(), err)
		}
	}
	return d, nil
}
