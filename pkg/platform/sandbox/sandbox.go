// Package sandbox is the embedded default platform: a simulated microblog
// kept in PostgreSQL. Mortals post from a bundled corpus at a steady pace
// (mentions of the persona, posts on topics, posts of targeted accounts) and,
// when the corpus has the words for it, hold conversations: they answer each
// other, call the persona into their threads and quote posts, the persona's
// replies among them. The persona's posts and replies are accepted, and
// engagement grows over time, so every screen has live data without any
// credentials. The world's rules
// (who posts when, how engagement grows, what is forgotten) and its tables
// are its own (world.go).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/post"
	"infernal/pkg/twittertext"
)

const (
	// openingBurst is how many posts a fresh sandbox starts with.
	openingBurst = 12
	// maxCatchUp bounds the posts made at once after a long pause.
	maxCatchUp = 20
	// pageLimit bounds one read of a timeline, as a real platform does.
	pageLimit = 50
)

// kinds is the order in which the sandbox's mortals take turns, so that
// mentions, topic posts and targeted accounts' posts all appear from the start.
var kinds = [...]string{corpus.KindMention, corpus.KindTopic, corpus.KindTarget}

// talkKinds are the corpus kinds of conversations: the world holds
// conversations when the corpus has all of them, and none without.
var talkKinds = [...]string{corpus.KindThread, corpus.KindSummon, corpus.KindQuote}

// round is how many turns a world with conversations takes to go through
// its kinds of posts (Sandbox.turn).
const round = 6

// Sandbox is the simulated platform.
type Sandbox struct {
	world   *world
	persona string
	pace    time.Duration
	// byKind holds the corpus split by kind; every kind of kinds has at
	// least one entry, and so has every kind of talkKinds when talks is set.
	byKind map[string][]corpus.Entry
	// talks is whether the world holds conversations.
	talks bool
	now   func() time.Time
	// policy is the reply rule Publish enforces, as X does.
	policy platform.ReplyPolicy
}

// Option changes a Sandbox made by New.
type Option func(*Sandbox)

// WithReplyPolicy makes the sandbox refuse (or accept) replies as X does
// under p; without it the sandbox follows platform.ReplySummoned, X's 2026
// self-serve rule, so the embedded default shows what an operator will see.
func WithReplyPolicy(p platform.ReplyPolicy) Option {
	return func(s *Sandbox) { s.policy = p }
}

// mentionPattern finds the @handles of a post's text.
var mentionPattern = regexp.MustCompile(`@([A-Za-z0-9_]{1,15})`)

