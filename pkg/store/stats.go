package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// AdminStats are the counts of the dashboard's statistics panel.
type AdminStats struct {
	// Pending counts every draft awaiting judgment, of any source.
	Pending int
	Posted  int
	// Rejected counts rejected drafts.
	Rejected int
	// PendingMentions counts the pending drafts that answer mentions.
	PendingMentions int
}

// adminStatsSQL reads the dashboard's counts from the counts the triggers
// keep (post_counts), a few dozen rows however many posts there are.
const adminStatsSQL = `
	SELECT coalesce(sum(n) FILTER (WHERE status = 'pending'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'posted'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'rejected'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'pending' AND source = 'mention'), 0)
	FROM post_counts`

// adminStatsOnSQL is adminStatsSQL of platform $1 (platform_counts).
const adminStatsOnSQL = `
	SELECT coalesce(sum(n) FILTER (WHERE status = 'pending'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'posted'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'rejected'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'pending' AND source = 'mention'), 0)
	FROM platform_counts WHERE platform = $1`

// AdminStats counts posts by state.
func (s *Store) AdminStats(ctx context.Context) (AdminStats, error) {
	return s.AdminStatsOn(ctx, "")
}

// AdminStatsOn counts the posts of one platform by state (post.Platforms);
// "" counts every platform's, as AdminStats.
func (s *Store) AdminStatsOn(ctx context.Context, platform string) (AdminStats, error) {
	if !validFilter(platform) {
		return AdminStats{}, fmt.Errorf("store: admin stats: %w: platform %q", ErrInvalid, platform)
	}
	sql, args := adminStatsSQL, []any{}
	if platform != "" {
		sql, args = adminStatsOnSQL, []any{platform}
	}
	var a AdminStats
	err := s.pool.QueryRow(ctx, sql, args...).Scan(&a.Pending, &a.Posted, &a.Rejected, &a.PendingMentions)
	if err != nil {
		return AdminStats{}, fmt.Errorf("store: admin stats: %w", err)
	}
	return a, nil
}

// CategoryCount is one line of the Sin Registry.
type CategoryCount struct {
	Category post.Category
	Count    int
	// Last24h counts the posts of the last 24 hours (posted categories only).
	Last24h int
}

// Engagement is the persona's engagement over a 24-hour window.
type Engagement struct {
	Likes, Retweets, Replies int
	// WindowStart is when the window began; nil before the first refresh.
	WindowStart *time.Time
}

// HomeStats are the figures of the public home page.
type HomeStats struct {
	Posted            int
	Pending           int
	Rejected          int
	PostedCategories  []CategoryCount
	PendingCategories []CategoryCount
	Engagement        Engagement
	TotalMentions     int
	TotalReplies      int
	Mentions24h       int
	Replies24h        int
	// ByPlatform are the figures of each platform that has posts.
	ByPlatform map[string]PlatformCounts
}

// homeCountsSQL reads the home page's totals from post_counts, and the
// last 24 hours ($1 is a day ago) through the indexes on those times.
const homeCountsSQL = `
	SELECT coalesce(sum(n) FILTER (WHERE status = 'posted'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'pending'), 0),
	       coalesce(sum(n) FILTER (WHERE status = 'rejected'), 0),
	       coalesce(sum(n) FILTER (WHERE source = 'mention'), 0),
	       coalesce(sum(n) FILTER (WHERE source = 'mention' AND status = 'posted'), 0),
	       (SELECT count(*) FROM posts WHERE source = 'mention' AND created_at >= $1),
	       (SELECT count(*) FROM posts WHERE status = 'posted' AND posted_at >= $1 AND source = 'mention')
	FROM post_counts`

// postedCategoriesSQL counts the posted posts of each category, and those
// of the last 24 hours ($1 is a day ago).
const postedCategoriesSQL = `
	SELECT c.category, c.n, coalesce(d.n, 0) FROM
		(SELECT category, sum(n) AS n FROM post_counts WHERE status = 'posted' AND category <> ''
		 GROUP BY category HAVING sum(n) > 0) c
	LEFT JOIN (SELECT category, count(*) AS n FROM posts WHERE status = 'posted' AND posted_at >= $1
		 GROUP BY category) d USING (category)
	ORDER BY c.n DESC, c.category`

// pendingCategoriesSQL counts the pending posts of each category.
const pendingCategoriesSQL = `
	SELECT category, sum(n), 0 FROM post_counts WHERE status = 'pending' AND category <> ''
	GROUP BY category HAVING sum(n) > 0 ORDER BY sum(n) DESC, category`

