// Package conversation gathers what a mortal's post answers: the thread
// above it (its replied_to chain, oldest first, up to a depth the
// administrator sets), the post it quotes, and the persona's own earlier
// replies in the same conversation. The writer drafts from it and the
// reviewer's card shows it.
//
// Posts read from the platform are kept in PostgreSQL (store.ContextPost),
// one row per platform post, so later drafts, regenerations and follow-ups
// read them from there: on X every post read is billed.
package conversation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// Relation says how a context post stands to the post being answered.
type Relation string

// The relations of a context post, as GET /api/posts/{id}/context names them.
const (
	// Ancestor is a post higher up the reply chain than the parent.
	Ancestor Relation = "ancestor"
	// Parent is the post the mortal's post replies to.
	Parent Relation = "parent"
	// Quoted is the post the mortal's post quotes.
	Quoted Relation = "quoted"
	// Persona is one of the persona's own posts in the conversation (in
	// the reply chain or its earlier replies beside it).
	Persona Relation = "persona"
)

// Item is one post of a context.
type Item struct {
	Relation Relation
	// AuthorUsername is the author's handle, without the @.
	AuthorUsername string
	Text           string
	// CreatedAt is when the post was made, nil when unknown.
	CreatedAt      *time.Time
	PlatformPostID string
	// Media are the post's images; Link its link card, nil when none.
	Media []post.Media
	Link  *post.Link
	// ContentWarning is the warning its author put over it, "" when none.
	ContentWarning string
}

// Assemble builds p's context from the kept posts known (by platform id)
// and the persona's earlier replies in its conversation (oldest first), in
// conversation order: the reply chain above p oldest first, at most depth
// posts, the persona's replies placed among them by time, then the quoted
// post. The chain stops at a post not known, a post gone, or a post seen
// before (a cycle). A post of the persona (handle) is marked
// Persona wherever it stands.
func Assemble(p post.Post, known map[string]store.ContextPost, persona []store.ContextPost, handle string, depth int) []Item {
	chain, _ := walk(p, known, depth)
	inChain := make(map[string]bool, len(chain))
	items := make([]Item, 0, len(chain)+len(persona)+1)
	// walk goes up from the parent; the thread reads down to it.
	for i, cp := range slices.Backward(chain) {
		rel := Ancestor
		if i == 0 {
			rel = Parent
		}
		if guard.SameHandle(cp.AuthorUsername, handle) {
			rel = Persona
		}
		inChain[cp.PlatformPostID] = true
		items = append(items, item(rel, cp))
	}
	var own []Item
	for _, cp := range persona {
		if cp.PlatformPostID != "" && inChain[cp.PlatformPostID] {
			continue
		}
		cp.AuthorUsername = handle
		own = append(own, item(Persona, cp))
	}
	items = mergeByTime(items, own)
	if q, ok := known[p.QuotedID]; ok && p.QuotedID != "" && !q.Gone {
		items = append(items, item(Quoted, q))
	}
	return items
}

// walk follows p's reply chain through known, from the parent up, at most
// depth posts. next is the id the walk needs and known lacks ("" when the
// chain ended for another reason: the top reached, the depth, a gone post
// or a cycle).
func walk(p post.Post, known map[string]store.ContextPost, depth int) (chain []store.ContextPost, next string) {
	seen := map[string]bool{p.OriginalPostID: true}
	id := p.InReplyToID
	for len(chain) < depth && id != "" && !seen[id] {
		seen[id] = true
		cp, ok := known[id]
		if !ok {
			return chain, id
		}
		if cp.Gone {
			break
		}
		chain = append(chain, cp)
		id = cp.InReplyToID
	}
	return chain, ""
}

// missing lists what p's context needs and known lacks: the next post up
// the chain and the quoted post.
func missing(p post.Post, known map[string]store.ContextPost, depth int) []string {
	var ids []string
	if _, next := walk(p, known, depth); next != "" {
		ids = append(ids, next)
	}
	if _, ok := known[p.QuotedID]; p.QuotedID != "" && !ok && p.QuotedID != p.OriginalPostID {
		ids = append(ids, p.QuotedID)
	}
	return ids
}

// mergeByTime places own (oldest first) among thread (oldest first) by
// time, keeping both orders; a post without a time stays where its list
// puts it.
func mergeByTime(thread, own []Item) []Item {
	if len(own) == 0 {
		return thread
	}
	out := make([]Item, 0, len(thread)+len(own))
	i, j := 0, 0
	for i < len(thread) && j < len(own) {
		if own[j].CreatedAt != nil && thread[i].CreatedAt != nil && own[j].CreatedAt.Before(*thread[i].CreatedAt) {
			out = append(out, own[j])
			j++
			continue
		}
		out = append(out, thread[i])
		i++
	}
	out = append(out, thread[i:]...)
	return append(out, own[j:]...)
}

func item(rel Relation, cp store.ContextPost) Item {
	return Item{Relation: rel, AuthorUsername: cp.AuthorUsername, Text: cp.Text, CreatedAt: cp.CreatedAt, PlatformPostID: cp.PlatformPostID,
		Media: cp.Media, Link: cp.Link, ContentWarning: cp.ContentWarning}
}

// Store keeps the context posts (*store.Store is one).
type Store interface {
	// ContextPosts returns the kept posts of platform with ids, by id.
	ContextPosts(ctx context.Context, platform string, ids []string) (map[string]store.ContextPost, error)
	// SaveContextPosts keeps posts read as context.
	SaveContextPosts(ctx context.Context, posts []store.ContextPost) error
	// PersonaReplies returns the persona's replies posted in a conversation.
	PersonaReplies(ctx context.Context, platform, conversationID string, exceptID int64) ([]store.ContextPost, error)
}

