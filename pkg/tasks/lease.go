package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// Timings of the leases Hold hands out: a holder renews every
// scanLeaseRenew; one that died lets go within scanLeaseTTL.
const (
	scanLeaseTTL   = 30 * time.Second
	scanLeaseRenew = 10 * time.Second
)

// leaseKeyPrefix prefixes the Redis key of every lease Hold hands out.
const leaseKeyPrefix = "infernal:lease:"

// Hold takes the lease called name in Redis unless another process holds
// it, and keeps renewing it until release is called. held is false when
// another holder has it. The returned context ends when the lease is lost
// (not renewed within its lifetime, or taken over after it lapsed) or when
// ctx ends, so the holder stops working on what it no longer owns. release
// gives the lease back and must be called when held is true; a lease it
// could not give back lapses on its own after scanLeaseTTL.
func (c *Client) Hold(ctx context.Context, name string) (leased context.Context, release func() error, held bool, err error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, nil, false, fmt.Errorf("tasks: lease %s: %w", name, err)
	}
	token, key := hex.EncodeToString(b), leaseKeyPrefix+name
	ok, err := c.redis.SetNX(ctx, key, token, scanLeaseTTL).Result()
	if err != nil {
		return nil, nil, false, fmt.Errorf("tasks: lease %s: %w", name, err)
	}
	if !ok {
		return nil, nil, false, nil
	}
	leased, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(scanLeaseRenew)
		defer tick.Stop()
		renewed := time.Now()
		for {
			select {
			case <-leased.Done():
				return
			case <-tick.C:
				n, err := renewScript.Run(leased, c.redis, []string{key}, token, scanLeaseTTL.Milliseconds()).Int()
				switch {
				case err == nil && n == 1:
					renewed = time.Now()
				case err == nil, time.Since(renewed) >= scanLeaseTTL-scanLeaseRenew:
					// Taken over, or about to lapse while Redis does not answer: stop working.
					cancel()
					return
				}
			}
		}
	}()
	release = func() error {
		cancel()
		<-done
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer rcancel()
		if err := releaseScript.Run(rctx, c.redis, []string{key}, token).Err(); err != nil {
			return fmt.Errorf("tasks: release lease %s (it lapses on its own): %w", name, err)
		}
		return nil
	}
	return leased, release, true, nil
}
