package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// timelinePauseKeyPrefix prefixes the Redis key of every timeline pause.
const timelinePauseKeyPrefix = "infernal:scan:paused:"

// TimelinePause stops the scans of one timeline, in every worker, until it
// lapses: the account-wide pause's counterpart for a refusal that concerns
// one request's shape (a 400 the platform answers every time).
type TimelinePause struct {
	// Platform names the platform whose timeline is paused.
	Platform string `json:"platform"`
	// Timeline names the timeline (the scan's cursor: "mentions", "search"…).
	Timeline string `json:"timeline"`
	// Reason says why, in words for the administrator.
	Reason string `json:"reason"`
	// Since is when the pause began.
	Since time.Time `json:"since"`
	// Until is when it lapses.
	Until time.Time `json:"until"`
}

func timelinePauseKey(platform, timeline string) string {
	return timelinePauseKeyPrefix + platform + ":" + timeline
}

// PauseTimeline pauses the scans of a platform's timeline from now for d,
// unless a pause of it is already in force, which is kept as it is. began
// tells whether this call began the pause (so that one worker logs it).
func (c *Client) PauseTimeline(ctx context.Context, platform, timeline, reason string, now time.Time, d time.Duration) (began bool, err error) {
	p := TimelinePause{Platform: platform, Timeline: timeline, Reason: reason, Since: now.UTC(), Until: now.Add(d).UTC()}
	b, err := json.Marshal(p)
	if err != nil {
		return false, fmt.Errorf("tasks: pause timeline %s: %w", timeline, err)
	}
	began, err = c.redis.SetNX(ctx, timelinePauseKey(platform, timeline), b, d).Result()
	if err != nil {
		return false, fmt.Errorf("tasks: pause timeline %s: %w", timeline, err)
	}
	return began, nil
}

// TimelinePaused reports whether the scans of a platform's timeline are paused.
func (c *Client) TimelinePaused(ctx context.Context, platform, timeline string) (bool, error) {
	n, err := c.redis.Exists(ctx, timelinePauseKey(platform, timeline)).Result()
	if err != nil {
		return false, fmt.Errorf("tasks: timeline pause %s: %w", timeline, err)
	}
	return n > 0, nil
}

// TimelinePauses lists the timeline pauses in force at now, by platform and
// timeline. A value that is not a pause (written by hand) is listed with
// what its key names, no reason, and the key's own expiry.
func (c *Client) TimelinePauses(ctx context.Context, now time.Time) ([]TimelinePause, error) {
	var out []TimelinePause
	iter := c.redis.Scan(ctx, 0, timelinePauseKeyPrefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		key := iter.Val()
		raw, err := c.redis.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			// Lapsed since the scan listed it.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("tasks: timeline pauses: %w", err)
		}
		var p TimelinePause
		if json.Unmarshal(raw, &p) != nil || p.Timeline == "" {
			ttl, err := c.redis.PTTL(ctx, key).Result()
			if err != nil {
				return nil, fmt.Errorf("tasks: timeline pauses: %w", err)
			}
			p = TimelinePause{Timeline: strings.TrimPrefix(key, timelinePauseKeyPrefix), Since: now.UTC(), Until: now.Add(max(ttl, 0)).UTC()}
		}
		out = append(out, p)
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("tasks: timeline pauses: %w", err)
	}
	slices.SortFunc(out, func(a, b TimelinePause) int {
		return strings.Compare(a.Platform+":"+a.Timeline, b.Platform+":"+b.Timeline)
	})
	return out, nil
}