// HomeStats computes the public figures as of now.
func (s *Store) HomeStats(ctx context.Context, now time.Time) (HomeStats, error) {
	var h HomeStats
	dayAgo := now.Add(-24 * time.Hour)
	err := s.public.QueryRow(ctx, homeCountsSQL, dayAgo).Scan(&h.Posted, &h.Pending, &h.Rejected,
		&h.TotalMentions, &h.TotalReplies, &h.Mentions24h, &h.Replies24h)
	if err != nil {
		return HomeStats{}, fmt.Errorf("store: home stats: %w", err)
	}
	if h.PostedCategories, err = s.categories(ctx, postedCategoriesSQL, dayAgo); err != nil {
		return HomeStats{}, err
	}
	if h.PendingCategories, err = s.categories(ctx, pendingCategoriesSQL); err != nil {
		return HomeStats{}, err
	}
	if h.Engagement, err = s.LatestEngagement(ctx); err != nil {
		return HomeStats{}, err
	}
	if h.ByPlatform, err = s.platformHomeCounts(ctx, dayAgo); err != nil {
		return HomeStats{}, err
	}
	return h, nil
}

func (s *Store) categories(ctx context.Context, sql string, args ...any) ([]CategoryCount, error) {
	rows, err := s.public.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: category counts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CategoryCount, error) {
		var c CategoryCount
		err := r.Scan(&c.Category, &c.Count, &c.Last24h)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: category counts: %w", err)
	}
	return out, nil
}

// RecordEngagement keeps the persona's engagement of the 24 hours up to takenAt.
func (s *Store) RecordEngagement(ctx context.Context, e Engagement, takenAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO engagement_snapshots (window_start, taken_at, likes, retweets, replies)
		VALUES ($1, $2, $3, $4, $5)`, takenAt.Add(-24*time.Hour), takenAt, e.Likes, e.Retweets, e.Replies); err != nil {
		return fmt.Errorf("store: record engagement: %w", err)
	}
	return nil
}

// DeleteEngagementBefore drops engagement snapshots taken before t.
func (s *Store) DeleteEngagementBefore(ctx context.Context, t time.Time) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM engagement_snapshots WHERE taken_at < $1`, t); err != nil {
		return fmt.Errorf("store: delete old engagement: %w", err)
	}
	return nil
}

// LatestEngagement returns the last recorded engagement, zero with a nil
// WindowStart before the first refresh.
func (s *Store) LatestEngagement(ctx context.Context) (Engagement, error) {
	var e Engagement
	var start time.Time
	err := s.public.QueryRow(ctx, `SELECT window_start, likes, retweets, replies FROM engagement_snapshots
		ORDER BY taken_at DESC, id DESC LIMIT 1`).Scan(&start, &e.Likes, &e.Retweets, &e.Replies)
	if errors.Is(err, pgx.ErrNoRows) {
		return Engagement{}, nil
	}
	if err != nil {
		return Engagement{}, fmt.Errorf("store: latest engagement: %w", err)
	}
	e.WindowStart = &start
	return e, nil
}

// ResponseEngagementSince sums the public metrics of the responses posted at or after since.
func (s *Store) ResponseEngagementSince(ctx context.Context, since time.Time) (Engagement, error) {
	var e Engagement
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(response_likes), 0), coalesce(sum(response_retweets), 0),
		coalesce(sum(response_replies), 0) FROM posts WHERE status = 'posted' AND posted_at >= $1`, since).
		Scan(&e.Likes, &e.Retweets, &e.Replies)
	if err != nil {
		return Engagement{}, fmt.Errorf("store: response engagement: %w", err)
	}
	return e, nil
}

// memorableQuotesSQL reads the best posted responses through posts_quotes_idx,
// whose expression it repeats.
const memorableQuotesSQL = `SELECT proposed_response FROM posts WHERE status = 'posted'
	ORDER BY response_likes + 2 * response_retweets + 2 * response_replies DESC, posted_at DESC LIMIT $1`

// MemorableQuotes returns the texts of the most engaging posted responses.
func (s *Store) MemorableQuotes(ctx context.Context, n int) ([]string, error) {
	rows, err := s.public.Query(ctx, memorableQuotesSQL, n)
	if err != nil {
		return nil, fmt.Errorf("store: memorable quotes: %w", err)
	}
	quotes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: memorable quotes: %w", err)
	}
	if quotes == nil {
		quotes = []string{}
	}
	return quotes, nil
}

// latestPostedSQL reads the newest posted response.
const latestPostedSQL = `SELECT ` + postColumns + ` FROM posts WHERE status = 'posted'
	ORDER BY posted_at DESC, id DESC LIMIT 1`

// LatestPosted returns the most recently posted response; ErrNotFound when none.
func (s *Store) LatestPosted(ctx context.Context) (post.Post, error) {
	p, err := queryPost(ctx, s.public, latestPostedSQL)
	if err != nil {
		return post.Post{}, notFound(err, "latest posted")
	}
	return p, nil
}
