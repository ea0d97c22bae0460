package storetest

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// generatePostsSQL makes $1 posts of a busy persona's two years: every
// source and status, texts of realistic lengths, engagement skewed so that
// a few posts draw most of it. Each post's traits come from hashes of its
// number, so a run is reproducible apart from now().
const generatePostsSQL = `
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
	original_post_user, author_username, author_id, created_at, category, likes_count, retweets_count, replies_count,
	proposed_response, approved_at, rejected_at, posted_at, response_post_id,
	response_likes, response_retweets, response_replies, error, updated_at, guarded_at, skip_reason,
	inserted_at, drafted_at, persona_version, review_score, edited, likes_24h, retweets_24h, replies_24h)
SELECT 'sandbox', g.source, g.status,
	CASE WHEN g.source = 'profile' THEN NULL ELSE 'gen' || g.i END,
	CASE WHEN g.source = 'profile' THEN NULL ELSE 'conv' || (g.i % 300000) END,
	CASE WHEN g.source = 'profile' THEN '' ELSE left(repeat('why is monday coffee always a deadline at the gym ', 6), 20 + g.h % 260) END,
	'Mortal ' || g.i % 50000, 'mortal' || g.i % 50000,
	-- Most authors have their stable id; a fifth of the posts are from before ids were kept.
	CASE WHEN g.i % 5 = 0 THEN '' ELSE (1000000 + g.i % 50000)::text END, g.created_at,
	CASE WHEN g.status IN ('drafting', 'skipped') THEN '' ELSE (ARRAY['pride','greed','wrath','envy','lust','gluttony','sloth'])[1 + g.h % 7] END,
	g.likes, g.likes / 5 + g.h % 3, g.likes / 9 + g.h % 2,
	CASE WHEN g.status IN ('drafting', 'skipped') THEN '' ELSE left(repeat('Your sin is noted, mortal, and the furnace hums for you. ', 5), 40 + g.h % 230) END,
	CASE WHEN g.status IN ('approved', 'posted') THEN g.created_at + interval '20 minutes' END,
	CASE WHEN g.status = 'rejected' THEN g.created_at + interval '30 minutes' END,
	CASE WHEN g.status = 'posted' THEN g.created_at + interval '25 minutes' END,
	CASE WHEN g.status = 'posted' THEN 'resp' || g.i END,
	CASE WHEN g.status = 'posted' THEN g.likes * 2 ELSE 0 END,
	CASE WHEN g.status = 'posted' THEN g.likes / 4 ELSE 0 END,
	CASE WHEN g.status = 'posted' THEN g.likes / 8 ELSE 0 END,
	CASE WHEN g.status = 'failed' THEN 'the platform refused the reply' ELSE '' END,
	g.created_at + interval '30 minutes',
	CASE WHEN g.status NOT IN ('drafting', 'skipped') AND g.source <> 'profile' THEN g.created_at + interval '5 minutes' END,
	CASE WHEN g.status = 'skipped' THEN 'cap: conversation (1 of 1)' ELSE '' END,
	g.created_at + interval '1 minute',
	CASE WHEN g.status NOT IN ('drafting', 'skipped') THEN g.created_at + interval '6 minutes' END,
	CASE WHEN g.status NOT IN ('drafting', 'skipped') THEN 1 + g.h % 3 END,
	CASE WHEN g.status NOT IN ('drafting', 'skipped') THEN 1 + (g.h / 7) % 5 END,
	g.status IN ('approved', 'posted') AND g.h % 10 = 0,
	CASE WHEN g.status = 'posted' THEN g.likes * 2 END,
	CASE WHEN g.status = 'posted' THEN g.likes / 4 END,
	CASE WHEN g.status = 'posted' THEN g.likes / 8 END
FROM (
	SELECT i, h,
		CASE WHEN h % 100 < 40 THEN 'mention' WHEN h % 100 < 75 THEN 'conversation'
		     WHEN h % 100 < 95 THEN 'targeted' ELSE 'profile' END AS source,
		CASE WHEN (h / 100) % 1000 < 450 THEN 'posted' WHEN (h / 100) % 1000 < 930 THEN 'rejected'
		     WHEN (h / 100) % 1000 < 960 THEN 'skipped'
		     WHEN (h / 100) % 1000 < 985 THEN 'pending' WHEN (h / 100) % 1000 < 992 THEN 'failed'
		     WHEN (h / 100) % 1000 < 995 THEN 'approved' ELSE 'drafting' END AS status,
		now() - (i::double precision / $1) * interval '730 days' AS created_at,
		-- Skewed: most posts draw a handful of likes, a few draw thousands.
		floor(power((h % 10007) / 10007.0, 12) * 20000)::int + h % 5 AS likes
	FROM (SELECT i, abs(hashint4(i)) AS h FROM generate_series(1, $1) AS i) AS n
) AS g`

