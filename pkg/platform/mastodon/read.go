package mastodon

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/post"
)

// account is Mastodon's Account entity, as far as the client reads it.
type account struct {
	ID          string `json:"id"`
	Username    string `json:"username"`
	Acct        string `json:"acct"`
	DisplayName string `json:"display_name"`
	Avatar      string `json:"avatar"`
}

// mention is a Status's mentions[] item.
type mention struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Acct     string `json:"acct"`
}

// attachment is Mastodon's MediaAttachment entity, as far as the client
// reads it: type is image, gifv, video, audio or unknown; url the file
// (an MP4 for gifv and video), preview_url a still of it, description
// the author's alt text (null when none).
type attachment struct {
	Type        string `json:"type"`
	URL         string `json:"url"`
	PreviewURL  string `json:"preview_url"`
	Description string `json:"description"`
}

// card is Mastodon's PreviewCard entity (a Status's card, null when its
// links have none), as far as the client reads it.
type card struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// status is Mastodon's Status entity, as far as the client reads it.
type status struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	// URL is the status's HTML page (null for some remote statuses).
	URL              string       `json:"url"`
	InReplyToID      *string      `json:"in_reply_to_id"`
	Visibility       string       `json:"visibility"`
	SpoilerText      string       `json:"spoiler_text"`
	Language         *string      `json:"language"`
	Content          string       `json:"content"`
	Account          account      `json:"account"`
	Reblog           *status      `json:"reblog"`
	Mentions         []mention    `json:"mentions"`
	RepliesCount     int          `json:"replies_count"`
	ReblogsCount     int          `json:"reblogs_count"`
	FavouritesCount  int          `json:"favourites_count"`
	MediaAttachments []attachment `json:"media_attachments"`
	Card             *card        `json:"card"`
}

// notification is Mastodon's Notification entity.
type notification struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Account account `json:"account"`
	Status  *status `json:"status"`
}

func (a account) user() platform.User {
	return platform.User{ID: a.ID, Username: a.Acct, Name: cmpOr(a.DisplayName, a.Username), ProfileImage: a.Avatar}
}

// toPost is a status as the pipeline reads it: its visible text, its
// content warning apart, its language (ISO 639, null when unknown), its page, its media and link card, and its
// thread's root as conversation when root is known.
func toPost(s status, root string) platform.Post {
	p := platform.Post{ID: s.ID, Text: Text(s.Content), ContentWarning: s.SpoilerText, WebURL: s.URL,
		Author: s.Account.user(), CreatedAt: s.CreatedAt,
		Metrics:        platform.Metrics{Likes: s.FavouritesCount, Retweets: s.ReblogsCount, Replies: s.RepliesCount},
		ConversationID: s.ID, Media: media(s.MediaAttachments)}
	if s.InReplyToID != nil {
		p.InReplyToID = *s.InReplyToID
	}
	if s.Language != nil {
		p.Language = post.Language(*s.Language)
	}
	if root != "" {
		p.ConversationID = root
	}
	for _, m := range s.Mentions {
		p.Mentions = append(p.Mentions, platform.User{ID: m.ID, Username: m.Acct})
	}
	for _, m := range p.Media {
		if m.Type == platform.MediaPhoto {
			p.MediaURL = m.Image()
			break
		}
	}
	if s.Card != nil && s.Card.URL != "" {
		p.Link = &platform.Link{URL: s.Card.URL, Title: s.Card.Title, Description: s.Card.Description}
	}
	return p
}

