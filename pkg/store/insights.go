package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// InsightsQuery is the range the insights read: the posts the scans
// returned from From until To, of Source ("" for every source but the
// profile's), days and hours counted in the time zone TZ (an IANA name).
type InsightsQuery struct {
	From, To time.Time
	Source   string
	TZ       string
}

// FateCount is how many posts of the range are in one status with one
// skip reason start (the ledger's drops come as status "skipped").
type FateCount struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Approved tells a failed send from a failed draft.
	Approved bool  `json:"approved"`
	N        int64 `json:"n"`
	Edited   int64 `json:"edited"`
	// Autopilot is the part of N the autopilot approved.
	Autopilot int64 `json:"autopilot"`
}

// Percentiles are the p50 and p95 of some seconds, nil when none were measured.
type Percentiles struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
	N   int64    `json:"n"`
}

// Latencies are the times between a post's steps, in seconds.
type Latencies struct {
	MentionToDraft   Percentiles `json:"mention_to_draft"`
	DraftToDecision  Percentiles `json:"draft_to_decision"`
	DecisionToPosted Percentiles `json:"decision_to_posted"`
	MentionToPosted  Percentiles `json:"mention_to_posted"`
}

// VersionFigures are the drafts of one persona version.
type VersionFigures struct {
	Version  int   `json:"version"`
	Drafts   int64 `json:"drafts"`
	Approved int64 `json:"approved"`
	Rejected int64 `json:"rejected"`
	Edited   int64 `json:"edited"`
	// MeanReview is the judge's mean score of its drafts, nil when none was judged.
	MeanReview *float64 `json:"mean_review"`
	// Measured counts the posted replies with a 24-hour snapshot, whose
	// mean engagement MeanEngagement is (nil when none).
	Measured       int64    `json:"measured"`
	MeanEngagement *float64 `json:"mean_engagement"`
}

// ScoreFigures are the drafts the judge gave one score.
type ScoreFigures struct {
	Score          int      `json:"score"`
	Drafts         int64    `json:"drafts"`
	Approved       int64    `json:"approved"`
	Rejected       int64    `json:"rejected"`
	Measured       int64    `json:"measured"`
	MeanEngagement *float64 `json:"mean_engagement"`
}

// HourFigures are the posts seen in one hour of the week, and the
// engagement of the replies posted in it.
type HourFigures struct {
	// Weekday is 1 (Monday) to 7 (Sunday), ISO's numbering.
	Weekday        int      `json:"weekday"`
	Hour           int      `json:"hour"`
	Seen           int64    `json:"seen"`
	Measured       int64    `json:"measured"`
	MeanEngagement *float64 `json:"mean_engagement"`
}

// DayFigures are one day's posts, spend and engagement.
type DayFigures struct {
	Day      string  `json:"day"`
	Seen     int64   `json:"seen"`
	Posted   int64   `json:"posted"`
	XUSD     float64 `json:"x_usd"`
	ModelUSD float64 `json:"model_usd"`
	// Likes, Retweets and Replies sum the 24-hour snapshots of the replies
	// posted that day; Measured counts those replies.
	Measured int64 `json:"measured"`
	Likes    int64 `json:"likes"`
	Retweets int64 `json:"retweets"`
	Replies  int64 `json:"replies"`
}

// Insights are the figures of a range, as one statement reads them.
type Insights struct {
	Fates           []FateCount      `json:"fates"`
	Latency         Latencies        `json:"latency"`
	PersonaVersions []VersionFigures `json:"persona_versions"`
	Judge           []ScoreFigures   `json:"judge"`
	Hours           []HourFigures    `json:"hours"`
	Days            []DayFigures     `json:"days"`
	Gaps            []MetricGap      `json:"gaps"`
}

// InsightsKey names a range of insights the cache keeps: the last Days
// days of Source ("" for all), in the time zone TZ.
type InsightsKey struct {
	Days   int
	Source string
	TZ     string
}

// query is the range of k ending at now.
func (k InsightsKey) query(now time.Time) InsightsQuery {
	return InsightsQuery{From: now.Add(-time.Duration(k.Days) * 24 * time.Hour), To: now, Source: k.Source, TZ: k.TZ}
}

// CachedInsights are the insights of a range as computed at To.
type CachedInsights struct {
	Insights
	From, To time.Time
}

