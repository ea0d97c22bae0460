package x

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/spend"
)

// Limiter keeps the rate-limit windows every process shares
// (*ratelimit.Windows is one).
type Limiter interface {
	// Reserve takes a call of endpoint; a non-zero closedUntil means the
	// window is closed and the call must not be sent before then.
	Reserve(ctx context.Context, endpoint string) (closedUntil time.Time, err error)
	// Record keeps what an answer's headers say of endpoint's windows.
	Record(ctx context.Context, endpoint string, h http.Header) error
}

// Meter records every billable call (*spend.Meter is one). It reports its
// own failures: a call that went out is never undone for want of a record.
type Meter interface {
	// Bill records a call of endpoint that returned (or made) groups of
	// resources, the call's own kind first.
	Bill(ctx context.Context, endpoint string, groups []spend.Resources)
}

// endpointOf names the endpoint of a request as X's rate limits and billing
// count it (the path with its ids replaced), and the kind of resource it
// reads or makes. A lookup by ids (GET /2/tweets) is an owned read when it
// asks for no expansions (Metrics, which only reads the persona's own
// replies) and a post read otherwise (Lookup, which reads anyone's posts).
// A post is billed as a summoned reply when ctx says it answers a post that
// summoned the persona (platform.WithSummoned), or under RepliesSummon.
func (c *Client) endpointOf(ctx context.Context, method, path string, q url.Values, body []byte) (endpoint string, kind spend.Kind) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case method == http.MethodPost && path == "/2/tweets":
		req := created(body)
		return "POST /2/tweets", spend.Prices{RepliesSummon: c.repliesSummon}.SendKind(req.Reply != nil, platform.Summoned(ctx), req.Text)
	case path == "/2/users/me":
		return "GET /2/users/me", spend.KindOwnedRead
	case len(parts) == 5 && parts[1] == "users" && parts[2] == "by" && parts[3] == "username":
		return "GET /2/users/by/username/:username", spend.KindUserRead
	case len(parts) == 4 && parts[1] == "users" && parts[3] == "mentions":
		return "GET /2/users/:id/mentions", spend.KindOwnedRead
	case len(parts) == 4 && parts[1] == "users" && parts[3] == "tweets":
		kind = spend.KindPostRead
		if id := c.selfID.Load(); id != nil && *id == parts[2] {
			// The persona's own timeline is an owned read.
			kind = spend.KindOwnedRead
		}
		return "GET /2/users/:id/tweets", kind
	case path == "/2/tweets/search/recent":
		return "GET /2/tweets/search/recent", spend.KindPostRead
	case path == "/2/tweets" && q.Get(paramExpansions) == "":
		return "GET /2/tweets", spend.KindOwnedRead
	case path == "/2/tweets":
		return "GET /2/tweets", spend.KindPostRead
	}
	return method + " " + path, spend.KindPostRead
}

// created is the request of a POST /2/tweets body, empty when unreadable.
func created(body []byte) createTweetRequest {
	var req createTweetRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return createTweetRequest{}
	}
	return req
}

// The classes of resource X bills, each id of a class once per UTC day
// whatever the kind it came back as: a post read as a mention (an owned
// read) and again in a lookup's data or another answer's includes (a post
// read) the same day is one resource, billed once; so is the persona's own
// account, read by Me (an owned read) and again as the author of its posts
// (a user read). Each billed id is its class, a colon and X's id
// (resourceID); a created post is its own class, a write and not a read.
const (
	classPost    = "post"
	classUser    = "user"
	classMedia   = "media"
	classCreated = "created"
)

// resourceID is id as billed: its class first, so that X's ids of posts,
// users and media never meet, and a resource's reads of every kind meet.
func resourceID(class, id string) string {
	if id == "" {
		return ""
	}
	return class + ":" + id
}

// resources lists what an answer returned, as X bills it: every post of
// data (reposts too) as kind, and the posts, users and media of includes
// as post, user and media reads.
func resources(out any, kind spend.Kind) []spend.Resources {
	own := spend.Resources{Kind: kind}
	switch r := out.(type) {
	case *timelineResponse:
		for _, t := range r.Data {
			own.IDs = append(own.IDs, resourceID(classPost, t.ID))
		}
		groups := []spend.Resources{own}
		posts := spend.Resources{Kind: spend.KindPostRead}
		for _, t := range r.includedPosts() {
			posts.IDs = append(posts.IDs, resourceID(classPost, t.ID))
		}
		users := spend.Resources{Kind: spend.KindUserRead}
		for _, u := range r.Includes.Users {
			users.IDs = append(users.IDs, resourceID(classUser, u.ID))
		}
		medias := spend.Resources{Kind: spend.KindMediaRead}
		for _, m := range r.Includes.Media {
			medias.IDs = append(medias.IDs, resourceID(classMedia, m.MediaKey))
		}
		for _, g := range []spend.Resources{posts, users, medias} {
			if len(g.IDs) > 0 {
				groups = append(groups, g)
			}
		}
		return groups
	case *userResponse:
		if r.Data != nil {
			own.IDs = append(own.IDs, resourceID(classUser, r.Data.ID))
		}
	case *createTweetResponse:
		own.IDs = append(own.IDs, resourceID(classCreated, r.Data.ID))
	}
	return []spend.Resources{own}
}
