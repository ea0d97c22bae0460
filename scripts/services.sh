# Start private PostgreSQL and Redis servers from the local binaries.
# Sourced by scripts/test.sh and scripts/dev.sh; defines functions only.
#
#   start_postgres DIR PORT [throwaway]
#                             initialises DIR if empty, starts postgres on 127.0.0.1:PORT;
#                             durable (fsync on) unless "throwaway", for test servers
#                             whose data is deleted after the run: no fsync, no
#                             synchronous commit (a crash can lose or corrupt their data)
#   stop_postgres DIR
#   start_redis DIR PORT      starts redis-server on 127.0.0.1:PORT, data kept in DIR
#   stop_redis PORT [save|nosave]
#   free_port                 prints a TCP port nobody listens on, below the
#                             kernel's ephemeral range (outgoing connections never take it)
#
# The private throwaway servers of scripts/test.sh and bench/run.sh:
#
#   private_tmp NAME          makes /tmp/NAME.XXXXXX (readable by the postgres
#                             user, who runs the server when we are root) and prints it
#   start_private_postgres TMP
#                             a throwaway server in TMP/pg on a free port; sets
#                             private_pg_port and private_database_url
#   start_private_redis TMP   a server in TMP/redis on a free port; sets
#                             private_redis_port and private_redis_url
#   stop_private              stops what the two above started (for an EXIT trap)

pg_bin() {
	# Debian keeps the server binaries off PATH, one folder per major version.
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
		return 0
	fi
	d=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
	if [ -x "$d/initdb" ]; then
		echo "$d"
		return 0
	fi
	echo "services: no PostgreSQL server binaries found (install Debian's postgresql package)" >&2
	return 1
}

# as_pg runs a command as the postgres user when we are root, since postgres refuses root.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

free_port() {
	local p low
	# Below the kernel's ephemeral range: a port in it may be taken, between
	# this check and the server's bind, by the local end of any outgoing
	# connection (the parallel tests make many), and the bind then fails.
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$low" -gt 21000 ] 2>/dev/null || low=32768
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % (low - 20000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "services: no free port found" >&2
	return 1
}

start_postgres() {
	local dir=$1 port=$2 mode=${3:-durable} bin initdb_opts="" server_opts=""
	case $mode in
	durable) ;;
	throwaway)
		initdb_opts="--no-sync"
		server_opts="-c fsync=off -c synchronous_commit=off"
		;;
	*)
		echo "services: start_postgres: unknown mode $mode (durable or throwaway)" >&2
		return 1
		;;
	esac
	bin=$(pg_bin) || return 1
	mkdir -p "$dir"
	if [ "$(id -u)" = 0 ]; then
		chown -R postgres "$dir"
		chmod 700 "$dir"
	fi
	if [ -f "$dir/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
		# Left running by a run that was killed without cleaning up: use it as it is.
		return 0
	fi
	if [ ! -f "$dir/PG_VERSION" ]; then
		as_pg "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 $initdb_opts >"$dir.initdb.log" 2>&1 || {
			cat "$dir.initdb.log" >&2
			return 1
		}
	fi
	as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 $server_opts -c max_connections=200" \
		start >/dev/null || {
		cat "$dir/server.log" >&2
		return 1
	}
}

stop_postgres() {
	local dir=$1 bin
	bin=$(pg_bin) || return 1
	as_pg "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

start_redis() {
	local dir=$1 port=$2
	mkdir -p "$dir"
	if redis-cli -p "$port" ping >/dev/null 2>&1; then
		# Left running by a run that was killed without cleaning up: use it as it is.
		return 0
	fi
	# 64 databases, not 16: under the test command, the tests of several
	# packages running at once each claim one a test (pkg/tasks/taskstest).
	redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir" --databases 64 \
		--save 60 1 --appendonly no --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" >/dev/null || return 1
	for _ in $(seq 1 100); do
		redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "services: redis did not start on port $port" >&2
	return 1
}

stop_redis() {
	redis-cli -p "$1" shutdown "${2:-nosave}" >/dev/null 2>&1 || true
}

private_tmp() {
	local d
	d=$(mktemp -d "/tmp/$1.XXXXXX") || return 1
	chmod 755 "$d"
	echo "$d"
}

start_private_postgres() {
	private_pg_dir="$1/pg"
	private_pg_port=$(free_port) || return 1
	start_postgres "$private_pg_dir" "$private_pg_port" throwaway || return 1
	private_database_url="postgres://postgres@127.0.0.1:$private_pg_port/postgres?sslmode=disable"
}

start_private_redis() {
	private_redis_port=$(free_port) || return 1
	start_redis "$1/redis" "$private_redis_port" || return 1
	private_redis_url="redis://127.0.0.1:$private_redis_port/0"
}

stop_private() {
	[ -n "${private_pg_dir:-}" ] && stop_postgres "$private_pg_dir"
	[ -n "${private_redis_port:-}" ] && stop_redis "$private_redis_port"
	return 0
}
