package auth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"infernal/pkg/auth"
	"infernal/pkg/store/storetest"
)

// Concurrent wrong logins reserve their attempt before the password is
// hashed: however many arrive at once, no more than the limit are checked.
func TestConcurrentLoginsHashAtMostTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		username func(i int) string
		want     int
	}{
		{name: "one name from one address", username: func(int) string { return "admin" }, want: auth.MaxPerUsername},
		{name: "many names from one address", username: func(i int) string { return "guess" + strconv.Itoa(i) }, want: auth.MaxPerAddress},
	}
	const attempts = 40
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.New(t)
			// Room for every attempt at once, so that only the throttle can hold them back.
			svc, err := auth.NewService(st, time.Hour, time.Now, light, auth.WithConcurrentChecks(attempts),
				auth.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
			var hashed atomic.Int64
			auth.SetPasswordCheck(svc, func(hash, password string) (bool, error) {
				hashed.Add(1)
				return auth.CheckPassword(hash, password)
			})
			auth.SetSleep(svc, func(context.Context, time.Duration) error { return nil })
			var wg sync.WaitGroup
			var refused, throttled atomic.Int64
			start := make(chan struct{})
			for i := 0; i < attempts; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, _, err := svc.Login(ctx, tt.username(i), "wrong", "198.51.100.7")
					var th *auth.ThrottledError
					switch {
					case errors.Is(err, auth.ErrInvalidCredentials):
						refused.Add(1)
					case errors.As(err, &th):
						throttled.Add(1)
					default:
						t.Errorf("attempt %d: %v", i, err)
					}
				}()
			}
			close(start)
			wg.Wait()
			if got := hashed.Load(); got > int64(tt.want) {
				t.Errorf("%d of %d concurrent wrong logins were hashed, want at most %d", got, attempts, tt.want)
			}
			if refused.Load() != hashed.Load() || refused.Load()+throttled.Load() != attempts {
				t.Errorf("refused %d, throttled %d, hashed %d of %d", refused.Load(), throttled.Load(), hashed.Load(), attempts)
			}
			f, err := st.CountLoginFailures(ctx, tt.username(0), "198.51.100.7", time.Time{})
			if err != nil || f.ByAddress != int(refused.Load()) {
				t.Errorf("recorded failures %+v (%v), want %d", f, err, refused.Load())
			}
		})
	}
}

// No more passwords are checked at once than the bound; the logins beyond it
// are refused at once with a Retry-After, and do not count as failures.
func TestConcurrentChecksAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	const bound, attempts = 2, 10
	svc, err := auth.NewService(st, time.Hour, time.Now, light, auth.WithConcurrentChecks(bound))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, attempts)
	release := make(chan struct{})
	var inFlight, most atomic.Int64
	auth.SetPasswordCheck(svc, func(hash, password string) (bool, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		return auth.CheckPassword(hash, password)
	})
	results := make(chan error, attempts)
	for i := 0; i < attempts; i++ {
		go func() {
			// Distinct names and addresses: no throttle and no delay applies.
			_, _, err := svc.Login(ctx, "name"+strconv.Itoa(i), "wrong", "203.0.113."+strconv.Itoa(i+1))
			results <- err
		}()
	}
	var busy, got, in int
	for busy < attempts-bound && in <= bound {
		select {
		case err := <-results:
			got++
			var th *auth.ThrottledError
			if !errors.As(err, &th) || th.RetryAfter < time.Second || !strings.Contains(th.Error(), "in progress") {
				t.Fatalf("a login beyond the bound: %v, want throttled as busy", err)
			}
			busy++
		case <-entered:
			in++
		}
	}
	close(release)
	invalid := 0
	for ; got < attempts; got++ {
		if err := <-results; !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Errorf("a login within the bound: %v, want Invalid credentials", err)
		}
		invalid++
	}
	if most.Load() > bound || in > bound || invalid != bound {
		t.Errorf("%d passwords were checked at once (%d entered, %d answered), bound %d", most.Load(), in, invalid, bound)
	}
	recorded := 0
	for i := 0; i < attempts; i++ {
		f, err := st.CountLoginFailures(ctx, "", "203.0.113."+strconv.Itoa(i+1), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		recorded += f.ByAddress
	}
	if recorded != invalid {
		t.Errorf("%d failures recorded for %d checked passwords: logins refused as busy must not count", recorded, invalid)
	}
}