// generateLogSQL files the posted posts in the public log, in %d threads
// (a number formatted in: the statements take no parameters), several
// exchanges per thread.
const generateLogSQL = `
CREATE TEMP TABLE gen_posted AS
	SELECT id, source, posted_at, (row_number() OVER (ORDER BY id) - 1) %% %d AS t FROM posts WHERE status = 'posted';
INSERT INTO log_threads (type, thread_key, latest_timestamp, created_at)
	SELECT CASE WHEN bool_and(source = 'profile') THEN 'CONSCIOUSNESS_BROADCAST' ELSE 'MORTAL_INTERACTION' END,
		'gen:' || t, max(posted_at), min(posted_at)
	FROM gen_posted GROUP BY t ORDER BY t;
INSERT INTO log_messages (thread_id, post_id, timestamp)
	SELECT l.id, p.id, p.posted_at FROM gen_posted p JOIN log_threads l ON l.thread_key = 'gen:' || p.t;
DROP TABLE gen_posted;`

// Generate fills an empty product database with posts posts and threads
// log threads, through one connection with the triggers off (it recounts
// post_counts itself), then vacuums and analyzes, as a database that has
// lived would be. It needs a superuser (a throwaway test server).
func Generate(ctx context.Context, pool *pgxpool.Pool, posts, threads int) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("storetest: generate: %w", err)
	}
	defer conn.Release()
	// The secondary indexes of posts are dropped during the load and built
	// again after it: one sort per index instead of a million insertions.
	rows, err := conn.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'posts'
		AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'posts'::regclass)`)
	if err != nil {
		return fmt.Errorf("storetest: generate: indexes: %w", err)
	}
	var drops, builds []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return fmt.Errorf("storetest: generate: indexes: %w", err)
		}
		drops = append(drops, `DROP INDEX `+pgx.Identifier{name}.Sanitize())
		builds = append(builds, def)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storetest: generate: indexes: %w", err)
	}
	steps := []struct {
		what string
		sql  string
		args []any
	}{
		{what: "no statement timeout", sql: `SET statement_timeout = 0`},
		{what: "memory for index builds", sql: `SET maintenance_work_mem = '256MB'`},
		// Row triggers off for the bulk load; post_counts is recounted below.
		{what: "triggers off", sql: `SET session_replication_role = replica`},
		{what: "drop indexes", sql: strings.Join(drops, "; ")},
		{what: "persona versions", sql: `INSERT INTO persona_versions (version, voice)
			SELECT v, 'the generated voice ' || v FROM generate_series(1, 3) AS v ON CONFLICT (version) DO NOTHING`},
		{what: "posts", sql: generatePostsSQL, args: []any{posts}},
		// Every posted reply has its day's snapshot; one post in twenty the scans dropped.
		{what: "snapshots", sql: `INSERT INTO reply_snapshots (post_id, age_hours, likes, retweets, replies, taken_at)
			SELECT id, 24, response_likes, response_retweets, response_replies, posted_at + interval '24 hours'
			FROM posts WHERE status = 'posted'`},
		{what: "ledger", sql: `INSERT INTO scan_ledger (platform, platform_post_id, source, reason, seen_at)
			SELECT 'sandbox', 'drop' || i, (ARRAY['mention', 'conversation', 'targeted'])[1 + i % 3],
				(ARRAY['retweet', 'own post', 'not summoned'])[1 + (i / 3) % 3],
				now() - (i::double precision / ($1 / 20)) * interval '730 days'
			FROM generate_series(1, $1 / 20) AS i`, args: []any{posts}},
		{what: "build indexes", sql: strings.Join(builds, "; ")},
		{what: "counts", sql: `DELETE FROM post_counts; INSERT INTO post_counts (source, status, category, n)
			SELECT source, status, category, count(*) FROM posts GROUP BY source, status, category;
			DELETE FROM platform_counts; INSERT INTO platform_counts (platform, source, status, n)
			SELECT platform, source, status, count(*) FROM posts GROUP BY platform, source, status`},
		{what: "log", sql: fmt.Sprintf(generateLogSQL, threads)},
		{what: "triggers on", sql: `SET session_replication_role = DEFAULT`},
		{what: "vacuum", sql: `VACUUM ANALYZE posts, post_counts, platform_counts, log_threads, log_messages, reply_snapshots, scan_ledger`},
	}
	for _, st := range steps {
		if st.sql == "" {
			continue
		}
		if _, err := conn.Exec(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("storetest: generate %s: %w", st.what, err)
		}
	}
	return nil
}

// SeedMentions puts n mentions of the persona in the sandbox's world and
// their posts in drafting, as a mentions scan leaves them, and returns the
// posts' ids. It is the benchmark's starting point for the pipeline.
func SeedMentions(ctx context.Context, pool *pgxpool.Pool, persona string, n int) ([]int64, error) {
	if _, err := pool.Exec(ctx, `INSERT INTO sandbox_posts (author_username, author_name, kind, text, created_at)
		SELECT 'mortal' || i, 'Mortal ' || i, 'mention', '@' || $2 || ' is monday a sin, asks mortal ' || i, now()
		FROM generate_series(1, $1) AS i`, n, persona); err != nil {
		return nil, fmt.Errorf("storetest: seed mentions: %w", err)
	}
	rows, err := pool.Query(ctx, `INSERT INTO posts (platform, source, original_post_id, conversation_id, original_post_text,
			original_post_user, author_username, created_at)
		SELECT 'sandbox', 'mention', id::text, id::text, text, author_name, author_username, created_at
		FROM sandbox_posts WHERE kind = 'mention' ORDER BY id RETURNING id`)
	if err != nil {
		return nil, fmt.Errorf("storetest: seed mentions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("storetest: seed mentions: %w", err)
	}
	return ids, nil
}
