package auth

import (
	"context"
	"time"
)

// SetPasswordCheck replaces CheckPassword in s, so that tests can count and
// hold the checks.
func SetPasswordCheck(s *Service, check func(hash, password string) (bool, error)) { s.check = check }

// SetSleep replaces the progressive delay's wait in s, so that tests record
// the delays instead of waiting them out.
func SetSleep(s *Service, sleep func(ctx context.Context, d time.Duration) error) { s.sleep = sleep }

// ThrottleAddress exposes throttleAddress to the tests.
func ThrottleAddress(address string) string { return throttleAddress(address) }

// SlowDown exposes slowDown to the tests.
func SlowDown(failures int) time.Duration { return slowDown(failures) }
