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
#
# On 2 cores the Go tests are the long pole (the end-to-end package waits a
# minute twice for asynq to give a dead worker's task back), so the work
# that does not depend on them runs beside them: the install of Bluesky's
# development network beside the static checks, and the frontend's static
# check and build beside the Go tests; each one's output is shown when it
# is waited for, and a failure fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh
export INFERNAL_REQUIRE_SERVERS=1
# Without -trimpath the go command keys every compiled package of this
# repository by the folder it sits in, so a fresh clone recompiles (and
# re-vets, and re-lints) all of it: about 200 s of CPU. With it, clones of
# the same code share the build cache. The e2e tests' and the browser
# tests' builds inherit it.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"

tmp=$(private_tmp infernal-test)
# pids holds the steps started with `beside`, by name.
declare -A pids=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		# Each step leads a process group of its own (setsid): stop all of it.
		kill -- "-$pid" 2>/dev/null || true
	done
	stop_private
	rm -rf "$tmp"
}
trap cleanup EXIT

# beside NAME COMMAND... runs COMMAND in the background, its output kept in
# $tmp/NAME.log; settle NAME waits for it, shows that output and fails the
# run if it failed.
beside() {
	local name=$1
	shift
	setsid "$@" >"$tmp/$name.log" 2>&1 &
	pids[$name]=$!
}
settle() {
	local name=$1 status=0
	wait "${pids[$name]}" || status=$?
	unset "pids[$name]"
	cat "$tmp/$name.log"
	if [ "$status" != 0 ]; then
		echo "test.sh: $name failed (exit $status)" >&2
		exit 1
	fi
}

if [ "${BENCH:-}" = 1 ]; then
	bench_only=1
else
	bench_only=0
fi

if [ "$bench_only" = 0 ]; then
	# Needed by the Go tests only; fetched and built (about 3 minutes, once
	# per lock file: e2e/atproto/install.sh keeps it in the user's cache)
	# while the static checks run.
	beside atproto bash e2e/atproto/install.sh
fi

echo "== gofmt"
unformatted=$(gofmt -l cmd pkg e2e bench 2>/dev/null || true)
if [ -n "$unformatted" ]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== go mod tidy"
for dir in . bench; do
	if ! (cd "$dir" && go mod tidy -diff) >"$tmp/tidy.diff" 2>&1; then
		echo "$dir/go.mod / go.sum are not tidy; run \`go mod tidy\` in $dir:" >&2
		cat "$tmp/tidy.diff" >&2
		exit 1
	fi
done

echo "== bench module (built and vetted, not run)"
# bench/ is a module of its own (make bench); building it here keeps
# `make bench` buildable from a clean clone.
(cd bench && go build ./... && go vet ./...)

echo "== golangci-lint"
# A pinned version, built once into the user's cache; .golangci.yml says what it checks.
lint_version=v2.15.0
lint_dir="${XDG_CACHE_HOME:-$HOME/.cache}/infernal/golangci-lint-$lint_version"
if [ ! -x "$lint_dir/golangci-lint" ]; then
	echo "installing golangci-lint $lint_version into $lint_dir"
	GOBIN="$lint_dir" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$lint_version"
fi
# Other checkouts on the machine may lint at the same time; without the flag
# the second run fails at once ("parallel golangci-lint is running").
"$lint_dir/golangci-lint" run --allow-parallel-runners ./...

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
# loopback (@atproto/dev-env on Node 22 from npm).
settle atproto

if [ -f frontend/package.json ]; then
	# Types, lint, unit tests and the bundle, beside the Go tests; the
	# browser tests, which need the bundle, follow them.
	beside frontend bash -c 'cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run check && npm run build'
fi

echo "== go test -race"
# The end-to-end tests (e2e/) run at once, -parallel 8: each has its own
# database, Redis database, fakes and ports, and most of their time is
# spent waiting (for schedules, leases, processes). They build the three
# binaries once per run. The packages whose tests take longest are named
# first: go test starts packages in the order given, and ./... alone (in
# alphabetical order) left telegram, store, tasks and Bluesky's for last,
# with one core idle after the others were done.
go test -race -count=1 -parallel 8 -timeout 25m ./e2e ./pkg/pipeline ./pkg/api ./pkg/platform/bluesky \
	./pkg/telegram ./pkg/store ./pkg/tasks ./pkg/guard ./...

if command -v docker-compose >/dev/null 2>&1; then
	echo "== docker-compose config"
	# The file requires the secrets scripts/env.sh generates; stand-ins do for the check.
	POSTGRES_PASSWORD=compose-check METRICS_TOKEN=compose-check-metrics-token docker-compose -f docker-compose.yml config -q
fi

if [ -f frontend/package.json ]; then
	echo "== frontend: types, lint, unit tests, build"
	settle frontend
	echo "== frontend: browser tests"
	(cd frontend && npm run test:e2e)
fi
