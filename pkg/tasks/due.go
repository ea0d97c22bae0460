package tasks

import (
	"context"
	"fmt"
	"time"
)

// dueKeyPrefix prefixes the Redis key of every interval Due keeps.
const dueKeyPrefix = "infernal:due:"

// Due reports whether the work called name may run now, at most once every
// interval across every process sharing this Redis: the first caller within
// an interval gets true and claims the whole interval (whatever the work's
// outcome, so that a failing call is not repeated at once), every later one
// false until it lapses.
func (c *Client) Due(ctx context.Context, name string, interval time.Duration) (bool, error) {
	if interval <= 0 {
		return true, nil
	}
	ok, err := c.redis.SetNX(ctx, dueKeyPrefix+name, time.Now().UTC().Format(time.RFC3339Nano), interval).Result()
	if err != nil {
		return false, fmt.Errorf("tasks: due %s: %w", name, err)
	}
	return ok, nil
}
