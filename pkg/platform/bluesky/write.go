package bluesky

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	comatproto "github.com/bluesky-social/indigo/api/atproto"
	"github.com/bluesky-social/indigo/api/bsky"
	"github.com/bluesky-social/indigo/atproto/syntax"
	"github.com/rivo/uniseg"

	"infernal/pkg/platform"
)

// MaxLength is Bluesky's limit on a post's text, in graphemes.
const MaxLength = 300

// Length counts text as Bluesky's limit does: in extended grapheme clusters.
func Length(text string) int { return uniseg.GraphemeClusterCount(text) }

// postCollection is the collection of posts.
const postCollection = "app.bsky.feed.post"

// NewPublishKey chooses the record key (a TID) of a post about to be sent.
// Stored with the send before its first attempt, it makes every retry write
// the same record (see PublishKeyed).
func (c *Client) NewPublishKey() string {
	return syntax.NewTIDFromTime(c.now(), c.clockID).String()
}

// Publish posts text, as a reply to inReplyToID when it is not empty, under
// a key chosen now. A caller that may retry uses PublishKeyed instead.
func (c *Client) Publish(ctx context.Context, text, inReplyToID string) (platform.Post, error) {
	return c.PublishKeyed(ctx, c.NewPublishKey(), text, inReplyToID)
}

// putRecordInput is com.atproto.repo.putRecord's input. SwapRecord is sent
// as null: the write succeeds only where no record is at the key yet, and an
// identical record already there answers 200 with the same uri and cid.
type putRecordInput struct {
	Repo       string         `json:"repo"`
	Collection string         `json:"collection"`
	Rkey       string         `json:"rkey"`
	Record     *bsky.FeedPost `json:"record"`
	SwapRecord *string        `json:"swapRecord"`
}

type putRecordOutput struct {
	URI string `json:"uri"`
	CID string `json:"cid"`
}

// PublishKeyed posts text under record key key (a TID from NewPublishKey),
// exactly once however often it is retried: the record's createdAt is the
// key's own time, so a resend is byte for byte the same record, which the
// PDS answers with the same uri; a different record at the key is refused
// (400 InvalidSwap). A reply carries the parent's and the thread root's
// strong references; a reply the thread's gate does not allow is refused
// before anything is written.
func (c *Client) PublishKeyed(ctx context.Context, key, text, inReplyToID string) (platform.Post, error) {
	tid, err := syntax.ParseTID(key)
	if err != nil {
		return platform.Post{}, fmt.Errorf("bluesky: publish: record key %q: %w", key, err)
	}
	if n := Length(text); n > MaxLength {
		return platform.Post{}, fmt.Errorf("bluesky: publish: %w", &platform.Error{Status: http.StatusBadRequest, Title: "InvalidRequest",
			Detail: fmt.Sprintf("the text is %d graphemes; Bluesky allows %d", n, MaxLength)})
	}
	did, err := c.session.DID(ctx, c.api.Client)
	if err != nil {
		return platform.Post{}, fmt.Errorf("bluesky: publish: %w", toPlatform(err))
	}
	rec := &bsky.FeedPost{
		LexiconTypeID: postCollection,
		Text:          text,
		CreatedAt:     tid.Time().UTC().Format("2006-01-02T15:04:05.000000Z"),
	}
	conversation := ""
	if inReplyToID != "" {
		ref, err := c.replyRef(ctx, inReplyToID)
		if err != nil {
			return platform.Post{}, fmt.Errorf("bluesky: publish: reply to %s: %w", inReplyToID, err)
		}
		rec.Reply = ref
		conversation = ref.Root.Uri
	}
	if rec.Facets, err = c.facets(ctx, text); err != nil {
		return platform.Post{}, fmt.Errorf("bluesky: publish: %w", err)
	}
	var out putRecordOutput
	in := putRecordInput{Repo: did, Collection: postCollection, Rkey: key, Record: rec}
	if err := c.api.Post(ctx, "com.atproto.repo.putRecord", in, &out); err != nil {
		err = toPlatform(err)
		var pe *platform.Error
		if errors.As(err, &pe) && pe.Title == "InvalidSwap" {
			pe.Detail = "a different record already holds this post's key " + key + " (the text changed between two attempts?): " + pe.Detail
		}
		return platform.Post{}, fmt.Errorf("bluesky: publish: %w", err)
	}
	if conversation == "" {
		conversation = out.URI
	}
	created, _ := time.Parse(time.RFC3339Nano, rec.CreatedAt) // formatted just above
	return platform.Post{ID: out.URI, ConversationID: conversation, InReplyToID: inReplyToID, Text: text, CreatedAt: created}, nil
}

