// Package taskstest lends each test an empty Redis database of its own on the
// server named by TEST_REDIS_URL. Only a database found empty is taken, so
// nobody's data is ever touched, and it is emptied again when the test ends.
package taskstest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"infernal/pkg/servertest"
)

// claimTTL bounds how long a crashed test run can keep a database claimed.
const claimTTL = 30 * time.Minute

// RedisURL returns the URL of an empty Redis database reserved for t.
func RedisURL(t testing.TB) string {
	t.Helper()
	server := servertest.URL(t, "TEST_REDIS_URL", "Redis")
	opt, err := redis.ParseURL(server)
	if err != nil {
		t.Fatalf("taskstest: TEST_REDIS_URL: %v", err)
	}
	ctx := context.Background()
	// Claims are kept in database 0, which the tests themselves never use.
	opt.DB = 0
	claims := redis.NewClient(opt)
	defer claims.Close()
	owner := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	databases := databaseCount(ctx, claims)
	for attempt := 0; attempt < 600; attempt++ {
		for db := 1; db < databases; db++ {
			key := "infernal:test:claim:" + strconv.Itoa(db)
			ok, err := claims.SetNX(ctx, key, owner, claimTTL).Result()
			if err != nil {
				t.Fatalf("taskstest: claim: %v", err)
			}
			if !ok {
				continue
			}
			dbOpt := *opt
			dbOpt.DB = db
			c := redis.NewClient(&dbOpt)
			n, err := c.DBSize(ctx).Result()
			if err != nil || n != 0 {
				// Not empty, so not ours to use; leave the claim to expire and look further.
				c.Close()
				continue
			}
			t.Cleanup(func() {
				defer c.Close()
				if err := c.FlushDB(context.Background()).Err(); err != nil {
					t.Errorf("taskstest: flush db %d: %v", db, err)
				}
				rc := redis.NewClient(opt)
				defer rc.Close()
				if err := rc.Del(context.Background(), key).Err(); err != nil {
					t.Errorf("taskstest: release db %d: %v", db, err)
				}
			})
			return withDB(server, db)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("taskstest: no empty Redis database could be claimed in a minute")
	return ""
}

// databaseCount is how many databases the server has: the private server
// of the test command has 64, so that the packages' tests running in
// parallel seldom wait for one; a server that will not say (CONFIG may be
// disabled) is taken to have Redis's default 16.
func databaseCount(ctx context.Context, c *redis.Client) int {
	conf, err := c.ConfigGet(ctx, "databases").Result()
	if err != nil {
		return 16
	}
	n, err := strconv.Atoi(conf["databases"])
	if err != nil || n < 2 {
		return 16
	}
	return n
}

func withDB(server string, db int) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + strconv.Itoa(db)
	return u.String()
}
