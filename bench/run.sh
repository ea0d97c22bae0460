#!/usr/bin/env bash
# make bench: the product's benchmark (a million posts, the public pages and the
# pipeline) against private throwaway PostgreSQL
# and Redis (started from the local binaries as scripts/test.sh does, and
# removed afterwards). Writes bench/RESULTS.md.
#
#   SCALE=0.1 make bench      a tenth of the data set (100,000 posts)
#   DURATION=5s make bench    shorter load runs (default 10s each)
#   PARTS=pipeline make bench the pipeline part alone (PARTS=burst: the burst of mentions alone;
#                             PARTS=flood: the flood of the public statistics and its admin probe alone;
#                             PARTS=model: the drafts through a rate-limited stand-in model alone;
#                             PARTS=readpath: the three public API pages alone;
#                             PARTS=telegram: the time from a mention to its Telegram card alone;
#                             PARTS=insights: issue 31's insights of 90 days computed alone;
#                             PARTS=learning: issue 37's retrieval of examples and lessons alone;
#                             PARTS=knowledge: issue 38's retrieval of facts and indexing alone)
#   MODEL_MENTIONS=120 MODEL_RATE=240 make bench   a smaller model leg (defaults 600 and 600 a minute)
#
# The public pages are loaded with wrk when it is installed, else with the
# benchmark's own keep-alive generator (RESULTS.md says which).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh

