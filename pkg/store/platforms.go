package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// The admin lists filtered by platform. With no platform ("")
// each list runs its query unchanged; with one, the same query gains
// "AND platform = $n", built here rather than written "platform = $n OR
// $n = ''", which would keep the planner from the lists' partial indexes.
// The totals of a filtered list are read from platform_counts, which the
// triggers keep as they keep post_counts; the queued list's (approved, not
// started) are counted through posts_send_queue_idx, as its page is.

// validFilter reports whether platform is a filter of the admin lists:
// "" (every platform) or one of post.Platforms.
func validFilter(platform string) bool {
	return platform == "" || post.ValidPlatform(platform)
}

// platformCond is the condition that keeps the posts of platform, its
// value the query's argument $n; "" for every platform.
func platformCond(platform string, n int) string {
	if platform == "" {
		return ""
	}
	return " AND platform = $" + strconv.Itoa(n)
}

// skippedPlatformCountSQL counts the skipped and failed posts of platform
// $1 from platform_counts.
const skippedPlatformCountSQL = `SELECT coalesce(sum(n), 0) FROM platform_counts WHERE platform = $1 AND status IN ('skipped', 'failed')`

// ListSkippedOn is ListSkipped of the posts of one platform
// (post.Platforms); "" is every platform, as ListSkipped.
func (s *Store) ListSkippedOn(ctx context.Context, platform string, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	order, ok := orderBy[sort]
	if !ok || !validFilter(platform) || page < 1 || pageSize < 1 {
		return nil, 0, fmt.Errorf("store: list skipped: %w: platform %q sort %q page %d", ErrInvalid, platform, sort, page)
	}
	count, countArgs, pageArgs := skippedCountSQL, []any{}, []any{pageSize, (page - 1) * pageSize}
	if platform != "" {
		count, countArgs, pageArgs = skippedPlatformCountSQL, []any{platform}, append(pageArgs, platform)
	}
	var total int
	if err := s.pool.QueryRow(ctx, count, countArgs...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count skipped: %w", err)
	}
	posts, err := queryPosts(ctx, s.pool, skippedPageSQL(order, platformCond(platform, 3)), pageArgs...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list skipped: %w", err)
	}
	return posts, total, nil
}

// PlatformCounts are the public figures of one platform's posts.
type PlatformCounts struct {
	Posted, Pending, Rejected int
	TotalMentions             int
	TotalReplies              int
	Mentions24h               int
	Replies24h                int
}

// platformHomeCountsSQL reads the home page's totals of each platform from
// platform_counts, and those of the last 24 hours ($1 is a day ago)
// through the indexes on those times.
const platformHomeCountsSQL = `
	SELECT c.platform, c.posted, c.pending, c.rejected, c.mentions, c.replies, coalesce(m.n, 0), coalesce(r.n, 0)
	FROM (SELECT platform,
	             coalesce(sum(n) FILTER (WHERE status = 'posted'), 0) AS posted,
	             coalesce(sum(n) FILTER (WHERE status = 'pending'), 0) AS pending,
	             coalesce(sum(n) FILTER (WHERE status = 'rejected'), 0) AS rejected,
	             coalesce(sum(n) FILTER (WHERE source = 'mention'), 0) AS mentions,
	             coalesce(sum(n) FILTER (WHERE source = 'mention' AND status = 'posted'), 0) AS replies
	      FROM platform_counts GROUP BY platform HAVING sum(n) > 0) c
	LEFT JOIN (SELECT platform, count(*) AS n FROM posts WHERE source = 'mention' AND created_at >= $1
	           GROUP BY platform) m USING (platform)
	LEFT JOIN (SELECT platform, count(*) AS n FROM posts WHERE status = 'posted' AND posted_at >= $1 AND source = 'mention'
	           GROUP BY platform) r USING (platform)
	ORDER BY c.platform`

// platformHomeCounts reads the public figures of each platform that has posts.
func (s *Store) platformHomeCounts(ctx context.Context, dayAgo time.Time) (map[string]PlatformCounts, error) {
	rows, err := s.public.Query(ctx, platformHomeCountsSQL, dayAgo)
	if err != nil {
		return nil, fmt.Errorf("store: home stats by platform: %w", err)
	}
	out := map[string]PlatformCounts{}
	var c PlatformCounts
	var platform string
	_, err = pgx.ForEachRow(rows, []any{&platform, &c.Posted, &c.Pending, &c.Rejected, &c.TotalMentions, &c.TotalReplies,
		&c.Mentions24h, &c.Replies24h}, func() error {
		out[platform] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: home stats by platform: %w", err)
	}
	return out, nil
}

// platformPlans are the reads filtered by platform, for QueryPlans: each
// list's first page and total on one platform, and the home figures of
// each platform.
func platformPlans(pageSize int, dayAgo time.Time) []planQuery {
	const platform = post.SandboxPlatform
	var qs []planQuery
	for _, src := range post.Sources {
		qs = append(qs,
			planQuery{name: "list " + string(src) + " on a platform, total", sql: queuePlatformCountSQL, args: []any{src, platform}},
			planQuery{name: "list " + string(src) + " on a platform, first page", sql: queuePageSQL(orderBy[post.SortDate], platformCond(platform, 4)),
				args: []any{src, pageSize, 0, platform}})
	}
	return append(qs,
		planQuery{name: "list skipped on a platform, total", sql: skippedPlatformCountSQL, args: []any{platform}},
		planQuery{name: "list skipped on a platform, first page", sql: skippedPageSQL(orderBy[post.SortDate], platformCond(platform, 3)), args: []any{pageSize, 0, platform}},
		planQuery{name: "list queued on a platform, total", sql: queuedPlatformCountSQL, args: []any{platform}},
		planQuery{name: "list queued on a platform, first page", sql: queuedPageSQL(platformCond(platform, 3)), args: []any{pageSize, 0, platform}},
		planQuery{name: "home counts by platform", sql: platformHomeCountsSQL, args: []any{dayAgo}})
}