// media are a status's attachments as the pipeline keeps them, in their
// order, at most platform.MaxMedia: an image is a photo (its file and its
// preview); a gifv (a looping MP4) a GIF and a video a video, each by its
// still alone, since the admin shows images; audio and unknown files,
// which show nothing, are left out. The description is the alt text.
func media(atts []attachment) []platform.Media {
	var out []platform.Media
	for _, a := range atts {
		if len(out) == platform.MaxMedia {
			break
		}
		m := platform.Media{PreviewURL: a.PreviewURL, Alt: a.Description}
		switch a.Type {
		case "image":
			m.Type, m.URL = platform.MediaPhoto, a.URL
		case "gifv":
			m.Type = platform.MediaGIF
		case "video":
			m.Type = platform.MediaVideo
		default:
			continue
		}
		if m.URL == "" && m.PreviewURL == "" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Me returns the persona's own account.
func (c *Client) Me(ctx context.Context) (platform.User, error) {
	var a account
	if _, err := c.call(ctx, "GET", "/api/v1/accounts/verify_credentials", nil, nil, nil, &a); err != nil {
		return platform.User{}, err
	}
	return a.user(), nil
}

// newer reports whether id a is newer than b: Mastodon's ids are numbers
// in decimal, compared by length, then digit by digit.
func newer(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// linkNext is the rel="next" address of a Link header.
var linkNext = regexp.MustCompile(`<([^>]+)>;\s*rel="next"`)

// Mentions reads the persona's mention notifications within r, newest
// first, following the Link header's next pages so that a burst is not
// cut off (up to maxPages). The cursor is the notifications' own ids
// (since_id, max_id); boosts, favourites and follows are never asked
// for, and a direct mention is left out unless ReplyToDirect says yes at
// the read (Page.Withheld, ReasonDirect).
func (c *Client) Mentions(ctx context.Context, _ string, r platform.Range) (platform.Page, error) {
	q := url.Values{"types[]": {"mention"}, "limit": {"40"}}
	if r.SinceID != "" {
		q.Set("since_id", r.SinceID)
	}
	if r.UntilID != "" {
		q.Set("max_id", r.UntilID)
	}
	direct, err := c.directAllowed(ctx)
	if err != nil {
		return platform.Page{}, err
	}
	var page platform.Page
	var ns []notification
	h, err := c.call(ctx, "GET", "/api/v1/notifications", q, nil, nil, &ns)
	for pages := 1; ; pages++ {
		if err != nil {
			return platform.Page{}, err
		}
		reached := false
		for _, n := range ns {
			if r.SinceID != "" && !newer(n.ID, r.SinceID) {
				reached = true
				continue
			}
			if page.NewestID == "" || newer(n.ID, page.NewestID) {
				page.NewestID = n.ID
			}
			if page.OldestID == "" || newer(page.OldestID, n.ID) {
				page.OldestID = n.ID
			}
			if n.Type != "mention" || n.Status == nil {
				continue
			}
			if n.Status.Visibility == "direct" && !direct {
				// Kept in the scan's ledger, skipped, never drafted.
				page.Withheld = append(page.Withheld, platform.Withheld{ID: n.Status.ID, Reason: ReasonDirect})
				continue
			}
			p, err := c.withRoot(ctx, *n.Status)
			if err != nil {
				return platform.Page{}, err
			}
			page.Posts = append(page.Posts, p)
		}
		m := linkNext.FindStringSubmatch(h.Get("Link"))
		if reached || len(ns) < pageSize || m == nil {
			return page, nil
		}
		if pages == maxPages {
			page.More = true
			return page, nil
		}
		next, perr := url.Parse(m[1])
		if perr != nil || next.Host != c.server.Host {
			// A next page on another host is never followed with the token.
			return page, nil
		}
		ns = nil
		h, err = c.callURL(ctx, "GET", next.String(), "/api/v1/notifications", nil, nil, &ns)
	}
}

// context is a status's thread (GET /api/v1/statuses/:id/context).
type threadContext struct {
	Ancestors   []status `json:"ancestors"`
	Descendants []status `json:"descendants"`
}

// withRoot is s with its thread's root as conversation: the first of its
// ancestors, read from its context, when it answers another status.
func (c *Client) withRoot(ctx context.Context, s status) (platform.Post, error) {
	if s.InReplyToID == nil || *s.InReplyToID == "" {
		return toPost(s, ""), nil
	}
	var tc threadContext
	if _, err := c.call(ctx, "GET", "/api/v1/statuses/"+url.PathEscape(s.ID)+"/context", nil, nil, nil, &tc); err != nil {
		if platform.Classify(err) == platform.RefusalOriginalGone {
			return toPost(s, *s.InReplyToID), nil
		}
		return platform.Post{}, err
	}
	root := *s.InReplyToID
	if len(tc.Ancestors) > 0 {
		root = tc.Ancestors[0].ID
	}
	return toPost(s, root), nil
}

// status reads one status; found is false when it is gone or not visible.
func (c *Client) status(ctx context.Context, id string) (s status, found bool, err error) {
	_, err = c.call(ctx, "GET", "/api/v1/statuses/"+url.PathEscape(id), nil, nil, nil, &s)
	if platform.Classify(err) == platform.RefusalOriginalGone {
		return status{}, false, nil
	}
	return s, err == nil, err
}

// Lookup reads the statuses of ids, each once, with their thread's root;
// the ones gone or not visible are absent.
func (c *Client) Lookup(ctx context.Context, ids []string) ([]platform.Post, error) {
	var out []platform.Post
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || strings.Trim(id, "0123456789") != "" || id == "" {
			continue
		}
		seen[id] = true
		s, found, err := c.status(ctx, id)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		p, err := c.withRoot(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Metrics returns the counters of the statuses of ids still visible.
func (c *Client) Metrics(ctx context.Context, ids []string) (map[string]platform.Metrics, error) {
	out := map[string]platform.Metrics{}
	for _, id := range ids {
		s, found, err := c.status(ctx, id)
		if err != nil {
			return nil, err
		}
		if found {
			out[id] = toPost(s, "").Metrics
		}
	}
	return out, nil
}

// statusPage reads a list of statuses within r, newest first, leaving
// boosts out (their ids in Reposts).
func (c *Client) statusPage(ctx context.Context, path string, q url.Values, r platform.Range) (platform.Page, error) {
	if r.SinceID != "" {
		q.Set("since_id", r.SinceID)
	}
	if r.UntilID != "" {
		q.Set("max_id", r.UntilID)
	}
	q.Set("limit", "40")
	var list []status
	if _, err := c.call(ctx, "GET", path, q, nil, nil, &list); err != nil {
		return platform.Page{}, err
	}
	var page platform.Page
	for _, s := range list {
		if page.NewestID == "" || newer(s.ID, page.NewestID) {
			page.NewestID = s.ID
		}
		if page.OldestID == "" || newer(page.OldestID, s.ID) {
			page.OldestID = s.ID
		}
		if s.Reblog != nil {
			page.Reposts = append(page.Reposts, s.ID)
			continue
		}
		page.Posts = append(page.Posts, toPost(s, ""))
	}
	page.More = len(list) == pageSize
	return page, nil
}

// UserPosts reads an account's own recent statuses within r.
func (c *Client) UserPosts(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	return c.statusPage(ctx, "/api/v1/accounts/"+url.PathEscape(userID)+"/statuses", url.Values{"exclude_reblogs": {"true"}}, r)
}

// Search reads the statuses matching query within r (GET /api/v2/search,
// type statuses; what a server indexes is its own choice).
func (c *Client) Search(ctx context.Context, query string, r platform.Range) (platform.Page, error) {
	var res struct {
		Statuses []status `json:"statuses"`
	}
	q := url.Values{"q": {query}, "type": {"statuses"}, "limit": {"40"}}
	if r.SinceID != "" {
		q.Set("min_id", r.SinceID)
	}
	if r.UntilID != "" {
		q.Set("max_id", r.UntilID)
	}
	if _, err := c.call(ctx, "GET", "/api/v2/search", q, nil, nil, &res); err != nil {
		return platform.Page{}, err
	}
	var page platform.Page
	for _, s := range res.Statuses {
		if page.NewestID == "" || newer(s.ID, page.NewestID) {
			page.NewestID = s.ID
		}
		if page.OldestID == "" || newer(page.OldestID, s.ID) {
			page.OldestID = s.ID
		}
		page.Posts = append(page.Posts, toPost(s, ""))
	}
	return page, nil
}

// UserByUsername looks an account up by its acct (user or user@domain).
func (c *Client) UserByUsername(ctx context.Context, username string) (platform.User, error) {
	var a account
	if _, err := c.call(ctx, "GET", "/api/v1/accounts/lookup", url.Values{"acct": {strings.TrimPrefix(username, "@")}}, nil, nil, &a); err != nil {
		return platform.User{}, err
	}
	return a.user(), nil
}