scale=${SCALE:-1}
duration=${DURATION:-10s}
tmp=$(private_tmp infernal-bench)
cleanup() {
	stop_private
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "== build"
go build -o "$tmp/web" ./cmd/web
go build -o "$tmp/worker" ./cmd/worker
# The benchmark has a module of its own, so its load generator never enters the product's.
go build -C bench -o "$tmp/bench" ./cmd/bench
go build -C bench -o "$tmp/modelbench" ./cmd/modelbench
[ "${PARTS:-all}" = model ] || [ -f frontend/dist/index.html ] || make frontend

start_private_postgres "$tmp"
start_private_redis "$tmp"
echo "== private PostgreSQL on port $private_pg_port, Redis on port $private_redis_port"

command -v wrk >/dev/null || echo "== wrk not installed: the public pages are loaded by the benchmark's keep-alive generator"
[ "${PARTS:-all}" = burst ] || [ "${PARTS:-all}" = model ] || [ "${PARTS:-all}" = telegram ] || [ "${PARTS:-all}" = insights ] || [ "${PARTS:-all}" = learning ] || [ "${PARTS:-all}" = knowledge ] || "$tmp/bench" -pg "$private_database_url" \
	-redis "$private_redis_url" -web "$tmp/web" -worker "$tmp/worker" -parts "${PARTS:-all}" -static frontend/dist \
	-scale "$scale" -duration "$duration" -out "${OUT:-bench/RESULTS.md}" -analysis bench/ANALYSIS.md
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = insights ]; then
	# Issue 31's figure: the insights of 90 days computed from a history of
	# 1,000,000 posts (times SCALE), as a cache miss of /api/insights does.
	echo "== insights of 90 days, computed"
	posts=$(awk -v s="$scale" 'BEGIN { printf "%d", 1000000 * s }')
	insights=$(INSIGHTS_POSTS="$posts" TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" INFERNAL_REQUIRE_SERVERS=1 \
		go test -run '^$' -bench BenchmarkInsights90Days -benchtime 10x -count 1 -timeout 20m ./pkg/store/ | grep '^Benchmark')
	{
		echo
		echo "## Insights of 90 days, computed (issue 31)"
		echo
		echo "$posts posts over two years."
		echo "computed: the statement GET /api/insights runs when its cache holds no fresh answer; cached: the admin's calls while the worker keeps the range computed."
		echo
		echo '```'
		echo "$insights"
		echo '```'
	} >>"${OUT:-bench/RESULTS.md}"
fi
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = learning ]; then
	# Issue 37's figure: the examples and lessons of one draft retrieved from
	# 100,000 cases and 1,000 lessons (times SCALE), as every draft does.
	echo "== learning: retrieval of examples and lessons"
	cases=$(awk -v s="$scale" 'BEGIN { printf "%d", 100000 * s }')
	lessons=$(awk -v s="$scale" 'BEGIN { n = int(1000 * s); if (n < 1) n = 1; printf "%d", n }')
	learning=$(LEARNING_CASES="$cases" LEARNING_LESSONS="$lessons" TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" \
		INFERNAL_REQUIRE_SERVERS=1 go test -run '^$' -bench BenchmarkRetrieval -benchtime 200x -count 1 -timeout 30m ./pkg/learning/shaper/ | grep '^Benchmark')
	{
		echo
		echo "## Learning: retrieval of examples and lessons (issue 37)"
		echo
		echo "$cases cases and $lessons lessons; one draft's examples (3) and lessons (5), as the worker retrieves them. Target: p95 at most 20 ms."
		echo
		echo '```'
		echo "$learning"
		echo '```'
	} >>"${OUT:-bench/RESULTS.md}"
fi
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = knowledge ]; then
	# Issue 38's figures: the facts of one draft retrieved from 200
	# documents of 1 MB (times SCALE documents), and the indexing of a 1 MB upload.
	echo "== knowledge: retrieval of facts, indexing of an upload"
	docs=$(awk -v s="$scale" 'BEGIN { n = int(200 * s); if (n < 1) n = 1; printf "%d", n }')
	knowledge=$(KNOWLEDGE_DOCS="$docs" TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" \
		INFERNAL_REQUIRE_SERVERS=1 go test -run '^$' -bench BenchmarkRetrieval -benchtime 200x -count 1 -timeout 60m ./pkg/knowledge/ | grep '^Benchmark')
	index=$(TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" \
		INFERNAL_REQUIRE_SERVERS=1 go test -run '^$' -bench BenchmarkIndex -benchtime 5x -count 1 -timeout 10m ./pkg/knowledge/ | grep '^Benchmark')
	{
		echo
		echo "## Knowledge base: retrieval of facts and indexing (issue 38)"
		echo
		echo "$docs documents of 1 MB; one draft's facts (up to 5), as the worker retrieves them (target: p95 at most 20 ms); BenchmarkIndex is one 1 MB upload cut and stored (target: at most 5 s)."
		echo
		echo '```'
		echo "$knowledge"
		echo "$index"
		echo '```'
	} >>"${OUT:-bench/RESULTS.md}"
fi
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = burst ]; then
	# The burst: one worker, the offline writer, a burst of 1,500 mentions
	# from the scans to the admin's list (BenchmarkBurstOfMentionsDrafted).
	echo "== burst of mentions"
	burst=$(TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" INFERNAL_REQUIRE_SERVERS=1 \
		go test -run '^$' -bench BenchmarkBurstOfMentionsDrafted -benchtime 1x -count 1 ./pkg/pipeline/ | grep '^Benchmark')
	{
		echo
		echo "## Burst of mentions (issue 12)"
		echo
		echo "One worker, the offline writer: 1,500 mentions from the scans to the admin's list. Target: within 2 minutes."
		echo
		echo '```'
		echo "$burst"
		echo '```'
	} >>"${OUT:-bench/RESULTS.md}"
fi
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = telegram ]; then
	# The Telegram leg: at the shipped default schedules, the time from a mention on
	# X (a stand-in) to its card in Telegram (a stand-in), with the real binaries.
	echo "== mention to Telegram"
	latency=$(TEST_DATABASE_URL="$private_database_url" TEST_REDIS_URL="$private_redis_url" INFERNAL_REQUIRE_SERVERS=1 \
		INFERNAL_BENCH_LATENCY=1 go test -count 1 -run '^TestMentionToTelegramLatency$' -v ./e2e/ | grep '^mention to Telegram')
	{
		echo
		echo "## Mention to Telegram (issue 26)"
		echo
		echo "The real scheduler (default SCHEDULE_MENTIONS), one worker (offline writer) and the web tier against stand-ins of X and"
		echo "Telegram's Bot API: 20 mentions posted at random moments over three minutes. Target: p95 within 60 s."
		echo
		echo '```'
		echo "$latency"
		echo '```'
	} >>"${OUT:-bench/RESULTS.md}"
fi
if [ "${PARTS:-all}" = all ] || [ "${PARTS:-all}" = model ]; then
	# The model leg: drafts at the model's speed, through a local OpenAI-compatible
	# stand-in answering in 1 s that allows R requests a minute and announces its window.
	echo "== drafts through a rate-limited model"
	mentions=${MODEL_MENTIONS:-600}
	rate=${MODEL_RATE:-600}
	model=$("$tmp/modelbench" -pg "$private_database_url" -redis "$private_redis_url" -worker "$tmp/worker" \
		-mentions "$mentions" -rate "$rate")
	{
		echo
		echo "## Drafts at the model's speed (issue 20)"
		echo
		echo "A burst of $mentions mentions drafted through a local OpenAI-compatible stand-in that answers in 1 s."
		echo "First leg: two workers (MODEL_CONCURRENCY=16 each) share its window of $rate requests a minute,"
		echo "announced in OpenAI's x-ratelimit-* headers (a bucket of a second's worth, refilling evenly; 429 beyond it)."
		echo "Second leg: one worker against the stand-in announcing no limits, as a local server does."
		echo "Bound: max(calls × 1 s / calls in flight, calls / R per minute). Target: drained within 1.25× the bound,"
		echo "no call inside a window the stand-in announced closed (remaining 0, until its refill brings the next request; a 429, until its retry-after)."
		echo "Measured on $(nproc) cores shared with other work: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
		echo
		echo "$model"
	} >>"${OUT:-bench/RESULTS.md}"
fi
echo "== wrote bench/RESULTS.md"