// Failed logins for the admin's name from many addresses slow its logins
// down and alert the operator, but never lock the right password out.
func TestNameWideFailuresSlowDownWithoutLockingOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	var logs bytes.Buffer
	svc, err := auth.NewService(st, time.Hour, time.Now, light, auth.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	var delays []time.Duration
	auth.SetSleep(svc, func(_ context.Context, d time.Duration) error {
		delays = append(delays, d)
		return nil
	})
	const attackers = 12
	for i := 0; i < attackers; i++ {
		if _, _, err := svc.Login(ctx, "admin", "wrong", "192.0.2."+strconv.Itoa(i+1)); !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Fatalf("attacker %d: %v", i, err)
		}
	}
	if _, _, err := svc.Login(ctx, "admin", "hellfire666", "198.51.100.1"); err != nil {
		t.Fatalf("the right password from a fresh address after %d failures elsewhere: %v", attackers, err)
	}
	if len(delays) != attackers+1-auth.SlowAfter {
		t.Fatalf("delays %v: want one per attempt after the first %d failures", delays, auth.SlowAfter)
	}
	for i := 1; i < len(delays); i++ {
		if delays[i] < delays[i-1] || delays[i] > auth.MaxDelay {
			t.Errorf("delays %v do not grow up to %v", delays, auth.MaxDelay)
		}
	}
	if delays[len(delays)-1] != auth.MaxDelay {
		t.Errorf("delays %v never reach %v", delays, auth.MaxDelay)
	}
	if !strings.Contains(logs.String(), "many failed logins for one name") || !strings.Contains(logs.String(), "username=admin") {
		t.Errorf("no alert in the log: %s", logs.String())
	}
}

// The throttle groups IPv6 addresses by /64: one subscriber cannot dodge it
// by walking through its own prefix.
func TestThrottleGroupsIPv6By64(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now, light)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < auth.MaxPerUsername; i++ {
		if _, _, err := svc.Login(ctx, "admin", "wrong", "2001:db8:1:2::"+strconv.Itoa(i+1)); !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	tests := []struct {
		name      string
		address   string
		throttled bool
	}{
		{name: "same /64", address: "2001:db8:1:2:ffff::9", throttled: true},
		{name: "another /64", address: "2001:db8:1:3::1", throttled: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := svc.Login(ctx, "admin", "hellfire666", tt.address)
			var th *auth.ThrottledError
			if errors.As(err, &th) != tt.throttled || (!tt.throttled && err != nil) {
				t.Errorf("login from %s: %v, want throttled %v", tt.address, err, tt.throttled)
			}
		})
	}
}

func TestThrottleAddress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		address string
		want    string
	}{
		{name: "ipv4", address: "203.0.113.7", want: "203.0.113.7"},
		{name: "ipv4-mapped ipv6", address: "::ffff:203.0.113.7", want: "203.0.113.7"},
		{name: "ipv6", address: "2001:db8:1:2:3:4:5:6", want: "2001:db8:1:2::/64"},
		{name: "ipv6 with zone", address: "fe80::1%eth0", want: "fe80::/64"},
		{name: "not an address", address: "pipe", want: "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.ThrottleAddress(tt.address); got != tt.want {
				t.Errorf("ThrottleAddress(%q) = %q, want %q", tt.address, got, tt.want)
			}
		})
	}
}

func TestSlowDown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		failures int
		want     time.Duration
	}{
		{name: "at the threshold", failures: auth.SlowAfter, want: 100 * time.Millisecond},
		{name: "one more", failures: auth.SlowAfter + 1, want: 200 * time.Millisecond},
		{name: "four more", failures: auth.SlowAfter + 4, want: 1600 * time.Millisecond},
		{name: "capped", failures: auth.SlowAfter + 5, want: auth.MaxDelay},
		{name: "far beyond", failures: 10000, want: auth.MaxDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.SlowDown(tt.failures); got != tt.want {
				t.Errorf("SlowDown(%d) = %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}
