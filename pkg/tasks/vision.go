package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// withoutImagesKey is the hash of the models found to take no image input
// (MODEL_VISION=auto), each with when it was found: kept in Redis so that
// every worker stops sending images after one refusal and the web tier's
// Spend page shows it. No expiry: a model does not gain vision; the
// operator forgets it with MODEL_VISION=true or by deleting the key.
const withoutImagesKey = "infernal:model:without-images"

// WithoutImages reports whether model was found to take no image input.
func (c *Client) WithoutImages(ctx context.Context, model string) (bool, error) {
	ok, err := c.redis.HExists(ctx, withoutImagesKey, model).Result()
	if err != nil {
		return false, fmt.Errorf("tasks: models without images: %w", err)
	}
	return ok, nil
}

// MarkWithoutImages keeps model as one without image input since at;
// first is true when no process had marked it yet.
func (c *Client) MarkWithoutImages(ctx context.Context, model string, at time.Time) (bool, error) {
	first, err := c.redis.HSetNX(ctx, withoutImagesKey, model, at.UTC().Format(time.RFC3339)).Result()
	if err != nil {
		return false, fmt.Errorf("tasks: mark model without images: %w", err)
	}
	return first, nil
}

// ModelsWithoutImages lists the models found to take no image input, with
// when each was found (the zero time when unreadable).
func (c *Client) ModelsWithoutImages(ctx context.Context) (map[string]time.Time, error) {
	all, err := c.redis.HGetAll(ctx, withoutImagesKey).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("tasks: models without images: %w", err)
	}
	out := make(map[string]time.Time, len(all))
	for model, at := range all {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			t = time.Time{}
		}
		out[model] = t
	}
	return out, nil
}
