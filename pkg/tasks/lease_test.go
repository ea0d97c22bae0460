package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// One holder at a time: a second Hold of a held lease is refused until the
// first gives it back; a holder whose lease was taken over has its context
// ended at the next renewal.
func TestHoldIsExclusive(t *testing.T) {
	t.Parallel()
	url := taskstest.RedisURL(t)
	c, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()

	_, release, held, err := c.Hold(ctx, "scan:x:mentions")
	if err != nil || !held {
		t.Fatalf("first Hold: held %v, %v", held, err)
	}
	if _, _, again, err := c.Hold(ctx, "scan:x:mentions"); err != nil || again {
		t.Fatalf("second Hold while held: held %v, %v; want refused", again, err)
	}
	if _, other, ok, err := c.Hold(ctx, "scan:x:search"); err != nil || !ok {
		t.Fatalf("another name: held %v, %v", ok, err)
	} else if err := other(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	leased, release, held, err := c.Hold(ctx, "scan:x:mentions")
	if err != nil || !held {
		t.Fatalf("Hold after release: held %v, %v", held, err)
	}
	defer func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	}()
	// Another process takes the lease over (as after a lapse): the holder must stop.
	other := rawRedis(t, url)
	if err := other.Set(ctx, "infernal:lease:scan:x:mentions", "someone else", redis.KeepTTL).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-leased.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the holder's context outlived its lease")
	}
}

// rawRedis is a plain client of the Redis at url, for a test that writes
// what another process would.
func rawRedis(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })
	return rc
}
