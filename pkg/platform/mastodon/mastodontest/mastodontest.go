// Package mastodontest is a stand-in Mastodon server for tests, written
// from Mastodon's API documentation (docs.joinmastodon.org: methods
// statuses, notifications, accounts, instance v2, search; entities Status,
// Notification, Account; the Idempotency-Key and rate-limit headers; the
// Link header's paging; entities MediaAttachment and PreviewCard), not
// from the client: statuses are HTML with their page's url, the
// notifications are of every type unless types[] narrows them, paged by
// max_id/since_id/min_id with a Link header, a create replays its answer
// for an Idempotency-Key seen within the hour, a status is counted with
// every URL as 23 characters and a mention by its local part, every answer
// carries X-RateLimit-Limit, -Remaining and -Reset (ISO 8601), and a
// script can make the next call a 429 or the next create succeed yet
// answer 500.
package mastodontest

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxCharacters is the stand-in's configuration.statuses.max_characters
// unless SetMaxCharacters changes it.
const MaxCharacters = 500

// urlReserved is characters_reserved_per_url: every URL counts 23.
const urlReserved = 23

// Token is the access token the stand-in accepts.
const Token = "standin-token"

// Domain is the stand-in's own domain, as its instance answer names it: a
// local account's acct leaves it out.
const Domain = "mastodon.test"

// Account is an account of the stand-in: Username is its acct, a local
// account's user alone, a remote one's user@domain.
type Account struct {
	ID, Username string
}

// Attachment is a media attachment of a status (Mastodon's
// MediaAttachment entity).
type Attachment struct {
	// Type is image, gifv, video, audio or unknown.
	Type string
	// Description is the author's alt text; "" is answered as null.
	Description string
}

// Card is a status's preview card (Mastodon's PreviewCard entity), as the
// server builds it from the first link of the text.
type Card struct {
	URL, Title, Description string
}

// Status is a status kept by the stand-in.
type Status struct {
	ID          string
	Account     Account
	Text        string
	InReplyToID string
	Visibility  string
	SpoilerText string
	Language    string
	CreatedAt   time.Time
	// ReblogOf is the status boosted, "" for an original.
	ReblogOf string
	Deleted  bool
	// Mentions are the accounts the text names.
	Mentions []Account
	// Media are its attachments, in order; Card its preview card, nil
	// when it has none.
	Media []Attachment
	Card  *Card
}

type notification struct {
	ID, Type  string
	From      Account
	StatusID  string
	ForUserID string
}

// Server is the stand-in.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	next     int
	accounts []Account
	statuses map[string]*Status
	notes    []notification
	keys     map[string]string // Idempotency-Key -> status id
	// Creates are the creates that made a status, keys replayed excluded.
	Creates int
	// rateLimitNext makes the next call a 429; fail500 the next create
	// succeed and answer 500; refuse503 the next create answer 503
	// without making its status (a proxy in front of an overloaded server).
	rateLimitNext bool
	fail500       bool
	refuse503     bool
	remaining     int
	windowReset   time.Time
	// maxChars is the limit; zero leaves it out of the instance's answer
	// (and the limit 500).
	maxChars int
}

// Persona is the account the token belongs to.
var personaAccount = Account{ID: "1", Username: "infernal"}

// New starts a stand-in whose token is the persona's (@infernal).
func New() *Server {
	s := &Server{statuses: map[string]*Status{}, keys: map[string]string{}, accounts: []Account{personaAccount}, next: 100, maxChars: MaxCharacters}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Persona is the persona's account.
func (s *Server) Persona() Account { return personaAccount }

// RateLimitNext makes the next call answer 429, its window reset a minute on.
func (s *Server) RateLimitNext() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimitNext = true
}

// FailNextCreate makes the next create make its status yet answer 500.
func (s *Server) FailNextCreate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail500 = true
}

// RefuseNextCreate makes the next create answer 503 without making its
// status.
func (s *Server) RefuseNextCreate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse503 = true
}

