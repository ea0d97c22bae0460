#!/usr/bin/env bash
# Writes .env, which docker compose reads, with generated secrets: the
# database password and the token Prometheus scrapes /metrics with. A value
# already in .env is kept, so running it again changes nothing (and a
# database created with the first password keeps working). It also writes
# the spending ceilings (the product's defaults, $2 a day and $40 a month of
# X, $1 a day and $20 a month of the model), so that they stand in the file
# to be read and changed; "none" there lifts one. The file is
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

# Spending ceilings in US dollars: a value already there, "none" included, is kept.
for pair in X_DAILY_BUDGET_USD=2 X_MONTHLY_BUDGET_USD=40 MODEL_DAILY_BUDGET_USD=1 MODEL_MONTHLY_BUDGET_USD=20; do
	name=${pair%%=*}
	if grep -q "^$name=." "$file"; then
		echo "$file: $name kept"
	else
		sed -i "/^$name=\$/d" "$file"
		echo "$pair" >>"$file"
		echo "$file: $pair written"
	fi
done