// CachedInsights returns the insights of k computed at or after freshAfter,
// ok false when the cache holds none that fresh; either way k counts as
// asked for now, so the worker keeps computing it (RefreshInsightsCache).
func (s *Store) CachedInsights(ctx context.Context, k InsightsKey, freshAfter time.Time) (c CachedInsights, ok bool, err error) {
	var raw []byte
	err = s.pool.QueryRow(ctx, `UPDATE insights_cache SET requested_at = now()
		WHERE days = $1 AND source = $2 AND tz = $3 AND computed_at >= $4
		RETURNING body, range_from, range_to`, k.Days, k.Source, k.TZ, freshAfter).Scan(&raw, &c.From, &c.To)
	if errors.Is(err, pgx.ErrNoRows) {
		return CachedInsights{}, false, nil
	}
	if err != nil {
		return CachedInsights{}, false, fmt.Errorf("store: cached insights: %w", err)
	}
	if err := json.Unmarshal(raw, &c.Insights); err != nil {
		return CachedInsights{}, false, fmt.Errorf("store: cached insights: %w", err)
	}
	return c, true, nil
}

// ComputeInsights computes the insights of k ending at now, keeps them in
// the cache and returns them.
func (s *Store) ComputeInsights(ctx context.Context, k InsightsKey, now time.Time) (CachedInsights, error) {
	// As Postgres keeps it: a range read from the cache is the range computed.
	q := k.query(now.Truncate(time.Microsecond))
	raw, err := s.rawInsights(ctx, q)
	if err != nil {
		return CachedInsights{}, err
	}
	c := CachedInsights{From: q.From, To: q.To}
	if err := json.Unmarshal(raw, &c.Insights); err != nil {
		return CachedInsights{}, fmt.Errorf("store: insights: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO insights_cache (days, source, tz, range_from, range_to, body, computed_at, requested_at)
		VALUES ($1, $2, $3, $4, $5, $6, $5, now())
		ON CONFLICT (days, source, tz) DO UPDATE SET range_from = excluded.range_from, range_to = excluded.range_to,
			body = excluded.body, computed_at = excluded.computed_at`,
		k.Days, k.Source, k.TZ, q.From, q.To, string(raw)); err != nil {
		return CachedInsights{}, fmt.Errorf("store: keep insights: %w", err)
	}
	return c, nil
}

// RefreshInsightsCache computes again, at now, every range asked for
// since since, forgets the others, and returns how many it computed.
func (s *Store) RefreshInsightsCache(ctx context.Context, since, now time.Time) (int, error) {
	if _, err := s.pool.Exec(ctx, `DELETE FROM insights_cache WHERE requested_at < $1`, since); err != nil {
		return 0, fmt.Errorf("store: refresh insights: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT days, source, tz FROM insights_cache ORDER BY requested_at DESC`)
	if err != nil {
		return 0, fmt.Errorf("store: refresh insights: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (InsightsKey, error) {
		var k InsightsKey
		err := r.Scan(&k.Days, &k.Source, &k.TZ)
		return k, err
	})
	if err != nil {
		return 0, fmt.Errorf("store: refresh insights: %w", err)
	}
	for _, k := range keys {
		if _, err := s.ComputeInsights(ctx, k, now); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// rawInsights is Insights' answer as the statement returns it, JSON.
func (s *Store) rawInsights(ctx context.Context, q InsightsQuery) ([]byte, error) {
	var raw []byte
	if err := s.pool.QueryRow(ctx, insightsSQL, q.From, q.To, q.Source, q.TZ).Scan(&raw); err != nil {
		return nil, fmt.Errorf("store: insights: %w", err)
	}
	return raw, nil
}

// Insights reads the figures of q in one statement: the range's posts are
// read once (by posts_inserted_idx) into a narrow set every figure is
// counted from; a reply's engagement is its 24-hour snapshot, as copied on
// the post (likes + 2·reposts + 2·replies, as engagement_score weighs them).
func (s *Store) Insights(ctx context.Context, q InsightsQuery) (Insights, error) {
	raw, err := s.rawInsights(ctx, q)
	if err != nil {
		return Insights{}, err
	}
	var out Insights
	if err := json.Unmarshal(raw, &out); err != nil {
		return Insights{}, fmt.Errorf("store: insights: %w", err)
	}
	return out, nil
}

// insightsSQL is Insights' statement: $1 and $2 bound the range, $3 is the
// source (empty for all), $4 the time zone. Times are first counted in
// quarter-hour buckets (every time zone's offset is a whole number of
// quarter hours) and only the buckets are put in the time zone: a few
// thousand conversions instead of one per post.
const insightsSQL = `
WITH r AS MATERIALIZED (
	SELECT p.status, p.skip_reason, p.approved_at IS NOT NULL OR p.send_started_at IS NOT NULL AS approved,
		p.approved_at, p.rejected_at, p.posted_at, p.created_at, p.inserted_at, p.drafted_at,
		p.persona_version, p.review_score, p.edited, p.likes_24h, p.retweets_24h, p.replies_24h,
		-- Approved by the autopilot: its last approval's channel (post_decisions_post_idx).
		p.approved_at IS NOT NULL AND (SELECT d.by FROM post_decisions d
			WHERE d.post_id = p.id AND d.action = 'approve' ORDER BY d.id DESC LIMIT 1) = 'autopilot' AS autopiloted
	FROM posts p
	WHERE p.source <> 'profile' AND p.inserted_at >= $1 AND p.inserted_at < $2 AND ($3 = '' OR p.source = $3)
),
posted AS MATERIALIZED (
	SELECT posted_at, persona_version, review_score, likes_24h AS likes, retweets_24h AS retweets, replies_24h AS replies,
		likes_24h + 2 * retweets_24h + 2 * replies_24h AS engagement
	FROM r WHERE status = 'posted' AND posted_at IS NOT NULL
),
dropped AS (
	SELECT reason, seen_at FROM scan_ledger WHERE seen_at >= $1 AND seen_at < $2 AND ($3 = '' OR source = $3)
),
seen AS MATERIALIZED (
	SELECT b AT TIME ZONE $4 AS local, sum(n) AS n FROM (
		SELECT date_bin('15 minutes', inserted_at, '2000-01-01') AS b, count(*) AS n FROM r GROUP BY 1
		UNION ALL
		SELECT date_bin('15 minutes', seen_at, '2000-01-01'), count(*) FROM dropped GROUP BY 1) q
	GROUP BY b
),
sent AS MATERIALIZED (
	SELECT b AT TIME ZONE $4 AS local, n, measured, engagement, likes, retweets, replies FROM (
		SELECT date_bin('15 minutes', posted_at, '2000-01-01') AS b, count(*) AS n, count(engagement) AS measured,
			sum(engagement) AS engagement, sum(likes) AS likes, sum(retweets) AS retweets, sum(replies) AS replies
		FROM posted GROUP BY 1) q
),
lat AS (
	SELECT
		greatest(0, extract(epoch FROM drafted_at - created_at)) AS to_draft,
		greatest(0, extract(epoch FROM coalesce(approved_at, rejected_at) - drafted_at)) AS to_decision,
		CASE WHEN status = 'posted' THEN greatest(0, extract(epoch FROM posted_at - approved_at)) END AS to_posted,
		CASE WHEN status = 'posted' THEN greatest(0, extract(epoch FROM posted_at - created_at)) END AS whole
	FROM r WHERE drafted_at IS NOT NULL
)
SELECT json_build_object(
	'fates', (SELECT coalesce(json_agg(f), '[]') FROM (
		-- Grouped by the whole reason first: few distinct ones, each split once.
		SELECT status, split_part(skip_reason, ':', 1) AS reason, approved, sum(n) AS n, sum(edited) AS edited,
			sum(autopilot) AS autopilot
		FROM (SELECT status, skip_reason, approved, count(*) AS n, count(*) FILTER (WHERE edited) AS edited,
				count(*) FILTER (WHERE autopiloted) AS autopilot
			FROM r GROUP BY 1, 2, 3) g
		GROUP BY 1, 2, 3
		UNION ALL
		SELECT 'skipped', reason, false, count(*), 0, 0 FROM dropped GROUP BY 2) f),
	'latency', (SELECT json_build_object(
		'mention_to_draft', json_build_object('p50', d[1], 'p95', d[2], 'n', nd),
		'draft_to_decision', json_build_object('p50', c[1], 'p95', c[2], 'n', nc),
		'decision_to_posted', json_build_object('p50', p[1], 'p95', p[2], 'n', np),
		'mention_to_posted', json_build_object('p50', w[1], 'p95', w[2], 'n', nw))
		FROM (SELECT
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY to_draft) AS d, count(to_draft) AS nd,
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY to_decision) AS c, count(to_decision) AS nc,
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY to_posted) AS p, count(to_posted) AS np,
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY whole) AS w, count(whole) AS nw
			FROM lat) l),
	'persona_versions', (SELECT coalesce(json_agg(v ORDER BY v.version), '[]') FROM (
		SELECT d.version, d.drafts, d.approved, d.rejected, d.edited, d.mean_review,
			coalesce(e.measured, 0) AS measured, e.mean_engagement
		FROM (SELECT persona_version AS version, count(*) AS drafts, count(*) FILTER (WHERE approved AND status <> 'rejected') AS approved,
				count(*) FILTER (WHERE status = 'rejected') AS rejected, count(*) FILTER (WHERE edited) AS edited,
				avg(review_score)::float8 AS mean_review
			FROM r WHERE drafted_at IS NOT NULL AND persona_version IS NOT NULL GROUP BY 1) d
		LEFT JOIN (SELECT persona_version AS version, count(engagement) AS measured, avg(engagement)::float8 AS mean_engagement
			FROM posted WHERE persona_version IS NOT NULL GROUP BY 1) e USING (version)) v),
	'judge', (SELECT coalesce(json_agg(j ORDER BY j.score), '[]') FROM (
		SELECT d.score, d.drafts, d.approved, d.rejected, coalesce(e.measured, 0) AS measured, e.mean_engagement
		FROM (SELECT review_score AS score, count(*) AS drafts, count(*) FILTER (WHERE approved AND status <> 'rejected') AS approved,
				count(*) FILTER (WHERE status = 'rejected') AS rejected
			FROM r WHERE review_score IS NOT NULL GROUP BY 1) d
		LEFT JOIN (SELECT review_score AS score, count(engagement) AS measured, avg(engagement)::float8 AS mean_engagement
			FROM posted WHERE review_score IS NOT NULL GROUP BY 1) e USING (score)) j),
	'hours', (SELECT coalesce(json_agg(h), '[]') FROM (
		SELECT coalesce(a.weekday, b.weekday) AS weekday, coalesce(a.hour, b.hour) AS hour, coalesce(a.n, 0) AS seen,
			coalesce(b.measured, 0) AS measured, b.engagement::float8 / nullif(b.measured, 0) AS mean_engagement
		FROM (SELECT extract(isodow FROM local)::int AS weekday, extract(hour FROM local)::int AS hour, sum(n) AS n
			FROM seen GROUP BY 1, 2) a
		FULL JOIN (SELECT extract(isodow FROM local)::int AS weekday, extract(hour FROM local)::int AS hour,
				sum(measured) AS measured, sum(engagement) AS engagement
			FROM sent GROUP BY 1, 2) b ON a.weekday = b.weekday AND a.hour = b.hour) h),
	'days', (SELECT coalesce(json_agg(d ORDER BY d.day), '[]') FROM (
		SELECT to_char(day, 'YYYY-MM-DD') AS day, coalesce(se.n, 0) AS seen, coalesce(po.n, 0) AS posted,
			coalesce(xs.usd, 0)::float8 AS x_usd, coalesce(ms.usd, 0)::float8 AS model_usd,
			coalesce(po.measured, 0) AS measured, coalesce(po.likes, 0) AS likes, coalesce(po.retweets, 0) AS retweets,
			coalesce(po.replies, 0) AS replies
		FROM (SELECT gs::date AS day FROM generate_series(($1::timestamptz AT TIME ZONE $4)::date,
			($2::timestamptz AT TIME ZONE $4)::date, interval '1 day') AS gs) AS g
		LEFT JOIN (SELECT local::date AS day, sum(n) AS n FROM seen GROUP BY 1) se USING (day)
		LEFT JOIN (SELECT local::date AS day, sum(n) AS n, sum(measured) AS measured,
				sum(likes) AS likes, sum(retweets) AS retweets, sum(replies) AS replies
			FROM sent GROUP BY 1) po USING (day)
		LEFT JOIN (SELECT (at AT TIME ZONE $4)::date AS day, sum(usd) AS usd FROM x_calls
			WHERE day BETWEEN ($1::timestamptz AT TIME ZONE 'UTC')::date - 1 AND ($2::timestamptz AT TIME ZONE 'UTC')::date + 1
				AND at >= $1 AND at < $2 GROUP BY 1) xs USING (day)
		LEFT JOIN (SELECT (at AT TIME ZONE $4)::date AS day, sum(usd) AS usd FROM model_usage
			WHERE day BETWEEN ($1::timestamptz AT TIME ZONE 'UTC')::date - 1 AND ($2::timestamptz AT TIME ZONE 'UTC')::date + 1
				AND at >= $1 AND at < $2 GROUP BY 1) ms USING (day)) d),
	'gaps', (SELECT coalesce(json_agg(g ORDER BY g.started_at), '[]') FROM (
		SELECT platform, reason, started_at, ended_at FROM metric_gaps
		WHERE started_at < $2 AND (ended_at IS NULL OR ended_at > $1)) g)
)`