// SetMaxCharacters sets the server's limit on a status (n zero: the
// instance's answer names none, and the limit is 500).
func (s *Server) SetMaxCharacters(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxChars = n
}

// limit is the limit a create keeps to; s.mu is held.
func (s *Server) limit() int {
	if s.maxChars > 0 {
		return s.maxChars
	}
	return MaxCharacters
}

func (s *Server) id() string {
	s.next++
	return strconv.Itoa(s.next)
}

// account returns the account of username, made on first use.
func (s *Server) account(username string) Account {
	for _, a := range s.accounts {
		if a.Username == username {
			return a
		}
	}
	a := Account{ID: s.id(), Username: username}
	s.accounts = append(s.accounts, a)
	return a
}

// mentionPattern is an @user or @user@domain in a status's text.
var mentionPattern = regexp.MustCompile(`@([A-Za-z0-9_]+)(?:@[A-Za-z0-9.-]+)?`)

// urlPattern is a URL in a status's text.
var urlPattern = regexp.MustCompile(`https?://[^\s<>"]+`)

// create makes a status and its notifications; s.mu is held.
func (s *Server) create(from Account, text, inReplyTo, visibility, spoiler, lang string) *Status {
	st := &Status{ID: s.id(), Account: from, Text: text, InReplyToID: inReplyTo, Visibility: visibility,
		SpoilerText: spoiler, Language: lang, CreatedAt: time.Now().UTC()}
	for _, m := range mentionPattern.FindAllStringSubmatch(text, -1) {
		a := s.account(m[1])
		if !slices.Contains(st.Mentions, a) {
			st.Mentions = append(st.Mentions, a)
		}
	}
	s.statuses[st.ID] = st
	for _, a := range st.Mentions {
		if a.ID != from.ID {
			s.notes = append(s.notes, notification{ID: s.id(), Type: "mention", From: from, StatusID: st.ID, ForUserID: a.ID})
		}
	}
	return st
}

// Account returns the account of acct (a local user, or user@domain for a
// remote one), made on first use.
func (s *Server) Account(acct string) Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.account(acct)
}

// Post makes a mortal's status (visibility public when empty) and
// returns its id; a mention of @infernal notifies the persona. username
// is the author's acct: user for a local account, user@domain for a
// remote one.
func (s *Server) Post(username, text, inReplyTo, visibility string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if visibility == "" {
		visibility = "public"
	}
	return s.create(s.account(username), text, inReplyTo, visibility, "", "en").ID
}

// PostWithWarning makes a mortal's status behind a content warning.
func (s *Server) PostWithWarning(username, text, spoiler, lang string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.create(s.account(username), text, "", "public", spoiler, lang).ID
}

// PostWithMedia makes a mortal's public status with media attachments
// and a preview card (nil for none).
func (s *Server) PostWithMedia(username, text string, media []Attachment, card *Card) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.create(s.account(username), text, "", "public", "", "en")
	st.Media, st.Card = media, card
	return st.ID
}

// Boost boosts status id as username: the status's author is notified
// (a reblog notification), no mention is made.
func (s *Server) Boost(username, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.account(username)
	orig := s.statuses[id]
	b := &Status{ID: s.id(), Account: from, ReblogOf: id, Visibility: "public", CreatedAt: time.Now().UTC()}
	s.statuses[b.ID] = b
	s.notes = append(s.notes, notification{ID: s.id(), Type: "reblog", From: from, StatusID: id, ForUserID: orig.Account.ID})
}

// Favourite favourites status id as username, and follows its author.
func (s *Server) Favourite(username, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.account(username)
	orig := s.statuses[id]
	s.notes = append(s.notes, notification{ID: s.id(), Type: "favourite", From: from, StatusID: id, ForUserID: orig.Account.ID},
		notification{ID: s.id(), Type: "follow", From: from, ForUserID: orig.Account.ID})
}

// Delete deletes status id.
func (s *Server) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.statuses[id]; st != nil {
		st.Deleted = true
	}
}

