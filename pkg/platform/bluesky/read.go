package bluesky

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	comatproto "github.com/bluesky-social/indigo/api/atproto"
	"github.com/bluesky-social/indigo/api/bsky"
	lexutil "github.com/bluesky-social/indigo/lex/util"

	"infernal/pkg/platform"
	"infernal/pkg/post"
)

const (
	// maxPages bounds how many pages of one timeline a single read follows.
	maxPages = 5
	// pageSize is the limit of listNotifications, getAuthorFeed and
	// searchPosts (Bluesky allows 1 to 100).
	pageSize = 100
	// lookupBatch is how many uris app.bsky.feed.getPosts accepts at once.
	lookupBatch = 25
	// ThreadDepth is how many ancestors of a mention are read with it
	// (getPostThread's parentHeight), the depth cap of its context.
	ThreadDepth = 10
)

// mentionReasons are the notifications that may call for a reply. A quote
// that also mentions the persona comes as "mention" only, so the kind is
// read from the record (reply refs, embed), never from the reason.
var mentionReasons = []string{"mention", "reply", "quote"}

// Key is the bound of a timeline read that post p, indexed at indexedAt,
// stands at: "<indexedAt, UTC, to the microsecond> <uri>", which sorts as
// the AppView indexed the posts.
func Key(indexedAt, uri string) string {
	if t, err := time.Parse(time.RFC3339Nano, indexedAt); err == nil {
		indexedAt = t.UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	return indexedAt + " " + uri
}

// inRange reports whether key lies within r (both bounds exclusive).
func inRange(key string, r platform.Range) bool {
	return (r.SinceID == "" || key > r.SinceID) && (r.UntilID == "" || key < r.UntilID)
}

// Me returns the persona's own account (app.bsky.actor.getProfile of the
// session's DID).
func (c *Client) Me(ctx context.Context) (platform.User, error) {
	did, err := c.session.DID(ctx, c.api.Client)
	if err != nil {
		return platform.User{}, fmt.Errorf("bluesky: me: %w", toPlatform(err))
	}
	u, err := c.profile(ctx, did)
	if err != nil {
		return platform.User{}, fmt.Errorf("bluesky: me: %w", err)
	}
	return u, nil
}

// UserByUsername looks an account up by its handle (a domain) or DID, with
// or without the @. An unknown account gives a *platform.Error with Status 400
// or 404, as the AppView answers.
func (c *Client) UserByUsername(ctx context.Context, username string) (platform.User, error) {
	name := strings.TrimPrefix(strings.TrimSpace(username), "@")
	if name == "" {
		return platform.User{}, errors.New("bluesky: user by username: empty username")
	}
	u, err := c.profile(ctx, name)
	if err != nil {
		return platform.User{}, fmt.Errorf("bluesky: user @%s: %w", name, err)
	}
	return u, nil
}

func (c *Client) profile(ctx context.Context, actor string) (platform.User, error) {
	p, err := bsky.ActorGetProfile(ctx, c.api, actor)
	if err != nil {
		return platform.User{}, toPlatform(err)
	}
	return platform.User{ID: p.Did, Username: p.Handle, Name: deref(p.DisplayName), ProfileImage: deref(p.Avatar)}, nil
}

// Mentions returns the posts that mention, answer or quote the persona
// within r, newest first (app.bsky.notification.listNotifications, following
// its cursor for at most five pages of 100). userID must be the persona's
// DID: Bluesky lists only the session's own notifications. Included holds
// each post's ancestors (getPostThread, up to ThreadDepth) and quoted posts.
func (c *Client) Mentions(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	did, err := c.session.DID(ctx, c.api.Client)
	if err != nil {
		return platform.Page{}, fmt.Errorf("bluesky: mentions: %w", toPlatform(err))
	}
	if userID != did {
		return platform.Page{}, fmt.Errorf("bluesky: mentions of %q: only the persona's own (%s) can be listed", userID, did)
	}
	var page platform.Page
	cursor := ""
	for range maxPages {
		out, err := bsky.NotificationListNotifications(ctx, c.api, cursor, pageSize, false, mentionReasons, "")
		if err != nil {
			return platform.Page{}, fmt.Errorf("bluesky: mentions: %w", toPlatform(err))
		}
		reached := false
		for _, n := range out.Notifications {
			key := Key(n.IndexedAt, n.Uri)
			if r.SinceID != "" && key <= r.SinceID {
				reached = true
				continue
			}
			if !inRange(key, r) {
				continue
			}
			if page.NewestID == "" || key > page.NewestID {
				page.NewestID = key
			}
			if page.OldestID == "" || key < page.OldestID {
				page.OldestID = key
			}
			rec := feedPost(n.Record)
			if rec == nil || n.Author == nil || hidden(n.Labels) || hidden(n.Author.Labels) || blocked(n.Author.Viewer) {
				continue
			}
			author := platform.User{ID: n.Author.Did, Username: n.Author.Handle, Name: deref(n.Author.DisplayName), ProfileImage: deref(n.Author.Avatar)}
			page.Posts = append(page.Posts, fromRecord(n.Uri, rec, author))
		}
		next := deref(out.Cursor)
		if reached || next == "" || len(out.Notifications) == 0 {
			page.More = false
			break
		}
		cursor = next
		page.More = true
	}
	if page.Included, err = c.context(ctx, page.Posts); err != nil {
		return platform.Page{}, fmt.Errorf("bluesky: mentions: %w", err)
	}
	return page, nil
}

// context reads the ancestors (up to ThreadDepth, one getPostThread a post)
// and the quoted posts of posts.
func (c *Client) context(ctx context.Context, posts []platform.Post) ([]platform.Post, error) {
	var (
		out    []platform.Post
		seen   = map[string]bool{}
		quoted []string
	)
	for _, p := range posts {
		seen[p.ID] = true
	}
	for _, p := range posts {
		if p.QuotedID != "" && !seen[p.QuotedID] {
			seen[p.QuotedID] = true
			quoted = append(quoted, p.QuotedID)
		}
		if p.InReplyToID == "" || seen[p.InReplyToID] {
			continue
		}
		ancestors, err := c.Ancestors(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, a := range ancestors {
			if !seen[a.ID] {
				seen[a.ID] = true
				out = append(out, a)
			}
		}
	}
	q, err := c.Lookup(ctx, quoted)
	if err != nil {
		return nil, err
	}
	return append(out, q...), nil
}

// Ancestors returns the posts uri answers, parent first, up to ThreadDepth
// (app.bsky.feed.getPostThread with parentHeight). A deleted or blocked
// ancestor ends the chain; a post that is gone itself gives none.
func (c *Client) Ancestors(ctx context.Context, uri string) ([]platform.Post, error) {
	out, err := bsky.FeedGetPostThread(ctx, c.api, 0, ThreadDepth, uri)
	if err != nil {
		var pe *platform.Error
		if errors.As(toPlatform(err), &pe) && pe.Title == "NotFound" {
			return nil, nil
		}
		return nil, fmt.Errorf("thread of %s: %w", uri, toPlatform(err))
	}
	if out.Thread == nil || out.Thread.FeedDefs_ThreadViewPost == nil {
		return nil, nil
	}
	var chain []platform.Post
	for p := out.Thread.FeedDefs_ThreadViewPost.Parent; p != nil && p.FeedDefs_ThreadViewPost != nil; p = p.FeedDefs_ThreadViewPost.Parent {
		if post, ok := fromView(p.FeedDefs_ThreadViewPost.Post); ok {
			chain = append(chain, post)
		}
	}
	return chain, nil
}

// Search returns recent posts matching query within r, newest first
// (app.bsky.feed.searchPosts, sort latest), with the same five-page bound.
func (c *Client) Search(ctx context.Context, query string, r platform.Range) (platform.Page, error) {
	if strings.TrimSpace(query) == "" {
		return platform.Page{}, errors.New("bluesky: search: empty query")
	}
	page, err := c.feed(ctx, r, func(cursor string) ([]*bsky.FeedDefs_PostView, string, error) {
		out, err := bsky.FeedSearchPosts(ctx, c.api, "", cursor, "", "", pageSize, "", query, "", "latest", nil, "", "")
		if err != nil {
			return nil, "", err
		}
		return out.Posts, deref(out.Cursor), nil
	})
	if err != nil {
		return platform.Page{}, fmt.Errorf("bluesky: search %q: %w", query, err)
	}
	return page, nil
}

// UserPosts returns userID's own posts within r, newest first
// (app.bsky.feed.getAuthorFeed with replies, reposts left out).
func (c *Client) UserPosts(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	if strings.TrimSpace(userID) == "" {
		return platform.Page{}, errors.New("bluesky: user posts: empty user id")
	}
	page, err := c.feed(ctx, r, c.authorFeed(ctx, userID))
	if err != nil {
		return platform.Page{}, fmt.Errorf("bluesky: posts of %s: %w", userID, err)
	}
	return page, nil
}

// authorFeed reads pages of actor's own posts (getAuthorFeed; reposts,
// which carry a reason, and posts of others are left out).
func (c *Client) authorFeed(ctx context.Context, actor string) func(cursor string) ([]*bsky.FeedDefs_PostView, string, error) {
	return func(cursor string) ([]*bsky.FeedDefs_PostView, string, error) {
		out, err := bsky.FeedGetAuthorFeed(ctx, c.api, actor, cursor, "posts_with_replies", false, pageSize)
		if err != nil {
			return nil, "", err
		}
		var posts []*bsky.FeedDefs_PostView
		for _, item := range out.Feed {
			if item.Reason != nil || item.Post == nil || item.Post.Author == nil {
				continue
			}
			if item.Post.Author.Did != actor && !strings.EqualFold(item.Post.Author.Handle, actor) {
				continue
			}
			posts = append(posts, item.Post)
		}
		if len(out.Feed) == 0 {
			return posts, "", nil
		}
		return posts, deref(out.Cursor), nil
	}
}

// feed follows a paged read of post views for at most maxPages pages and
// keeps the posts within r, newest first.
func (c *Client) feed(ctx context.Context, r platform.Range, read func(cursor string) ([]*bsky.FeedDefs_PostView, string, error)) (platform.Page, error) {
	var page platform.Page
	cursor := ""
	for range maxPages {
		if err := ctx.Err(); err != nil {
			return platform.Page{}, err
		}
		views, next, err := read(cursor)
		if err != nil {
			return platform.Page{}, toPlatform(err)
		}
		reached := false
		for _, v := range views {
			key := Key(v.IndexedAt, v.Uri)
			if r.SinceID != "" && key <= r.SinceID {
				reached = true
				continue
			}
			if !inRange(key, r) {
				continue
			}
			post, ok := fromView(v)
			if !ok {
				continue
			}
			if page.NewestID == "" || key > page.NewestID {
				page.NewestID = key
			}
			if page.OldestID == "" || key < page.OldestID {
				page.OldestID = key
			}
			page.Posts = append(page.Posts, post)
		}
		if reached || next == "" {
			page.More = false
			break
		}
		cursor = next
		page.More = true
	}
	return page, nil
}

// FindPublished looks through authorID's recent posts for one that replies
// to inReplyToID or, when it is empty, a standalone post with exactly text.
func (c *Client) FindPublished(ctx context.Context, authorID, inReplyToID, text string) (platform.Post, bool, error) {
	if strings.TrimSpace(authorID) == "" {
		return platform.Post{}, false, errors.New("bluesky: find published: empty author id")
	}
	read := c.authorFeed(ctx, authorID)
	cursor := ""
	for range maxPages {
		views, next, err := read(cursor)
		if err != nil {
			return platform.Post{}, false, fmt.Errorf("bluesky: find published by %s: %w", authorID, toPlatform(err))
		}
		for _, v := range views {
			p, ok := fromView(v)
			if !ok {
				continue
			}
			if (inReplyToID != "" && p.InReplyToID == inReplyToID) || (inReplyToID == "" && p.InReplyToID == "" && p.Text == text) {
				return p, true, nil
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return platform.Post{}, false, nil
}

// Lookup returns the posts of ids (app.bsky.feed.getPosts, 25 a call);
// deleted, blocked or hidden posts are absent.
func (c *Client) Lookup(ctx context.Context, ids []string) ([]platform.Post, error) {
	views, err := c.views(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("bluesky: lookup: %w", err)
	}
	var out []platform.Post
	for _, v := range views {
		if p, ok := fromView(v); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Metrics returns the public counters of ids; posts no longer shown are absent.
func (c *Client) Metrics(ctx context.Context, ids []string) (map[string]platform.Metrics, error) {
	views, err := c.views(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("bluesky: metrics: %w", err)
	}
	out := make(map[string]platform.Metrics, len(views))
	for _, v := range views {
		out[v.Uri] = platform.Metrics{Likes: int(derefInt(v.LikeCount)), Retweets: int(derefInt(v.RepostCount)), Replies: int(derefInt(v.ReplyCount))}
	}
	return out, nil
}

// views reads the post views of ids, 25 a call, skipping what is not an AT URI.
func (c *Client) views(ctx context.Context, ids []string) ([]*bsky.FeedDefs_PostView, error) {
	var uniq []string
	for _, id := range ids {
		if strings.HasPrefix(id, "at://") && !slices.Contains(uniq, id) {
			uniq = append(uniq, id)
		}
	}
	var out []*bsky.FeedDefs_PostView
	for batch := range slices.Chunk(uniq, lookupBatch) {
		res, err := bsky.FeedGetPosts(ctx, c.api, batch)
		if err != nil {
			return nil, toPlatform(err)
		}
		out = append(out, res.Posts...)
	}
	return out, nil
}

// feedPost is the post record d holds, nil when it holds something else.
func feedPost(d *lexutil.LexiconTypeDecoder) *bsky.FeedPost {
	if d == nil {
		return nil
	}
	p, _ := d.Val.(*bsky.FeedPost)
	return p
}

// fromView converts a post view; ok is false for a post the persona must
// not see or answer (hidden by a label, or its author blocks or is blocked).
func fromView(v *bsky.FeedDefs_PostView) (platform.Post, bool) {
	if v == nil || v.Author == nil {
		return platform.Post{}, false
	}
	rec := feedPost(v.Record)
	if rec == nil || hidden(v.Labels) || hidden(v.Author.Labels) || blocked(v.Author.Viewer) {
		return platform.Post{}, false
	}
	author := platform.User{ID: v.Author.Did, Username: v.Author.Handle, Name: deref(v.Author.DisplayName), ProfileImage: deref(v.Author.Avatar)}
	p := fromRecord(v.Uri, rec, author)
	p.Metrics = platform.Metrics{Likes: int(derefInt(v.LikeCount)), Retweets: int(derefInt(v.RepostCount)), Replies: int(derefInt(v.ReplyCount))}
	p.Media, p.Link = embedded(v.Embed)
	for _, m := range p.Media {
		if m.Type == platform.MediaPhoto && p.MediaURL == "" {
			p.MediaURL = m.PreviewURL
		}
	}
	return p, true
}

// embedded reads a post view's media and link card: the images of an
// images view (fullsize, thumb, alt), a video's thumbnail, an external
// view's card (uri, title, description), and the same inside a record with
// media (a quote with images or a link); at most platform.MaxMedia media.
func embedded(e *bsky.FeedDefs_PostView_Embed) ([]platform.Media, *platform.Link) {
	if e == nil {
		return nil, nil
	}
	var (
		images   = e.EmbedImages_View
		video    = e.EmbedVideo_View
		external = e.EmbedExternal_View
	)
	if rm := e.EmbedRecordWithMedia_View; rm != nil && rm.Media != nil {
		images, video, external = rm.Media.EmbedImages_View, rm.Media.EmbedVideo_View, rm.Media.EmbedExternal_View
	}
	var media []platform.Media
	if images != nil {
		for _, img := range images.Images {
			if img == nil || (img.Fullsize == "" && img.Thumb == "") || len(media) == platform.MaxMedia {
				continue
			}
			media = append(media, platform.Media{Type: platform.MediaPhoto, URL: img.Fullsize, PreviewURL: img.Thumb, Alt: img.Alt})
		}
	}
	if video != nil && video.Thumbnail != nil && *video.Thumbnail != "" {
		media = append(media, platform.Media{Type: platform.MediaVideo, PreviewURL: *video.Thumbnail, Alt: deref(video.Alt)})
	}
	var link *platform.Link
	if external != nil && external.External != nil && external.External.Uri != "" {
		x := external.External
		link = &platform.Link{URL: x.Uri, Title: x.Title, Description: x.Description}
	}
	return media, link
}

// fromRecord converts a post record at uri by author.
func fromRecord(uri string, rec *bsky.FeedPost, author platform.User) platform.Post {
	p := platform.Post{ID: uri, ConversationID: uri, Text: rec.Text, Author: author}
	// The record's langs are its author's, first the main one (BCP 47).
	if len(rec.Langs) > 0 {
		p.Language = post.Language(rec.Langs[0])
	}
	if t, err := time.Parse(time.RFC3339Nano, rec.CreatedAt); err == nil {
		p.CreatedAt = t.UTC()
	}
	if rec.Reply != nil && rec.Reply.Parent != nil {
		p.InReplyToID = rec.Reply.Parent.Uri
		p.ConversationID = rec.Reply.Parent.Uri
		if rec.Reply.Root != nil {
			p.ConversationID = rec.Reply.Root.Uri
		}
	}
	if ref := quotedRef(rec); ref != nil {
		p.QuotedID = ref.Uri
		p.QuotedAuthorID = authorityOf(ref.Uri)
	}
	for _, f := range rec.Facets {
		if f == nil || f.Index == nil {
			continue
		}
		for _, feat := range f.Features {
			if feat == nil || feat.RichtextFacet_Mention == nil {
				continue
			}
			m := platform.User{ID: feat.RichtextFacet_Mention.Did}
			// The facet's bytes are the handle as written, with its @.
			if s, e := int(f.Index.ByteStart), int(f.Index.ByteEnd); s >= 0 && s < e && e <= len(rec.Text) {
				m.Username = strings.TrimPrefix(rec.Text[s:e], "@")
			}
			p.Mentions = append(p.Mentions, m)
		}
	}
	return p
}

// quotedRef is the record a post quotes (embed record, or record with media).
func quotedRef(rec *bsky.FeedPost) *comatproto.RepoStrongRef {
	if rec.Embed == nil {
		return nil
	}
	if e := rec.Embed.EmbedRecord; e != nil {
		return e.Record
	}
	if e := rec.Embed.EmbedRecordWithMedia; e != nil && e.Record != nil {
		return e.Record.Record
	}
	return nil
}

// authorityOf is the DID (or handle) an AT URI names, "" for another string.
func authorityOf(uri string) string {
	rest, ok := strings.CutPrefix(uri, "at://")
	if !ok {
		return ""
	}
	did, _, _ := strings.Cut(rest, "/")
	return did
}

// hiddenLabels are the label values that hide a post or an account from
// everyone: Bluesky's own moderation (takedowns and !hide).
var hiddenLabels = []string{"!hide", "!takedown", "!suspend"}

func hidden(labels []*comatproto.LabelDefs_Label) bool {
	for _, l := range labels {
		if l != nil && (l.Neg == nil || !*l.Neg) && slices.Contains(hiddenLabels, l.Val) {
			return true
		}
	}
	return false
}

// blocked reports whether the author and the persona block each other.
func blocked(v *bsky.ActorDefs_ViewerState) bool {
	return v != nil && ((v.BlockedBy != nil && *v.BlockedBy) || v.Blocking != nil || v.BlockingByList != nil)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// notFound is the refusal for a post that is gone or not visible, in the
// words platform.Classify reads as RefusalOriginalGone.
func notFound(uri string) *platform.Error {
	return &platform.Error{Status: http.StatusNotFound, Title: "NotFound", Detail: "the post " + uri + " was deleted or not visible"}
}
