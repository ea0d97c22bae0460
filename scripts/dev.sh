#!/usr/bin/env bash
# The run command: build the frontend and the three binaries, then run web,
# worker and scheduler together until Ctrl-C stops them all.
#
# With DATABASE_URL / REDIS_URL unset it starts its own PostgreSQL and Redis
# from the local binaries, keeping their data under .data/ (git-ignored) so it
# survives restarts, and stops them on exit. With them set, it uses those.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh

echo "== building the frontend"
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build >/dev/null)
echo "== building web, worker and scheduler"
mkdir -p bin
for cmd in web worker scheduler; do
	go build -o "bin/$cmd" "./cmd/$cmd"
done

pids=() pg_dir="" redis_port=""
cleanup() {
	trap - INT TERM EXIT
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	[ -n "$redis_port" ] && stop_redis "$redis_port" save
	[ -n "$pg_dir" ] && stop_postgres "$pg_dir"
	echo "== stopped"
}
trap cleanup INT TERM EXIT

mkdir -p .data
chmod 755 .data
if [ -z "${DATABASE_URL:-}" ]; then
	pg_dir="$PWD/.data/postgres"
	port=${DEV_POSTGRES_PORT:-54666}
	start_postgres "$pg_dir" "$port"
	as_pg psql -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'infernal'" | grep -q 1 ||
		as_pg psql -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE infernal"
	export DATABASE_URL="postgres://postgres@127.0.0.1:$port/infernal?sslmode=disable"
	echo "== PostgreSQL on 127.0.0.1:$port (data in .data/postgres)"
fi
if [ -z "${REDIS_URL:-}" ]; then
	redis_port=${DEV_REDIS_PORT:-56666}
	start_redis "$PWD/.data/redis" "$redis_port"
	export REDIS_URL="redis://127.0.0.1:$redis_port/0"
	echo "== Redis on 127.0.0.1:$redis_port (data in .data/redis)"
fi
export HTTP_ADDR=${HTTP_ADDR:-127.0.0.1:8080}
# A generated admin password goes to this owner-only file, never into the log.
export ADMIN_PASSWORD_FILE=${ADMIN_PASSWORD_FILE:-$PWD/.data/admin-password}

bin/web & pids+=($!)
# The web tier applies the migrations; give it a head start before the others connect.
for _ in $(seq 1 100); do
	curl -fs "http://${HTTP_ADDR/#:/127.0.0.1:}/readyz" >/dev/null 2>&1 && break
	sleep 0.2
done
bin/worker & pids+=($!)
bin/scheduler & pids+=($!)

echo "== the site:  http://${HTTP_ADDR/#:/127.0.0.1:}/"
echo "== the admin: http://${HTTP_ADDR/#:/127.0.0.1:}/diaries666op/login (user ${ADMIN_USERNAME:-admin}; without ADMIN_PASSWORD the first start writes a generated password to $ADMIN_PASSWORD_FILE)"
echo "== Ctrl-C stops everything"
status=0
wait -n "${pids[@]}" || status=$?
# Ctrl-C reaches every process at once; only an exit on its own is news.
[ "$status" -ge 128 ] || echo "== a process exited (status $status); stopping the rest"
