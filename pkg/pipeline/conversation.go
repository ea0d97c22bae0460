package pipeline

import (
	"context"
	"fmt"

	"infernal/pkg/conversation"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/writer"
)

// lookupFetcher reads a draft's missing context posts through the
// platform's Lookup (on X, GET /2/tweets?ids=, a billed post read each).
type lookupFetcher struct {
	platform platform.Platform
}

// Fetch looks ids up and answers them as context rows.
func (f lookupFetcher) Fetch(ctx context.Context, ids []string) ([]store.ContextPost, error) {
	posts, err := f.platform.Lookup(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("context lookup: %w", err)
	}
	out := make([]store.ContextPost, 0, len(posts))
	for _, p := range posts {
		out = append(out, contextRow(f.platform.Name(), p))
	}
	return out, nil
}

// contextRow is a post read from the platform as a context row.
func contextRow(platformName string, p platform.Post) store.ContextPost {
	cp := store.ContextPost{
		Platform: platformName, PlatformPostID: p.ID, ConversationID: p.ConversationID,
		InReplyToID: p.InReplyToID, QuotedID: p.QuotedID,
		AuthorID: p.Author.ID, AuthorUsername: p.Author.Username, AuthorName: p.Author.Name, Text: p.Text,
		ContentWarning: p.ContentWarning,
	}
	cp.Media, cp.Link = mediaOf(platformName, p)
	if !p.CreatedAt.IsZero() {
		t := p.CreatedAt
		cp.CreatedAt = &t
	}
	return cp
}

// writerContext is a gathered context as the writer takes it.
func writerContext(items []conversation.Item) []writer.ContextPost {
	if len(items) == 0 {
		return nil
	}
	out := make([]writer.ContextPost, len(items))
	for i, it := range items {
		out[i] = writer.ContextPost{Relation: writer.Relation(it.Relation), Author: it.AuthorUsername, Text: it.Text,
			Media: it.Media, Link: it.Link, ContentWarning: it.ContentWarning}
	}
	return out
}

// mediaOf is p's media and link card as kept: only http(s) addresses (https
// but on the sandbox, as for every URL the admin renders), at most
// post.MaxMedia media.
func mediaOf(platformName string, p platform.Post) ([]post.Media, *post.Link) {
	media := make([]post.Media, 0, len(p.Media))
	for _, m := range p.Media {
		media = append(media, post.Media{Type: m.Type, URL: m.URL, PreviewURL: m.PreviewURL, Alt: m.Alt})
	}
	var link *post.Link
	if p.Link != nil {
		link = &post.Link{URL: p.Link.URL, Title: p.Link.Title, Description: p.Link.Description}
	}
	httpOK := post.DescriptorOf(platformName).PlainHTTP
	return post.SafeMedia(media, httpOK), post.SafeLink(link, httpOK)
}