// Statuses are the persona's statuses, oldest first.
func (s *Server) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, st := range s.statuses {
		if st.Account.ID == personaAccount.ID && !st.Deleted {
			out = append(out, *st)
		}
	}
	slices.SortFunc(out, func(a, b Status) int { return cmpID(a.ID, b.ID) })
	return out
}

func cmpID(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// Length is a status's length as Mastodon counts it: characters, every
// URL as 23, a mention @user@domain as @user.
func Length(text string) int {
	t := urlPattern.ReplaceAllString(text, strings.Repeat("x", urlReserved))
	t = mentionPattern.ReplaceAllString(t, "@$1")
	return utf8.RuneCountInString(t)
}

// content renders text as Mastodon's HTML: paragraphs, <br> for line
// breaks, mentions as h-card links, URLs as links with invisible parts.
func (s *Server) content(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(text, "\n\n") {
		b.WriteString("<p>")
		lines := strings.Split(para, "\n")
		for i, line := range lines {
			if i > 0 {
				b.WriteString("<br />")
			}
			b.WriteString(s.inline(line))
		}
		b.WriteString("</p>")
	}
	return b.String()
}

// tokenPattern finds the URLs and mentions of a line.
var tokenPattern = regexp.MustCompile(`https?://[^\s<>"]+|@[A-Za-z0-9_]+(?:@[A-Za-z0-9.-]+)?`)

func (s *Server) inline(line string) string {
	var b strings.Builder
	last := 0
	for _, m := range tokenPattern.FindAllStringIndex(line, -1) {
		b.WriteString(html.EscapeString(line[last:m[0]]))
		tok := line[m[0]:m[1]]
		if strings.HasPrefix(tok, "@") {
			user := mentionPattern.FindStringSubmatch(tok)[1]
			fmt.Fprintf(&b, `<span class="h-card" translate="no"><a href="%s/@%s" class="u-url mention">@<span>%s</span></a></span>`,
				s.URL, html.EscapeString(user), html.EscapeString(user))
		} else {
			scheme, rest, _ := strings.Cut(tok, "://")
			shown, hidden := rest, ""
			if len(rest) > 30 {
				shown, hidden = rest[:30], rest[30:]
			}
			fmt.Fprintf(&b, `<a href="%s" target="_blank" rel="nofollow noopener noreferrer" translate="no"><span class="invisible">%s://</span><span class="ellipsis">%s</span><span class="invisible">%s</span></a>`,
				html.EscapeString(tok), scheme, html.EscapeString(shown), html.EscapeString(hidden))
		}
		last = m[1]
	}
	b.WriteString(html.EscapeString(line[last:]))
	return b.String()
}

func (s *Server) accountJSON(a Account) map[string]any {
	user, _, _ := strings.Cut(a.Username, "@")
	return map[string]any{"id": a.ID, "username": user, "acct": a.Username, "display_name": strings.ToUpper(a.Username[:1]) + a.Username[1:],
		"avatar": s.URL + "/avatars/" + a.ID + ".png", "url": s.URL + "/@" + a.Username}
}

// attachmentJSON is the i-th attachment of st as the MediaAttachment
// entity: an image's url is the file and preview_url a smaller copy; a
// gifv's and a video's url an MP4 and preview_url a still; an audio's url
// the file, preview_url null; an unknown file has no local copy (url and
// preview_url null, remote_url its address). description is null when
// the author wrote none.
func (s *Server) attachmentJSON(st *Status, i int, a Attachment) map[string]any {
	id := st.ID + strconv.Itoa(i)
	base := s.URL + "/system/media_attachments/files/" + id
	out := map[string]any{"id": id, "type": a.Type, "url": nil, "preview_url": nil, "remote_url": nil,
		"preview_remote_url": nil, "text_url": nil, "meta": map[string]any{}, "description": nil, "blurhash": nil}
	switch a.Type {
	case "image":
		out["url"], out["preview_url"] = base+"/original/image.png", base+"/small/image.png"
	case "gifv", "video":
		out["url"], out["preview_url"] = base+"/original/clip.mp4", base+"/small/clip.png"
	case "audio":
		out["url"] = base + "/original/sound.mp3"
	default:
		out["remote_url"] = "https://elsewhere.example/files/" + id
	}
	if a.Description != "" {
		out["description"] = a.Description
	}
	return out
}

// cardJSON is c as the PreviewCard entity, of type link.
func cardJSON(c *Card) map[string]any {
	return map[string]any{"url": c.URL, "title": c.Title, "description": c.Description, "type": "link",
		"author_name": "", "author_url": "", "provider_name": "", "provider_url": "", "html": "",
		"width": 0, "height": 0, "image": nil, "embed_url": "", "blurhash": nil}
}

func (s *Server) statusJSON(st *Status) map[string]any {
	out := map[string]any{"id": st.ID, "uri": s.URL + "/users/" + st.Account.Username + "/statuses/" + st.ID,
		"url": s.URL + "/@" + st.Account.Username + "/" + st.ID, "created_at": st.CreatedAt.Format(time.RFC3339Nano),
		"account": s.accountJSON(st.Account), "visibility": st.Visibility, "sensitive": st.SpoilerText != "",
		"spoiler_text": st.SpoilerText, "content": s.content(st.Text), "in_reply_to_id": nil, "in_reply_to_account_id": nil,
		"reblog": nil, "language": nil, "mentions": []any{}, "media_attachments": []any{}, "card": nil,
		"replies_count": 0, "reblogs_count": 0, "favourites_count": 0}
	if len(st.Media) > 0 {
		atts := make([]any, 0, len(st.Media))
		for i, a := range st.Media {
			atts = append(atts, s.attachmentJSON(st, i, a))
		}
		out["media_attachments"] = atts
	}
	if st.Card != nil {
		out["card"] = cardJSON(st.Card)
	}
	if st.Language != "" {
		out["language"] = st.Language
	}
	if st.InReplyToID != "" {
		out["in_reply_to_id"] = st.InReplyToID
		if p := s.statuses[st.InReplyToID]; p != nil {
			out["in_reply_to_account_id"] = p.Account.ID
		}
	}
	if st.ReblogOf != "" {
		out["reblog"] = s.statusJSON(s.statuses[st.ReblogOf])
		out["content"] = ""
	}
	var ms []any
	for _, a := range st.Mentions {
		ms = append(ms, map[string]any{"id": a.ID, "username": a.Username, "acct": a.Username, "url": s.URL + "/@" + a.Username})
	}
	if ms != nil {
		out["mentions"] = ms
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// windowSize and windowCalls are the stand-in's rate-limit window: 300
// calls in 5 minutes, as Mastodon's default for an account.
const (
	windowSize  = 5 * time.Minute
	windowCalls = 300
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	if now.After(s.windowReset) {
		s.windowReset, s.remaining = now.Add(windowSize), windowCalls
	}
	if s.rateLimitNext {
		s.rateLimitNext = false
		w.Header().Set("X-RateLimit-Limit", strconv.Itoa(windowCalls))
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", now.Add(time.Minute).Format("2006-01-02T15:04:05.000000Z"))
		fail(w, http.StatusTooManyRequests, "Too many requests")
		return
	}
	if s.remaining > 0 {
		s.remaining--
	}
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(windowCalls))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(s.remaining))
	w.Header().Set("X-RateLimit-Reset", s.windowReset.Format("2006-01-02T15:04:05.000000Z"))
	if r.URL.Path == "/api/v2/instance" {
		statuses := map[string]any{"characters_reserved_per_url": urlReserved}
		if s.maxChars > 0 {
			statuses["max_characters"] = s.maxChars
		}
		writeJSON(w, 200, map[string]any{"domain": Domain, "title": "Stand-in",
			"configuration": map[string]any{"statuses": statuses}})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Token {
		fail(w, http.StatusUnauthorized, "The access token is invalid")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == "GET" && r.URL.Path == "/api/v1/accounts/verify_credentials":
		writeJSON(w, 200, s.accountJSON(personaAccount))
	case r.Method == "GET" && r.URL.Path == "/api/v1/accounts/lookup":
		// A local account by its user, or user@ the stand-in's domain; a
		// remote one by user@domain, once the stand-in knows it (lookup
		// never asks another server).
		acct := strings.ToLower(strings.TrimPrefix(r.URL.Query().Get("acct"), "@"))
		acct = strings.TrimSuffix(acct, "@"+Domain)
		for _, a := range s.accounts {
			if strings.ToLower(a.Username) == acct {
				writeJSON(w, 200, s.accountJSON(a))
				return
			}
		}
		fail(w, 404, "Record not found")
	case r.Method == "GET" && len(parts) == 5 && parts[2] == "accounts" && parts[4] == "statuses":
		s.accountStatuses(w, r, parts[3])
	case r.Method == "GET" && r.URL.Path == "/api/v1/notifications":
		s.notifications(w, r)
	case r.Method == "GET" && len(parts) == 4 && parts[2] == "statuses":
		st := s.statuses[parts[3]]
		if st == nil || st.Deleted {
			fail(w, 404, "Record not found")
			return
		}
		writeJSON(w, 200, s.statusJSON(st))
	case r.Method == "GET" && len(parts) == 5 && parts[2] == "statuses" && parts[4] == "context":
		s.context(w, parts[3])
	case r.Method == "POST" && r.URL.Path == "/api/v1/statuses":
		s.postStatus(w, r)
	case r.Method == "GET" && r.URL.Path == "/api/v2/search":
		q := strings.ToLower(r.URL.Query().Get("q"))
		var out []any
		for _, st := range s.sorted() {
			if !st.Deleted && st.ReblogOf == "" && st.Visibility == "public" && strings.Contains(strings.ToLower(st.Text), q) {
				out = append(out, s.statusJSON(st))
			}
		}
		writeJSON(w, 200, map[string]any{"accounts": []any{}, "statuses": orEmpty(out), "hashtags": []any{}})
	default:
		fail(w, 404, "Record not found")
	}
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// sorted are the statuses, newest first.
func (s *Server) sorted() []*Status {
	var out []*Status
	for _, st := range s.statuses {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *Status) int { return cmpID(b.ID, a.ID) })
	return out
}

func (s *Server) context(w http.ResponseWriter, id string) {
	st := s.statuses[id]
	if st == nil || st.Deleted {
		fail(w, 404, "Record not found")
		return
	}
	var anc []any
	for p := st.InReplyToID; p != ""; {
		ps := s.statuses[p]
		if ps == nil {
			break
		}
		if !ps.Deleted {
			anc = append([]any{s.statusJSON(ps)}, anc...)
		}
		p = ps.InReplyToID
	}
	var desc []any
	for _, d := range slices.Backward(s.sorted()) {
		if d.InReplyToID == id && !d.Deleted {
			desc = append(desc, s.statusJSON(d))
		}
	}
	writeJSON(w, 200, map[string]any{"ancestors": orEmpty(anc), "descendants": orEmpty(desc)})
}

func (s *Server) accountStatuses(w http.ResponseWriter, r *http.Request, accountID string) {
	q := r.URL.Query()
	limit := limitOf(q.Get("limit"))
	var out []any
	for _, st := range s.sorted() {
		if st.Account.ID != accountID || st.Deleted || (st.ReblogOf != "" && q.Get("exclude_reblogs") == "true") ||
			!within(st.ID, q.Get("since_id"), q.Get("max_id")) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, s.statusJSON(st))
	}
	writeJSON(w, 200, orEmpty(out))
}

func limitOf(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 20
	}
	return min(n, 40)
}

