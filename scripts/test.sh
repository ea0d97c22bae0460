#!/usr/bin/env bash
# The one test command: formatting, vet, every Go test with the race detector
# against real PostgreSQL and Redis, the frontend's lint, type check, unit
# tests and browser tests, and the compose file check.
#
# When TEST_DATABASE_URL / TEST_REDIS_URL are unset it starts private
# throwaway servers from the local binaries and removes them afterwards. The
# tests only ever create and drop databases of their own on those servers.
#
# Plain `go test` skips the tests that need a server it was not given; here
# the servers are always provided, so a missing one fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh
export INFERNAL_REQUIRE_SERVERS=1

tmp=$(private_tmp infernal-test)
cleanup() {
	stop_private
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "${BENCH:-}" = 1 ]; then
	bench_only=1
else
	bench_only=0
fi

echo "== gofmt"
unformatted=$(gofmt -l cmd pkg e2e 2>/dev/null || true)
if [ -n "$unformatted" ]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== go mod tidy"
if ! go mod tidy -diff >"$tmp/tidy.diff" 2>&1; then
	echo "go.mod / go.sum are not tidy; run \`go mod tidy\`:" >&2
	cat "$tmp/tidy.diff" >&2
	exit 1
fi

echo "== golangci-lint"
# A pinned version, built once into the user's cache; .golangci.yml says what it checks.
lint_version=v2.15.0
lint_dir="${XDG_CACHE_HOME:-$HOME/.cache}/infernal/golangci-lint-$lint_version"
if [ ! -x "$lint_dir/golangci-lint" ]; then
	echo "installing golangci-lint $lint_version into $lint_dir"
	GOBIN="$lint_dir" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$lint_version"
fi
"$lint_dir/golangci-lint" run ./...

if [ -z "${TEST_DATABASE_URL:-}" ]; then
	start_private_postgres "$tmp"
	export TEST_DATABASE_URL="$private_database_url"
	echo "== private PostgreSQL on port $private_pg_port"
fi
if [ -z "${TEST_REDIS_URL:-}" ]; then
	start_private_redis "$tmp"
	export TEST_REDIS_URL="$private_redis_url"
	echo "== private Redis on port $private_redis_port"
fi

if [ "$bench_only" = 1 ]; then
	echo "== go benchmarks"
	go test -run '^$' -bench . -benchmem -count=1 ./...
	exit 0
fi

echo "== Bluesky's development network (e2e/atproto)"
# The Bluesky client's tests run against a real AT Protocol network on
# loopback (@atproto/dev-env on Node 22 from npm); installed once, in about
# 3 minutes on 2 cores, then reused while package-lock.json is unchanged.
bash e2e/atproto/install.sh

echo "== go test -race"
# e2e runs real binaries and server topologies one after another (the
# failover test alone starts seven servers); on a 2-core machine under the
# race detector it takes about 8 minutes, near go test's default 10.
go test -race -count=1 -timeout 25m ./...

if command -v docker-compose >/dev/null 2>&1; then
	echo "== docker-compose config"
	# The file requires the secrets scripts/env.sh generates; stand-ins do for the check.
	POSTGRES_PASSWORD=compose-check METRICS_TOKEN=compose-check-metrics-token docker-compose -f docker-compose.yml config -q
fi

if [ -f frontend/package.json ]; then
	echo "== frontend"
	(
		cd frontend
		[ -d node_modules ] || npm ci --no-audit --no-fund
		npm run check
		npm run build
		npm run test:e2e
	)
fi
