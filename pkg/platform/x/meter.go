package x

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"infernal/pkg/post"
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
	// Bill records a call of endpoint that returned resourceIDs of kind.
	Bill(ctx context.Context, endpoint string, kind spend.Kind, resourceIDs []string)
}

// endpointOf names the endpoint of a request as X's rate limits and billing
// count it (the path with its ids replaced), and the kind of resource it
// reads or makes. A lookup by ids (GET /2/tweets) is an owned read when it
// asks for no expansions (Metrics, which only reads the persona's own
// replies) and a post read otherwise (Lookup, which reads anyone's posts).
func (c *Client) endpointOf(method, path string, q url.Values, body []byte) (endpoint string, kind spend.Kind) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case method == http.MethodPost && path == "/2/tweets":
		kind = spend.KindPostCreate
		if post.HasLink(createdText(body)) {
			kind = spend.KindPostCreateURL
		}
		return "POST /2/tweets", kind
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

// createdText is the text of a POST /2/tweets body.
func createdText(body []byte) string {
	var req createTweetRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return ""
	}
	return req.Text
}

// resourceIDs lists the resources an answer returned, as X bills them.
func resourceIDs(out any) []string {
	var ids []string
	switch r := out.(type) {
	case *timelineResponse:
		for _, t := range r.Data {
			ids = append(ids, t.ID)
		}
	case *userResponse:
		if r.Data != nil {
			ids = append(ids, r.Data.ID)
		}
	case *createTweetResponse:
		ids = append(ids, r.Data.ID)
	}
	return ids
}