// within reports whether id is newer than since and older than max (both
// exclusive, either empty for open).
func within(id, since, maxID string) bool {
	return (since == "" || cmpID(id, since) > 0) && (maxID == "" || cmpID(id, maxID) < 0)
}

// notifications answers GET /api/v1/notifications: newest first, of the
// types[] asked (every type when none), within max_id/since_id, or the
// oldest ones newer than min_id; a Link header names the next (older) and
// previous (newer) pages.
func (s *Server) notifications(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	types := q["types[]"]
	limit := limitOf(q.Get("limit"))
	var match []notification
	for _, n := range slices.Backward(s.notes) {
		if n.ForUserID != personaAccount.ID || (len(types) > 0 && !slices.Contains(types, n.Type)) {
			continue
		}
		if st := s.statuses[n.StatusID]; n.StatusID != "" && (st == nil || st.Deleted) {
			continue
		}
		if within(n.ID, q.Get("since_id"), q.Get("max_id")) && within(n.ID, q.Get("min_id"), "") {
			match = append(match, n)
		}
	}
	if q.Get("min_id") != "" && len(match) > limit {
		// min_id pages forward: the oldest after it.
		match = match[len(match)-limit:]
	} else if len(match) > limit {
		match = match[:limit]
	}
	var out []any
	for _, n := range match {
		v := map[string]any{"id": n.ID, "type": n.Type, "created_at": time.Now().UTC().Format(time.RFC3339), "account": s.accountJSON(n.From)}
		if n.StatusID != "" {
			v["status"] = s.statusJSON(s.statuses[n.StatusID])
		}
		out = append(out, v)
	}
	if len(match) > 0 {
		base := s.URL + "/api/v1/notifications?limit=" + strconv.Itoa(limit)
		for _, t := range types {
			base += "&types%5B%5D=" + t
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s&max_id=%s>; rel="next", <%s&min_id=%s>; rel="prev"`,
			base, match[len(match)-1].ID, base, match[0].ID))
	}
	writeJSON(w, 200, orEmpty(out))
}

// createBody is POST /api/v1/statuses's parameters, as JSON.
type createBody struct {
	Status      string `json:"status"`
	InReplyToID string `json:"in_reply_to_id"`
	Visibility  string `json:"visibility"`
	SpoilerText string `json:"spoiler_text"`
	Language    string `json:"language"`
}

func (s *Server) postStatus(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if id, ok := s.keys[key]; ok && key != "" {
		// A key seen within the hour answers the status it made.
		writeJSON(w, 200, s.statusJSON(s.statuses[id]))
		return
	}
	if s.refuse503 {
		s.refuse503 = false
		fail(w, http.StatusServiceUnavailable, "Service Unavailable")
		return
	}
	var b createBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, 422, "Validation failed: Text can't be blank")
		return
	}
	switch {
	case strings.TrimSpace(b.Status) == "":
		fail(w, 422, "Validation failed: Text can't be blank")
		return
	case Length(b.Status)+Length(b.SpoilerText) > s.limit():
		// Mastodon counts the content warning with the text.
		fail(w, 422, fmt.Sprintf("Validation failed: Text character limit of %d exceeded", s.limit()))
		return
	}
	if b.Visibility == "" {
		b.Visibility = "public"
	}
	if !slices.Contains([]string{"public", "unlisted", "private", "direct"}, b.Visibility) {
		fail(w, 422, "Validation failed: Visibility is not included in the list")
		return
	}
	if b.InReplyToID != "" {
		if p := s.statuses[b.InReplyToID]; p == nil || p.Deleted {
			fail(w, 404, "Record not found")
			return
		}
	}
	st := s.create(personaAccount, b.Status, b.InReplyToID, b.Visibility, b.SpoilerText, b.Language)
	s.Creates++
	if key != "" {
		s.keys[key] = st.ID
	}
	if s.fail500 {
		s.fail500 = false
		fail(w, 500, "Internal Server Error")
		return
	}
	writeJSON(w, 200, s.statusJSON(st))
}
