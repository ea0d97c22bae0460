// Package servertest decides what a test does when the PostgreSQL or Redis
// server it needs is not named: plain `go test` skips it with a message, so
// the tests that need no server still run anywhere; the test command
// (scripts/test.sh), which always provides the servers, sets RequireEnv so
// that there a missing server fails instead of passing unseen.
package servertest

import (
	"os"
	"testing"
)

// RequireEnv is the environment variable that, set to 1, turns a missing
// server into a failure instead of a skip.
const RequireEnv = "INFERNAL_REQUIRE_SERVERS"

// URL returns the server URL held by the environment variable name, for a
// test that needs what (a server's name, for the message). When it is unset
// the test is skipped, or failed when RequireEnv is 1.
func URL(t testing.TB, name, what string) string {
	t.Helper()
	if u := os.Getenv(name); u != "" {
		return u
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s is unset while %s=1: this test needs %s; the test command must provide it", name, RequireEnv, what)
	}
	t.Skipf("skipped: this test needs %s; set %s (`make test` starts a private one) to run it", what, name)
	return ""
}
