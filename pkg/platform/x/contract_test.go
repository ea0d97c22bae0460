package x

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/platformtest"
	"infernal/pkg/ratelimit"
	"infernal/pkg/tasks/taskstest"
)

// xWorld is a stateful stand-in of the X API v2 for the platform contract:
// posts kept in memory with snowflake-like increasing ids, served by the
// endpoints the client calls, in X's wire format.
type xWorld struct {
	mu     sync.Mutex
	next   int64
	posts  map[string]tweet
	users  map[string]apiUser
	order  []string // ids, oldest first
	selfID string
}

const (
	xPersonaID = "1000"
	xMortalID  = "2000"
)

func newXWorld() *xWorld {
	return &xWorld{next: 1790000000000000000, posts: map[string]tweet{}, selfID: xPersonaID, users: map[string]apiUser{
		xPersonaID: {ID: xPersonaID, Username: "devil", Name: "Devil"},
		xMortalID:  {ID: xMortalID, Username: "mortal", Name: "Mortal"},
	}}
}

// add stores a post by author, answering parent when set.
func (w *xWorld) add(author, text, parent string) (tweet, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next++
	// X detects every post's language; this world's posts are English.
	t := tweet{ID: strconv.FormatInt(w.next, 10), Text: text, AuthorID: author, CreatedAt: time.Now().UTC().Format(time.RFC3339), Lang: "en"}
	t.ConversationID = t.ID
	if parent != "" {
		p, ok := w.posts[parent]
		if !ok {
			return tweet{}, false
		}
		t.ConversationID = p.ConversationID
		t.ReferencedTweets = []referencedTweet{{Type: "replied_to", ID: parent}}
	}
	for _, u := range w.users {
		if strings.Contains(strings.ToLower(text), "@"+u.Username) {
			t.Entities.Mentions = append(t.Entities.Mentions, struct {
				ID       string `json:"id"`
				Username string `json:"username"`
			}{ID: u.ID, Username: u.Username})
		}
	}
	w.posts[t.ID] = t
	w.order = append(w.order, t.ID)
	return t, true
}

func (w *xWorld) delete(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.posts, id)
}

// page answers a timeline of the posts keep selects, within since_id and
// until_id, newest first, with the posts they answer as includes.
func (w *xWorld) page(q map[string][]string, keep func(tweet) bool) timelineResponse {
	w.mu.Lock()
	defer w.mu.Unlock()
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	since, until := get("since_id"), get("until_id")
	var resp timelineResponse
	users := map[string]bool{}
	for i := len(w.order) - 1; i >= 0; i-- {
		t, ok := w.posts[w.order[i]]
		if !ok || !keep(t) || (since != "" && !idLess(since, t.ID)) || (until != "" && !idLess(t.ID, until)) {
			continue
		}
		resp.Data = append(resp.Data, t)
		users[t.AuthorID] = true
		for _, r := range t.ReferencedTweets {
			if p, ok := w.posts[r.ID]; ok {
				resp.Includes.Tweets = append(resp.Includes.Tweets, p)
				users[p.AuthorID] = true
			}
		}
	}
	for id := range users {
		resp.Includes.Users = append(resp.Includes.Users, w.users[id])
	}
	if n := len(resp.Data); n > 0 {
		resp.Meta = meta{ResultCount: n, NewestID: resp.Data[0].ID, OldestID: resp.Data[n-1].ID}
	}
	return resp
}

func (w *xWorld) serve(rw http.ResponseWriter, r *http.Request) {
	answer := func(status int, v any) {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		_ = json.NewEncoder(rw).Encode(v) // a test stand-in's write to a closed connection matters not
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/2/users/me":
		answer(200, map[string]any{"data": w.users[xPersonaID]})
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "users" && parts[3] == "mentions":
		answer(200, w.page(q, func(t tweet) bool {
			return slices.ContainsFunc(t.Entities.Mentions, func(m struct {
				ID       string `json:"id"`
				Username string `json:"username"`
			}) bool {
				return m.ID == parts[2]
			})
		}))
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "users" && parts[3] == "tweets":
		answer(200, w.page(q, func(t tweet) bool { return t.AuthorID == parts[2] }))
	case r.Method == http.MethodGet && r.URL.Path == "/2/tweets":
		ids := strings.Split(q.Get("ids"), ",")
		resp := w.page(nil, func(t tweet) bool { return slices.Contains(ids, t.ID) })
		for _, id := range ids {
			if !slices.ContainsFunc(resp.Data, func(t tweet) bool { return t.ID == id }) {
				resp.Errors = append(resp.Errors, apiError{Title: "Not Found Error", Detail: "Could not find tweet with ids: [" + id + "].", ResourceID: id, ResourceType: "tweet", Parameter: "ids"})
			}
		}
		answer(200, resp)
	case r.Method == http.MethodPost && r.URL.Path == "/2/tweets":
		var body createTweetRequest
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			answer(400, problem{Title: "Invalid Request", Detail: err.Error(), Status: 400})
			return
		}
		parent := ""
		if body.Reply != nil {
			parent = body.Reply.InReplyToTweetID
		}
		t, ok := w.add(xPersonaID, body.Text, parent)
		if !ok {
			answer(403, problem{Title: "Forbidden", Detail: "You attempted to reply to a Tweet that is deleted or not visible to you.", Status: 403})
			return
		}
		answer(201, map[string]any{"data": map[string]string{"id": t.ID, "text": t.Text}})
	default:
		answer(404, problem{Title: "Not Found Error", Detail: "no " + r.Method + " " + r.URL.Path, Status: 404})
	}
}

// TestContract runs the platform contract against the X client, talking to
// a stateful stand-in of the X API v2 (OAuth signatures checked).
func TestContract(t *testing.T) {
	t.Parallel()
	world := newXWorld()
	f := newFakeX(t, world.serve)
	write := func(t *testing.T, text, parent string) string {
		p, ok := world.add(xMortalID, text, parent)
		if !ok {
			t.Fatalf("no post %s to answer", parent)
		}
		return p.ID
	}
	platformtest.Run(t, platformtest.Harness{
		Platform: f.client(t),
		Post:     func(t *testing.T, text string) string { return write(t, text, "") },
		Mention:  write,
		Delete:   func(_ *testing.T, id string) { world.delete(id) },
		Language: "en",
		RateLimited: func(t *testing.T, kind platformtest.RateLimitKind) platform.Platform {
			reset := time.Now().Add(10 * time.Minute).Unix()
			switch kind {
			case platformtest.LimitAnswered:
				limited := newFakeX(t, func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("x-rate-limit-limit", "450")
					w.Header().Set("x-rate-limit-remaining", "0")
					w.Header().Set("x-rate-limit-reset", strconv.FormatInt(reset, 10))
					writeJSON(w, http.StatusTooManyRequests, `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`)
				})
				return limited.client(t)
			default:
				redisURL := taskstest.RedisURL(t)
				windows, err := ratelimit.Open(redisURL, 1)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = windows.Close() })
				// Another process was told the window is used up.
				if err := windows.Record(context.Background(), "GET /2/users/:id/mentions", http.Header{
					"X-Rate-Limit-Limit": {"450"}, "X-Rate-Limit-Remaining": {"0"}, "X-Rate-Limit-Reset": {fmt.Sprint(reset)},
				}); err != nil {
					t.Fatal(err)
				}
				return windowedClient(t, f, redisURL, 1, nil)
			}
		},
	})
}