// replyRef reads the post answered and returns the reply's references: the
// parent, and the root of its thread (the parent's own root, or the parent
// when it is a root). It refuses a post that is gone, hidden, whose author
// and the persona block each other, or whose threadgate does not let the
// persona reply (the AppView's viewer.replyDisabled).
func (c *Client) replyRef(ctx context.Context, parentURI string) (*bsky.FeedPost_ReplyRef, error) {
	views, err := c.views(ctx, []string{parentURI})
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, notFound(parentURI)
	}
	v := views[0]
	rec := feedPost(v.Record)
	if rec == nil || v.Author == nil || hidden(v.Labels) {
		return nil, notFound(parentURI)
	}
	if blocked(v.Author.Viewer) {
		return nil, &platform.Error{Status: http.StatusForbidden, Title: "BlockedActor",
			Detail: "its author and the persona block each other"}
	}
	if v.Viewer != nil && v.Viewer.ReplyDisabled != nil && *v.Viewer.ReplyDisabled {
		return nil, &platform.Error{Status: http.StatusForbidden, Title: "ReplyNotAllowed",
			Detail: "the thread's gate (threadgate) does not let the persona reply"}
	}
	parent := &comatproto.RepoStrongRef{Uri: v.Uri, Cid: v.Cid}
	root := parent
	if rec.Reply != nil && rec.Reply.Root != nil {
		root = &comatproto.RepoStrongRef{Uri: rec.Reply.Root.Uri, Cid: rec.Reply.Root.Cid}
	}
	return &bsky.FeedPost_ReplyRef{Parent: parent, Root: root}, nil
}

// mentionRe finds @handles (domains); linkRe finds http(s) links. Both
// as Bluesky's own apps detect them: a mention starts the text or follows
// white space or an opening parenthesis.
var (
	mentionRe = regexp.MustCompile(`(?:^|[\s(])(@[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)+)`)
	linkRe    = regexp.MustCompile(`https?://[^\s<>"]+`)
)

// Span is a facet's place in a text: UTF-8 byte offsets, end exclusive.
type Span struct {
	Start, End int
	// Value is the handle (without @) or the link.
	Value string
}

// MentionSpans finds the @handle mentions of text, with their byte offsets.
func MentionSpans(text string) []Span {
	var out []Span
	for _, m := range mentionRe.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[2], m[3]
		handle := strings.TrimRight(text[start+1:end], ".")
		end = start + 1 + len(handle)
		if _, err := syntax.ParseHandle(handle); err != nil {
			continue
		}
		out = append(out, Span{Start: start, End: end, Value: handle})
	}
	return out
}

// LinkSpans finds the http(s) links of text, with their byte offsets; a
// link's trailing punctuation is left out of it.
func LinkSpans(text string) []Span {
	var out []Span
	for _, m := range linkRe.FindAllStringIndex(text, -1) {
		link := strings.TrimRight(text[m[0]:m[1]], ".,;:!?")
		// A closing parenthesis the link does not open closes the text around it.
		for strings.HasSuffix(link, ")") && strings.Count(link, ")") > strings.Count(link, "(") {
			link = strings.TrimRight(strings.TrimSuffix(link, ")"), ".,;:!?")
		}
		out = append(out, Span{Start: m[0], End: m[0] + len(link), Value: link})
	}
	return out
}

// facets builds text's mention and link facets; a handle that resolves to
// no account is left as plain text.
func (c *Client) facets(ctx context.Context, text string) ([]*bsky.RichtextFacet, error) {
	var out []*bsky.RichtextFacet
	for _, s := range MentionSpans(text) {
		res, err := comatproto.IdentityResolveHandle(ctx, c.api, s.Value)
		if err != nil {
			var pe *platform.Error
			if errors.As(toPlatform(err), &pe) && pe.Status == http.StatusBadRequest {
				continue
			}
			return nil, fmt.Errorf("resolve @%s: %w", s.Value, toPlatform(err))
		}
		out = append(out, &bsky.RichtextFacet{
			Index:    &bsky.RichtextFacet_ByteSlice{ByteStart: int64(s.Start), ByteEnd: int64(s.End)},
			Features: []*bsky.RichtextFacet_Features_Elem{{RichtextFacet_Mention: &bsky.RichtextFacet_Mention{Did: res.Did}}},
		})
	}
	for _, s := range LinkSpans(text) {
		out = append(out, &bsky.RichtextFacet{
			Index:    &bsky.RichtextFacet_ByteSlice{ByteStart: int64(s.Start), ByteEnd: int64(s.End)},
			Features: []*bsky.RichtextFacet_Features_Elem{{RichtextFacet_Link: &bsky.RichtextFacet_Link{Uri: s.Value}}},
		})
	}
	return out, nil
}