// New returns a sandbox where mortals post one entry of entries per pace. It
// keeps its world in the tables sandbox_posts and sandbox_clock of the
// database behind pool (migrated by pkg/store).
func New(pool *pgxpool.Pool, persona string, pace time.Duration, entries []corpus.Entry, now func() time.Time, opts ...Option) (*Sandbox, error) {
	if len(entries) == 0 {
		return nil, errors.New("sandbox: empty corpus")
	}
	if pace <= 0 {
		return nil, fmt.Errorf("sandbox: pace must be positive, got %s", pace)
	}
	byKind := map[string][]corpus.Entry{}
	for i, e := range entries {
		if e.Username == "" || e.Text == "" || !corpus.KnownKind(e.Kind) {
			return nil, fmt.Errorf("sandbox: corpus entry %d is malformed: %+v", i, e)
		}
		byKind[e.Kind] = append(byKind[e.Kind], e)
	}
	for _, k := range kinds {
		if len(byKind[k]) == 0 {
			return nil, fmt.Errorf("sandbox: the corpus has no %s posts", k)
		}
	}
	talking := 0
	for _, k := range talkKinds {
		if len(byKind[k]) > 0 {
			talking++
		}
	}
	if talking != 0 && talking != len(talkKinds) {
		return nil, fmt.Errorf("sandbox: the corpus has some kinds of conversation posts but not all of %v", talkKinds)
	}
	s := &Sandbox{world: &world{pool: pool}, persona: persona, pace: pace, byKind: byKind, talks: talking != 0, now: now, policy: platform.ReplySummoned}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Name identifies the platform in stored rows.
func (s *Sandbox) Name() string { return post.SandboxPlatform }

// personaID is the persona's account id in the sandbox.
const personaID = "persona"

// Me returns the persona's account.
func (s *Sandbox) Me(context.Context) (platform.User, error) {
	return platform.User{ID: personaID, Username: s.persona, Name: s.persona}, nil
}

// advance lets the world move on: the posts due since the last call are
// made, and engagement grows.
func (s *Sandbox) advance(ctx context.Context) error {
	return s.world.advance(ctx, s.now(), s.pace, openingBurst, maxCatchUp, s.turn)
}

// turn plans the world's post at seq. Without conversations the mortals
// take turns by kind (a mention, a topic post, a targeted account's post).
// With them, a round of six turns holds a mention, a topic post, a reply to
// a thread, a targeted account's post, a thin mention of the persona inside
// that thread and a quote:
//
//   - the reply answers the round's topic post in even rounds and the
//     previous round's reply in odd ones, so threads are one or two replies
//     deep before the persona is called in;
//   - the thin mention ("@persona thoughts?") answers the round's reply;
//   - the quote quotes the persona's newest reply nobody quoted yet in even
//     rounds (the round's targeted post when there is none), and the
//     round's reply in odd ones.
//
// Replies are written in their thread's language, by another author than
// the post they answer, when the corpus allows it.
func (s *Sandbox) turn(seq int64) turn {
	if !s.talks {
		e := s.entry(kinds[seq%int64(len(kinds))], seq/int64(len(kinds)))
		return turn{Post: s.row(e, e.Kind)}
	}
	r := seq / round
	switch seq % round {
	case 0:
		return turn{Post: s.row(s.entry(corpus.KindMention, r), corpus.KindMention)}
	case 1:
		return turn{Post: s.row(s.entry(corpus.KindTopic, r), corpus.KindTopic)}
	case 2:
		t := turn{Post: s.row(s.reply(r), corpus.KindTopic), ReplyBack: 1, Else: s.row(s.entry(corpus.KindTopic, seq), corpus.KindTopic)}
		if r%2 == 1 {
			t.ReplyBack = round
		}
		return t
	case 3:
		return turn{Post: s.row(s.entry(corpus.KindTarget, r), corpus.KindTarget)}
	case 4:
		reply := s.reply(r)
		e := s.pick(corpus.KindSummon, r, reply.Lang, reply.Username)
		return turn{Post: s.row(e, corpus.KindMention), ReplyBack: 2, Else: s.row(s.entry(corpus.KindMention, seq), corpus.KindMention)}
	}
	t := turn{Else: s.row(s.entry(corpus.KindTopic, seq), corpus.KindTopic)}
	quoted := s.reply(r)
	t.QuoteBack = 3
	if r%2 == 0 {
		quoted = s.entry(corpus.KindTarget, r)
		t.QuoteBack, t.QuotePersona = 2, true
	}
	t.Post = s.row(s.pick(corpus.KindQuote, r, quoted.Lang, quoted.Username), corpus.KindTopic)
	return t
}

// entry returns the nth entry of kind's list. A prime stride walks the list
// in a varied order, visiting every entry.
func (s *Sandbox) entry(kind string, n int64) corpus.Entry {
	list := s.byKind[kind]
	return list[int((n*7919)%int64(len(list)))]
}

// pick returns the nth entry of kind in lang by another author than
// notAuthor; when the corpus has none, by another author in any language,
// and when it has none of those either, the nth entry of kind.
func (s *Sandbox) pick(kind string, n int64, lang, notAuthor string) corpus.Entry {
	var same, other []corpus.Entry
	for _, e := range s.byKind[kind] {
		if e.Username == notAuthor {
			continue
		}
		other = append(other, e)
		if e.Lang == lang {
			same = append(same, e)
		}
	}
	for _, list := range [][]corpus.Entry{same, other} {
		if len(list) > 0 {
			return list[int((n*7919)%int64(len(list)))]
		}
	}
	return s.entry(kind, n)
}

// reply returns the entry of round r's reply to its thread: the thread
// starts at the round's topic post in even rounds, and the reply answers
// it; in odd rounds the reply answers the previous round's reply.
func (s *Sandbox) reply(r int64) corpus.Entry {
	if r%2 == 0 {
		root := s.entry(corpus.KindTopic, r)
		return s.pick(corpus.KindThread, r, root.Lang, root.Username)
	}
	parent := s.reply(r - 1)
	return s.pick(corpus.KindThread, r, parent.Lang, parent.Username)
}

// row is the post of e in the world, filed under kind.
func (s *Sandbox) row(e corpus.Entry, kind string) row {
	return row{AuthorUsername: e.Username, AuthorName: e.Name, Kind: kind, Text: e.TextFor(s.persona), Lang: e.Lang}
}

// read advances the world and returns the posts of q as a platform page.
func (s *Sandbox) read(ctx context.Context, q query, r platform.Range) (platform.Page, error) {
	if err := s.advance(ctx); err != nil {
		return platform.Page{}, fmt.Errorf("sandbox: %w", err)
	}
	q.SinceID = parseID(r.SinceID)
	q.UntilID = parseID(r.UntilID)
	// One row more than a page tells whether the read stopped at its bound.
	q.Limit = pageLimit + 1
	rows, err := s.world.posts(ctx, q)
	if err != nil {
		return platform.Page{}, fmt.Errorf("sandbox: %w", err)
	}
	page := platform.Page{NewestID: r.SinceID}
	if len(rows) > pageLimit {
		rows, page.More = rows[:pageLimit], true
	}
	page.Posts, page.Included, err = s.toPosts(ctx, rows)
	if err != nil {
		return platform.Page{}, fmt.Errorf("sandbox: %w", err)
	}
	if len(rows) > 0 {
		page.NewestID = strconv.FormatInt(rows[0].ID, 10)
		page.OldestID = strconv.FormatInt(rows[len(rows)-1].ID, 10)
	}
	return page, nil
}

// Mentions returns the mortals' posts that mention the persona.
func (s *Sandbox) Mentions(ctx context.Context, _ string, r platform.Range) (platform.Page, error) {
	return s.read(ctx, query{Kind: corpus.KindMention}, r)
}

// Search returns the mortals' posts on topics; in the sandbox every topic
// post matches, whatever the query.
func (s *Sandbox) Search(ctx context.Context, _ string, r platform.Range) (platform.Page, error) {
	return s.read(ctx, query{Kind: corpus.KindTopic}, r)
}

// UserByUsername finds an account of the corpus by its handle.
func (s *Sandbox) UserByUsername(ctx context.Context, username string) (platform.User, error) {
	for _, list := range s.byKind {
		for _, e := range list {
			if strings.EqualFold(e.Username, username) {
				return platform.User{ID: "user:" + e.Username, Username: e.Username, Name: e.Name}, nil
			}
		}
	}
	return platform.User{}, &platform.Error{Status: 404, Title: "Not Found Error", Detail: "Could not find user with username: [" + username + "]."}
}

// UserPosts returns a corpus account's own posts, or the persona's (its
// timeline, where hand-posted replies are looked for).
func (s *Sandbox) UserPosts(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	if userID == personaID {
		return s.read(ctx, query{Author: s.persona}, r)
	}
	username, ok := strings.CutPrefix(userID, "user:")
	if !ok {
		return platform.Page{}, &platform.Error{Status: 400, Title: "Invalid Request", Detail: "unknown user id " + userID}
	}
	return s.read(ctx, query{Author: username}, r)
}

// Publish posts the persona's text, as a reply when inReplyToID is set. Like
// the real platform it refuses text over the limit, a reply to a post that
// does not exist, and the same standalone text twice.
func (s *Sandbox) Publish(ctx context.Context, text, inReplyToID string) (platform.Post, error) {
	if !twittertext.WithinLimit(text) {
		return platform.Post{}, &platform.Error{Status: 400, Title: "Invalid Request", Detail: "text must be 1 to 280 characters"}
	}
	parent := parseID(inReplyToID)
	if inReplyToID != "" && parent == 0 {
		return platform.Post{}, &platform.Error{Status: 400, Title: "Invalid Request", Detail: "bad in_reply_to_tweet_id"}
	}
	if parent != 0 {
		if err := s.replyAllowed(ctx, parent); err != nil {
			return platform.Post{}, err
		}
	}
	if parent == 0 {
		_, err := s.world.findPersonaPost(ctx, 0, text)
		if err == nil {
			return platform.Post{}, &platform.Error{Status: 403, Title: "Forbidden", Detail: "You are not allowed to create a Tweet with duplicate content."}
		}
		if !errors.Is(err, errNotFound) {
			return platform.Post{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	p, err := s.world.insert(ctx, row{
		AuthorUsername: s.persona, AuthorName: s.persona, Kind: "persona", Text: text,
		InReplyToID: parent, CreatedAt: s.now(),
	})
	if errors.Is(err, errNotFound) {
		return platform.Post{}, &platform.Error{Status: 403, Title: "Forbidden", Detail: "You attempted to reply to a Tweet that is deleted or not visible to you."}
	}
	if err != nil {
		return platform.Post{}, fmt.Errorf("sandbox: %w", err)
	}
	return s.toPost(p), nil
}

// replyAllowed refuses, as X does under the sandbox's policy, a reply to a
// post that neither mentions the persona nor is the persona's own.
func (s *Sandbox) replyAllowed(ctx context.Context, parent int64) error {
	if s.policy == platform.ReplyOpen {
		return nil
	}
	rows, err := s.world.byIDs(ctx, []int64{parent})
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if len(rows) == 0 {
		// The insert refuses it as deleted, in X's words.
		return nil
	}
	posts, _, err := s.toPosts(ctx, rows)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	me, _ := s.Me(ctx)
	if rows[0].Kind == "persona" || posts[0].Summons(me) {
		return nil
	}
	return &platform.Error{Status: 403, Title: "Forbidden", Detail: platform.ReplyNotAllowedDetail}
}

// FindPublished looks for the persona's post answering inReplyToID (or a
// standalone post with exactly text).
func (s *Sandbox) FindPublished(ctx context.Context, _ string, inReplyToID, text string) (platform.Post, bool, error) {
	p, err := s.world.findPersonaPost(ctx, parseID(inReplyToID), text)
	if errors.Is(err, errNotFound) {
		return platform.Post{}, false, nil
	}
	if err != nil {
		return platform.Post{}, false, fmt.Errorf("sandbox: %w", err)
	}
	return s.toPost(p), true, nil
}

// Metrics returns the public counters of the given posts.
func (s *Sandbox) Metrics(ctx context.Context, ids []string) (map[string]platform.Metrics, error) {
	if err := s.advance(ctx); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var nums []int64
	for _, id := range ids {
		if n := parseID(id); n != 0 {
			nums = append(nums, n)
		}
	}
	rows, err := s.world.byIDs(ctx, nums)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	out := make(map[string]platform.Metrics, len(rows))
	for _, r := range rows {
		out[strconv.FormatInt(r.ID, 10)] = platform.Metrics{Likes: r.Likes, Retweets: r.Retweets, Replies: r.Replies}
	}
	return out, nil
}

// Lookup returns the simulated posts of ids; unknown or forgotten ids are
// absent.
func (s *Sandbox) Lookup(ctx context.Context, ids []string) ([]platform.Post, error) {
	var nums []int64
	for _, id := range ids {
		if n := parseID(id); n != 0 {
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return nil, nil
	}
	rows, err := s.world.byIDs(ctx, nums)
	if err != nil {
		return nil, fmt.Errorf("sandbox: lookup: %w", err)
	}
	out, _, err := s.toPosts(ctx, rows)
	if err != nil {
		return nil, fmt.Errorf("sandbox: lookup: %w", err)
	}
	return out, nil
}

// PersonaReplies returns the persona's replies to the post with id, oldest
// first, as they stand: reading them does not move the world on.
func (s *Sandbox) PersonaReplies(ctx context.Context, id string) ([]platform.Post, error) {
	rows, err := s.world.personaReplies(ctx, parseID(id))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	out := make([]platform.Post, 0, len(rows))
	for _, r := range rows {
		out = append(out, s.toPost(r))
	}
	return out, nil
}

// toPosts turns rows into posts, and returns with them the posts they
// answer or quote that the world still has, oldest first (X's
// includes.tweets): one query for all of them, which also tells who wrote
// the quoted posts.
func (s *Sandbox) toPosts(ctx context.Context, rows []row) (posts, included []platform.Post, err error) {
	var refs []int64
	seen := map[int64]bool{}
	for _, r := range rows {
		for _, id := range [...]int64{r.InReplyToID, r.QuotedID} {
			if id != 0 && !seen[id] {
				seen[id] = true
				refs = append(refs, id)
			}
		}
	}
	var refRows []row
	if len(refs) > 0 {
		if refRows, err = s.world.byIDs(ctx, refs); err != nil {
			return nil, nil, fmt.Errorf("referenced posts: %w", err)
		}
	}
	authors := make(map[int64]string, len(rows)+len(refRows))
	for _, list := range [][]row{rows, refRows} {
		for _, r := range list {
			authors[r.ID] = s.toPost(r).Author.ID
		}
	}
	convert := func(list []row) []platform.Post {
		out := make([]platform.Post, 0, len(list))
		for _, r := range list {
			p := s.toPost(r)
			if r.QuotedID != 0 {
				p.QuotedAuthorID = authors[r.QuotedID]
			}
			out = append(out, p)
		}
		return out
	}
	posts = convert(rows)
	if len(refRows) > 0 {
		included = convert(refRows)
	}
	return posts, included, nil
}

// toPost turns r into a post; the quoted post's author is toPosts' to find.
func (s *Sandbox) toPost(r row) platform.Post {
	p := platform.Post{
		ID:             strconv.FormatInt(r.ID, 10),
		ConversationID: strconv.FormatInt(r.ConversationID, 10),
		Text:           r.Text,
		Language:       post.Language(r.Lang),
		Author:         platform.User{ID: "user:" + r.AuthorUsername, Username: r.AuthorUsername, Name: r.AuthorName},
		CreatedAt:      r.CreatedAt,
		Metrics:        platform.Metrics{Likes: r.Likes, Retweets: r.Retweets, Replies: r.Replies},
	}
	if r.Kind == "persona" {
		p.Author.ID = personaID
	}
	for _, m := range mentionPattern.FindAllStringSubmatch(r.Text, -1) {
		u := platform.User{Username: m[1]}
		if strings.EqualFold(m[1], s.persona) {
			u.ID = personaID
		} else {
			u.ID = "user:" + m[1]
		}
		p.Mentions = append(p.Mentions, u)
	}
	if r.InReplyToID != 0 {
		p.InReplyToID = strconv.FormatInt(r.InReplyToID, 10)
	}
	if r.QuotedID != 0 {
		p.QuotedID = strconv.FormatInt(r.QuotedID, 10)
	}
	return p
}

// parseID reads a sandbox post id; anything else is 0.
func parseID(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