// Fetcher reads posts from the platform as context rows (the worker's
// adapter of platform.Platform.Lookup). Ids it does not return are taken
// for gone.
type Fetcher interface {
	Fetch(ctx context.Context, ids []string) ([]store.ContextPost, error)
}

// Reads decides whether a read of the platform may be spent
// (spend.Gate is one: it refuses once the X budget is spent).
type Reads interface {
	Allow(ctx context.Context, endpoint string) bool
}

// lookupEndpoint names the read Gather spends, as the X budget counts it.
const lookupEndpoint = "GET /2/tweets"

// Gatherer assembles contexts, reading from the platform what the store
// lacks.
type Gatherer struct {
	Store Store
	// Fetch reads the posts the store lacks; nil reads nothing, as for a
	// regenerate or the reviewer's card.
	Fetch Fetcher
	// PlatformName is the platform of the stored rows.
	PlatformName string
	// Reads allows each read; nil allows every one.
	Reads Reads
	// Handle is the persona's handle, without the @.
	Handle string
}

// Context is a post's gathered context.
type Context struct {
	Items []Item
	// Note says what could not be seen, "" when nothing was missed.
	Note string
	// Read is how many posts were read from the platform for it.
	Read int
}

// Gather returns p's context, depth posts up its chain at most. Posts the
// store lacks are looked up on the platform, one level of the chain per
// call (the quoted post with the first), and kept; when the budget refuses
// a read or the platform fails, the context holds what is stored and Note
// says so: a draft is never held back for its context. Only a failing
// store is an error.
func (g *Gatherer) Gather(ctx context.Context, p post.Post, depth int) (Context, error) {
	var out Context
	if p.IsProfile() {
		return out, nil
	}
	known := map[string]store.ContextPost{}
	// asked are the ids the store was asked for: it lacked those not known.
	asked := map[string]bool{}
	persona, err := g.Store.PersonaReplies(ctx, g.PlatformName, p.ConversationID, p.ID)
	if err != nil {
		return out, fmt.Errorf("conversation: %w", err)
	}
	// The persona's replies are known posts of the chain too: a follow-up
	// under one reads nothing to find it.
	for _, r := range persona {
		if r.PlatformPostID != "" {
			r.AuthorUsername = g.Handle
			known[r.PlatformPostID] = r
		}
	}
	// Each round reads one more level of the chain: an ancestor's id is only
	// known once its child is read. depth+1 rounds cover the chain and the quote.
	for range depth + 1 {
		need := missing(p, known, depth)
		if len(need) == 0 {
			break
		}
		// Ids the store was not asked for yet may have been kept by an
		// earlier draft: free. The others it already lacked.
		var fresh []string
		for _, id := range need {
			if !asked[id] {
				asked[id] = true
				fresh = append(fresh, id)
			}
		}
		if len(fresh) > 0 {
			more, err := g.Store.ContextPosts(ctx, g.PlatformName, fresh)
			if err != nil {
				return out, fmt.Errorf("conversation: %w", err)
			}
			if len(more) > 0 {
				for id, cp := range more {
					known[id] = cp
				}
				continue
			}
		}
		if g.Fetch == nil {
			break
		}
		if g.Reads != nil && !g.Reads.Allow(ctx, lookupEndpoint) {
			out.Note = "The X budget is spent: " + drafted(storedCount(p, known, depth))
			break
		}
		read, err := g.Fetch.Fetch(ctx, need)
		if err != nil {
			out.Note = fmt.Sprintf("The platform refused a read of the thread (%v): %s", err, drafted(storedCount(p, known, depth)))
			break
		}
		out.Read += len(read)
		kept := g.keep(need, read)
		if err := g.Store.SaveContextPosts(ctx, kept); err != nil {
			return out, fmt.Errorf("conversation: %w", err)
		}
		for _, cp := range kept {
			known[cp.PlatformPostID] = cp
		}
	}
	out.Items = Assemble(p, known, persona, g.Handle, depth)
	return out, nil
}

// keep is what a fetch of need returned, and each id it did not return
// kept as gone, so that it is not asked for again.
func (g *Gatherer) keep(need []string, read []store.ContextPost) []store.ContextPost {
	out := make([]store.ContextPost, 0, len(need))
	got := make(map[string]bool, len(read))
	for _, cp := range read {
		if cp.PlatformPostID == "" {
			continue
		}
		got[cp.PlatformPostID] = true
		cp.Platform = g.PlatformName
		out = append(out, cp)
	}
	for _, id := range need {
		if !got[id] {
			out = append(out, store.ContextPost{Platform: g.PlatformName, PlatformPostID: id, Gone: true})
		}
	}
	return out
}

// storedCount is how many posts of p's context known holds.
func storedCount(p post.Post, known map[string]store.ContextPost, depth int) int {
	chain, _ := walk(p, known, depth)
	n := len(chain)
	if q, ok := known[p.QuotedID]; ok && p.QuotedID != "" && !q.Gone {
		n++
	}
	return n
}

// drafted says what a draft saw of a context it could not read whole.
func drafted(stored int) string {
	switch stored {
	case 0:
		return "drafted without the posts it answers."
	case 1:
		return "drafted with the 1 post already stored."
	}
	return fmt.Sprintf("drafted with the %d posts already stored.", stored)
}
