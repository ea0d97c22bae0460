package mastodon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"infernal/pkg/platform"
)

// defaultLanguage is a reply's language when the status it answers names none.
const defaultLanguage = "en"

// ReasonDirect is the word for a direct mention left unanswered (the skip
// reason direct_message): a public answer would widen a private word.
const ReasonDirect = "direct_message"

// DefaultMaxCharacters is a status's limit when the server names none.
const DefaultMaxCharacters = 500

// MaxCharacters is the server's limit on a status, in characters (GET
// /api/v2/instance, configuration.statuses.max_characters), or
// DefaultMaxCharacters when it names none: GoToSocial, Pleroma and many
// servers raise it. The same answer's domain, the server's own, is kept
// for Qualify.
func (c *Client) MaxCharacters(ctx context.Context) (int, error) {
	var inst struct {
		Domain        string `json:"domain"`
		Configuration struct {
			Statuses struct {
				MaxCharacters int `json:"max_characters"`
			} `json:"statuses"`
		} `json:"configuration"`
	}
	if _, err := c.call(ctx, "GET", "/api/v2/instance", nil, nil, nil, &inst); err != nil {
		return 0, err
	}
	if d := strings.ToLower(strings.TrimSpace(inst.Domain)); d != "" && !strings.ContainsAny(d, "@/ ") {
		c.domain.Store(&d)
	}
	if n := inst.Configuration.Statuses.MaxCharacters; n > 0 {
		return n, nil
	}
	return DefaultMaxCharacters, nil
}

// Qualify returns an acct (with or without a leading @) as it names the
// account from any server, lower-cased, without the @: a local account's
// acct, which leaves the server's domain out, with the server's domain
// (platform.Qualifier). The domain is the one the server names
// (MaxCharacters, read at start), else its address's host.
func (c *Client) Qualify(acct string) string {
	a := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(acct), "@"))
	if a == "" || strings.Contains(a, "@") {
		return a
	}
	return a + "@" + *c.domain.Load()
}

// createStatus is POST /api/v1/statuses's body.
type createStatus struct {
	Status      string `json:"status"`
	InReplyToID string `json:"in_reply_to_id,omitempty"`
	Visibility  string `json:"visibility"`
	SpoilerText string `json:"spoiler_text,omitempty"`
	Language    string `json:"language"`
}

// PublishKeyFor is the Idempotency-Key of the send of draft version
// draftVersion of post postID (platform.VersionKeyer): every retry of that
// version's send carries the same key, so Mastodon, which keeps a key for
// an hour, makes one status; an edited version is a new key.
func (c *Client) PublishKeyFor(postID int64, draftVersion int) string {
	return fmt.Sprintf("infernal-%d-v%d", postID, draftVersion)
}

// NewPublishKey chooses a fresh Idempotency-Key for a send that is not of
// a stored post's draft (Publish).
func (c *Client) NewPublishKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on the supported platforms
	return hex.EncodeToString(b)
}

// Publish posts text, as a reply to inReplyToID when it is not empty,
// under a fresh key.
func (c *Client) Publish(ctx context.Context, text, inReplyToID string) (platform.Post, error) {
	return c.PublishKeyed(ctx, c.NewPublishKey(), text, inReplyToID)
}

// PublishKeyed posts text under key (the Idempotency-Key). A reply starts
// with @acct of the author, as Mastodon's clients write it, carries the
// content warning and the language of the status it answers, and never
// widens its visibility: public, unlisted and private are answered alike,
// direct only while ReplyToDirect says yes (else it is refused,
// ReasonDirect), asked at the send. A
// create whose outcome is unknown (a network failure, or a 5xx after it
// was sent) is looked for first, then sent again under the same key.
func (c *Client) PublishKeyed(ctx context.Context, key, text, inReplyToID string) (platform.Post, error) {
	body := createStatus{Status: text, Visibility: "public", Language: defaultLanguage}
	if inReplyToID != "" {
		parent, found, err := c.status(ctx, inReplyToID)
		if err != nil {
			return platform.Post{}, err
		}
		if !found {
			return platform.Post{}, &platform.Error{Status: http.StatusNotFound, Title: "Not Found",
				Detail: "the post was deleted or not visible"}
		}
		direct := false
		if parent.Visibility == "direct" {
			if direct, err = c.directAllowed(ctx); err != nil {
				return platform.Post{}, err
			}
		}
		if parent.Visibility == "direct" && !direct {
			return platform.Post{}, &platform.Error{Status: http.StatusUnprocessableEntity, Title: ReasonDirect,
				Detail: "a direct mention is not answered (platforms.mastodon.reply_to_direct is off)"}
		}
		body.InReplyToID, body.Visibility, body.SpoilerText = inReplyToID, parent.Visibility, parent.SpoilerText
		if parent.Language != nil && *parent.Language != "" {
			body.Language = *parent.Language
		}
		if at := "@" + parent.Account.Acct; !strings.HasPrefix(text, at+" ") && text != at {
			body.Status = at + " " + text
		}
	}
	h := http.Header{"Idempotency-Key": {key}}
	var s status
	_, err := c.call(ctx, "POST", "/api/v1/statuses", nil, body, h, &s)
	if err == nil {
		return toPost(s, ""), nil
	}
	if !unknownOutcome(err) {
		return platform.Post{}, err
	}
	// The create may have been made: look for it before sending again.
	me, merr := c.Me(ctx)
	if merr != nil {
		return platform.Post{}, errors.Join(err, merr)
	}
	if prior, found, ferr := c.FindPublished(ctx, me.ID, inReplyToID, body.Status); ferr != nil {
		return platform.Post{}, errors.Join(err, ferr)
	} else if found {
		return prior, nil
	}
	if _, err = c.call(ctx, "POST", "/api/v1/statuses", nil, body, h, &s); err != nil {
		return platform.Post{}, err
	}
	return toPost(s, ""), nil
}

// unknownOutcome reports whether a create's err leaves open whether the
// status was made: a network failure or a server error.
func unknownOutcome(err error) bool {
	var pe *platform.Error
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Status == 0 || pe.Status >= 500
}

// FindPublished looks through the persona's recent statuses for one that
// answers inReplyToID (for a standalone post: whose text is text).
func (c *Client) FindPublished(ctx context.Context, authorID, inReplyToID, text string) (platform.Post, bool, error) {
	var list []status
	q := url.Values{"limit": {"40"}, "exclude_reblogs": {"true"}}
	if _, err := c.call(ctx, "GET", "/api/v1/accounts/"+url.PathEscape(authorID)+"/statuses", q, nil, nil, &list); err != nil {
		return platform.Post{}, false, err
	}
	for _, s := range list {
		switch {
		case inReplyToID != "" && s.InReplyToID != nil && *s.InReplyToID == inReplyToID:
			return toPost(s, ""), true, nil
		case inReplyToID == "" && s.InReplyToID == nil && Text(s.Content) == text:
			return toPost(s, ""), true, nil
		}
	}
	return platform.Post{}, false, nil
}
