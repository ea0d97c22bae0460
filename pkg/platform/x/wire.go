package x

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/upstream"
)

// The shapes below follow the X API v2 JSON documentation; fields the client
// does not use are left out.

// apiError is one entry of an "errors" array: a partial error inside a 200
// (v2: title, detail, type, resource_id...) or a v1-style {message, code}.
type apiError struct {
	Title        string `json:"title"`
	Detail       string `json:"detail"`
	Type         string `json:"type"`
	ResourceType string `json:"resource_type"`
	ResourceID   string `json:"resource_id"`
	Parameter    string `json:"parameter"`
	Message      string `json:"message"`
	Code         int    `json:"code"`
	// Parameters names the request parameters X found invalid, with their
	// values (a 400's "parameters": {"expansions": ["referenced_tweets.id"]}).
	Parameters map[string][]string `json:"parameters"`
}

// problem is the body of a refused request: an RFC 7807-like problem, with
// v1-style or parameter errors possibly listed under "errors".
type problem struct {
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Type   string `json:"type"`
	Status int    `json:"status"`
	// Reason is what X's 402 and usage-cap answers add (like "UsageCapExceeded").
	Reason string     `json:"reason"`
	Errors []apiError `json:"errors"`
}

type apiUser struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Username        string `json:"username"`
	ProfileImageURL string `json:"profile_image_url"`
}

func (u apiUser) user() platform.User {
	return platform.User{ID: u.ID, Username: u.Username, Name: u.Name, ProfileImage: u.ProfileImageURL}
}

type userResponse struct {
	Data   *apiUser   `json:"data"`
	Errors []apiError `json:"errors"`
}

type publicMetrics struct {
	RetweetCount int `json:"retweet_count"`
	ReplyCount   int `json:"reply_count"`
	LikeCount    int `json:"like_count"`
	QuoteCount   int `json:"quote_count"`
}

func (m publicMetrics) metrics() platform.Metrics {
	return platform.Metrics{Likes: m.LikeCount, Retweets: m.RetweetCount, Replies: m.ReplyCount}
}

type referencedTweet struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type tweet struct {
	ID             string `json:"id"`
	Text           string `json:"text"`
	AuthorID       string `json:"author_id"`
	ConversationID string `json:"conversation_id"`
	CreatedAt      string `json:"created_at"`
	// Lang is the language X detected, a BCP 47 tag ("und" when none).
	Lang             string            `json:"lang,omitempty"`
	PublicMetrics    publicMetrics     `json:"public_metrics"`
	ReferencedTweets []referencedTweet `json:"referenced_tweets"`
	// ReferencedPosts is ReferencedTweets as X's newest OpenAPI names it.
	ReferencedPosts []referencedTweet `json:"referenced_posts"`
	Attachments     struct {
		MediaKeys []string `json:"media_keys"`
	} `json:"attachments"`
	Entities struct {
		Mentions []struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		} `json:"mentions"`
		URLs []urlEntity `json:"urls"`
	} `json:"entities"`
}

// urlEntity is a link of a post's text (entities.urls), with the card X
// built for it: its title and description, read by X, not by the client.
type urlEntity struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	UnwoundURL  string `json:"unwound_url"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// MediaKey is set on the t.co link of an attached image: no link card.
	MediaKey string `json:"media_key"`
}

// refs are the posts t answers, quotes or reposts, under either name X
// gives them.
func (t tweet) refs() []referencedTweet {
	return append(slices.Clone(t.ReferencedTweets), t.ReferencedPosts...)
}

// retweet reports whether t is a repost of another post, not a post of its own.
func (t tweet) retweet() bool {
	return slices.ContainsFunc(t.refs(), func(r referencedTweet) bool { return r.Type == "retweeted" })
}

type media struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url"`
	PreviewImageURL string `json:"preview_image_url"`
	AltText         string `json:"alt_text"`
}

type meta struct {
	ResultCount int    `json:"result_count"`
	NewestID    string `json:"newest_id"`
	OldestID    string `json:"oldest_id"`
	NextToken   string `json:"next_token"`
}

// timelineResponse is a page of posts: mentions, search, a user's posts, or
// a lookup by ids.
type timelineResponse struct {
	Data     []tweet `json:"data"`
	Includes struct {
		Users  []apiUser `json:"users"`
		Media  []media   `json:"media"`
		Tweets []tweet   `json:"tweets"`
		// Posts is Tweets as X's newest OpenAPI names it.
		Posts []tweet `json:"posts"`
	} `json:"includes"`
	Meta   meta       `json:"meta"`
	Errors []apiError `json:"errors"`
}

type createTweetReply struct {
	InReplyToTweetID string `json:"in_reply_to_tweet_id"`
}

type createTweetRequest struct {
	Text  string            `json:"text"`
	Reply *createTweetReply `json:"reply,omitempty"`
}

