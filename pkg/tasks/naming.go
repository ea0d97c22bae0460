package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// namingKey is where the X field naming every process asks in is kept.
const namingKey = "infernal:x:naming"

// Naming returns the X field naming kept for every process, "" when none
// is; it makes the Client an x.Namings.
func (c *Client) Naming(ctx context.Context) (string, error) {
	v, err := c.redis.Get(ctx, namingKey).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("tasks: x naming: %w", err)
	}
	return v, nil
}

// SetNaming keeps name as the X field naming for every process, with no
// expiry: X's naming changes rarely, and a refusal switches it back at once.
func (c *Client) SetNaming(ctx context.Context, name string) error {
	if err := c.redis.Set(ctx, namingKey, name, 0).Err(); err != nil {
		return fmt.Errorf("tasks: set x naming: %w", err)
	}
	return nil
}
