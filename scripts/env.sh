#!/usr/bin/env bash
# Writes .env, which docker compose reads, with generated secrets: the
# database password and the token Prometheus scrapes /metrics with. A value
# already in .env is kept, so running it again changes nothing (and a
# database created with the first password keeps working). The file is
# readable by its owner only; add your own settings (PLATFORM=x, the X_* and
# OPENAI_* credentials, ADMIN_PASSWORD, PUBLIC_URL, ...) to it.
set -euo pipefail
cd "$(dirname "$0")/.."

file=${ENV_FILE:-.env}
umask 077
touch "$file"
chmod 600 "$file"

# 24 random bytes as 48 hex digits: safe inside a URL and a YAML value.
random() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

for name in POSTGRES_PASSWORD METRICS_TOKEN; do
	if grep -q "^$name=." "$file"; then
		echo "$file: $name kept"
	else
		# An empty assignment left by hand is replaced, not doubled.
		sed -i "/^$name=\$/d" "$file"
		echo "$name=$(random)" >>"$file"
		echo "$file: $name generated"
	fi
done