type createTweetResponse struct {
	Data struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"data"`
}

// includedPosts are the posts of includes, under either name X gives them.
func (r *timelineResponse) includedPosts() []tweet {
	return append(slices.Clone(r.Includes.Tweets), r.Includes.Posts...)
}

// posts resolves the page's posts against its includes, in the page's
// order, leaving reposts out: a repost is not the reposter's own words.
func (r *timelineResponse) posts() []platform.Post {
	res := r.resolver()
	out := make([]platform.Post, 0, len(r.Data))
	for _, t := range r.Data {
		if t.ID != "" && !t.retweet() {
			out = append(out, res.post(t))
		}
	}
	return out
}

// reposts are the ids of the page's reposts, which posts leaves out.
func (r *timelineResponse) reposts() []string {
	var out []string
	for _, t := range r.Data {
		if t.ID != "" && t.retweet() {
			out = append(out, t.ID)
		}
	}
	return out
}

// included resolves the posts of includes (those the page's posts answer
// or quote), with their authors.
func (r *timelineResponse) included() []platform.Post {
	res := r.resolver()
	var out []platform.Post
	for _, t := range r.includedPosts() {
		if t.ID != "" {
			out = append(out, res.post(t))
		}
	}
	return out
}

// resolver holds an answer's includes by id.
type resolver struct {
	users    map[string]apiUser
	medias   map[string]media
	included map[string]tweet
}

func (r *timelineResponse) resolver() resolver {
	res := resolver{
		users:    make(map[string]apiUser, len(r.Includes.Users)),
		medias:   make(map[string]media, len(r.Includes.Media)),
		included: map[string]tweet{},
	}
	for _, u := range r.Includes.Users {
		res.users[u.ID] = u
	}
	for _, m := range r.Includes.Media {
		res.medias[m.MediaKey] = m
	}
	for _, t := range r.includedPosts() {
		res.included[t.ID] = t
	}
	return res
}

// post is t with its author, media and quoted post's author resolved.
func (res resolver) post(t tweet) platform.Post {
	p := platform.Post{
		ID:             t.ID,
		ConversationID: t.ConversationID,
		Text:           unescapeText(t.Text),
		Language:       post.Language(t.Lang),
		Author:         platform.User{ID: t.AuthorID},
		Metrics:        t.PublicMetrics.metrics(),
	}
	if u, ok := res.users[t.AuthorID]; ok && t.AuthorID != "" {
		p.Author = u.user()
	}
	if ts, err := time.Parse(time.RFC3339, t.CreatedAt); err == nil {
		p.CreatedAt = ts.UTC()
	}
	for _, ref := range t.refs() {
		switch ref.Type {
		case "replied_to":
			p.InReplyToID = ref.ID
		case "quoted":
			p.QuotedID = ref.ID
			p.QuotedAuthorID = res.included[ref.ID].AuthorID
		}
	}
	for _, m := range t.Entities.Mentions {
		p.Mentions = append(p.Mentions, platform.User{ID: m.ID, Username: m.Username})
	}
	for _, k := range t.Attachments.MediaKeys {
		m, ok := res.medias[k]
		if !ok || (m.URL == "" && m.PreviewImageURL == "") || len(p.Media) == platform.MaxMedia {
			continue
		}
		p.Media = append(p.Media, platform.Media{Type: mediaType(m.Type), URL: m.URL, PreviewURL: m.PreviewImageURL, Alt: m.AltText})
		if p.MediaURL == "" {
			p.MediaURL = p.Media[len(p.Media)-1].Image()
		}
	}
	p.Link = linkCard(t)
	return p
}

// mediaType is X's media type as platform.Media names it; an unknown one
// is taken for a photo (its url is an image).
func mediaType(t string) string {
	switch t {
	case platform.MediaVideo, platform.MediaGIF:
		return t
	}
	return platform.MediaPhoto
}

// linkCard is the first link of t's text that is neither an attached
// image's t.co link nor a link to a post on X (a quoted post is context,
// not a card), nil when there is none: its unwound address (else the
// expanded one) with the title and description X read there.
func linkCard(t tweet) *platform.Link {
	for _, u := range t.Entities.URLs {
		addr := u.UnwoundURL
		if addr == "" {
			addr = u.ExpandedURL
		}
		if u.MediaKey != "" || addr == "" || postOnX(addr) {
			continue
		}
		return &platform.Link{URL: addr, Title: u.Title, Description: u.Description}
	}
	return nil
}

// postOnX reports whether addr is a post, photo or video on X.
func postOnX(addr string) bool {
	u, err := url.Parse(addr)
	if err != nil {
		return false
	}
	switch strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") {
	case "x.com", "twitter.com", "mobile.twitter.com":
		return strings.Contains(u.Path, "/status/")
	}
	return false
}

// partialError turns an entry of "errors" inside a 200 into the refusal it
// stands for, with the HTTP status its problem type implies.
func partialError(e apiError) *platform.Error {
	status := http.StatusBadRequest
	switch {
	case strings.HasSuffix(e.Type, "/resource-not-found") || e.Title == "Not Found Error":
		status = http.StatusNotFound
	case strings.HasSuffix(e.Type, "/not-authorized-for-resource") || e.Title == "Authorization Error",
		strings.HasSuffix(e.Type, "/resource-unavailable"):
		status = http.StatusForbidden
	}
	title, detail := e.Title, e.Detail
	if title == "" {
		title = http.StatusText(status)
	}
	if detail == "" {
		detail = e.Message
	}
	return &platform.Error{Status: status, Title: title, Detail: detail, Type: e.Type}
}

// responseError turns a non-2xx answer into a *platform.Error, in X's words.
func responseError(resp *http.Response, body []byte) *platform.Error {
	pe := &platform.Error{Status: resp.StatusCode}
	var p problem
	if err := json.Unmarshal(body, &p); err == nil {
		pe.Title, pe.Detail = p.Title, p.Detail
		var msgs []string
		for _, e := range append([]apiError{{Type: p.Type}}, p.Errors...) {
			if pe.Type == "" && e.Type != "about:blank" {
				// about:blank is RFC 7807's "no particular type".
				pe.Type = e.Type
			}
			for name := range e.Parameters {
				pe.Invalid = append(pe.Invalid, name)
			}
			switch {
			case e.Message != "":
				msgs = append(msgs, e.Message)
			case e.Detail != "":
				msgs = append(msgs, e.Detail)
			}
		}
		if len(msgs) > 0 {
			switch {
			case strings.HasSuffix(pe.Detail, "."):
				pe.Detail += " "
			case pe.Detail != "":
				pe.Detail += ": "
			}
			pe.Detail += strings.Join(msgs, "; ")
		}
	} else if s := upstream.Excerpt(string(body)); s != "" {
		pe.Detail = s
	}
	slices.Sort(pe.Invalid)
	pe.Invalid = slices.Compact(pe.Invalid)
	if pe.Title == "" {
		pe.Title = http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		pe.RetryAt = retryAt(resp.Header)
	}
	return pe
}

// retryAt reads when a rate limit lifts: x-rate-limit-reset (unix seconds),
// pushed later by a spent daily cap (x-user-limit-24hour-* and
// x-app-limit-24hour-*, which POST /2/tweets carries), or else Retry-After
// (seconds or an HTTP date).
func retryAt(h http.Header) time.Time {
	var at time.Time
	if t, ok := unixHeader(h, "x-rate-limit-reset"); ok {
		at = t
	}
	for _, daily := range []string{"x-user-limit-24hour", "x-app-limit-24hour"} {
		if strings.TrimSpace(h.Get(daily+"-remaining")) != "0" {
			continue
		}
		if t, ok := unixHeader(h, daily+"-reset"); ok && t.After(at) {
			at = t
		}
	}
	if !at.IsZero() {
		return at
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if sec, err := strconv.Atoi(v); err == nil && sec >= 0 {
			return time.Now().Add(time.Duration(sec) * time.Second).UTC()
		}
		if t, err := http.ParseTime(v); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// unixHeader reads a header holding unix seconds.
func unixHeader(h http.Header, name string) (time.Time, bool) {
	sec, err := strconv.ParseInt(strings.TrimSpace(h.Get(name)), 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}, false
	}
	return time.Unix(sec, 0).UTC(), true
}

// unescapeText undoes the HTML escaping X applies to post text (only &, <
// and >). "&amp;" goes last so that an escaped "&lt;" stays literal.
func unescapeText(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	s = strings.ReplaceAll(s, "&lt;", "<")
	s = strings.ReplaceAll(s, "&gt;", ">")
	return strings.ReplaceAll(s, "&amp;", "&")
}

// normalizeText is s as FindPublished compares it: unescaped, with runs of
// white space made single spaces and every link (which X rewrites to t.co)
// reduced to a placeholder.
func normalizeText(s string) string {
	words := strings.Fields(unescapeText(s))
	for i, w := range words {
		if strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") {
			words[i] = "<link>"
		}
	}
	return strings.Join(words, " ")
}

// idLess reports whether post id a is older than b: numerically for X's
// decimal ids, by string otherwise, decimal ids before any other (a total
// order, so that sorting odd ids stays consistent).
func idLess(a, b string) bool {
	da, db := isDigits(a), isDigits(b)
	if da != db {
		return da
	}
	if da {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			return len(a) < len(b)
		}
	}
	return a < b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sortNewestFirst orders posts by id, newest first.
func sortNewestFirst(posts []platform.Post) {
	slices.SortStableFunc(posts, func(a, b platform.Post) int {
		switch {
		case idLess(b.ID, a.ID):
			return -1
		case idLess(a.ID, b.ID):
			return 1
		}
		return 0
	})
}
