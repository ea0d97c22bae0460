package store

import (
	"context"
	"fmt"
	"time"
)

// The ages, in hours, at which a posted reply's metrics are kept: about an
// hour, a day and a week after it was posted.
const (
	SnapshotHour = 1
	SnapshotDay  = 24
	SnapshotWeek = 168
)

// snapshotLate is how long after the week's snapshot falls due a reply is
// still read for it (a worker down, a budget pause); later, it has none.
const snapshotLate = 24 * time.Hour

// SnapshotsDue returns the platform's replies (response post id to row id)
// posted before now whose week's snapshot is due and not taken: posted
// between 7 and 8 days ago. Younger replies are read by every refresh.
func (s *Store) SnapshotsDue(ctx context.Context, platform string, now time.Time) (map[string]int64, error) {
	week := SnapshotWeek * time.Hour
	rows, err := s.pool.Query(ctx, `
		SELECT p.response_post_id, p.id FROM posts p
		WHERE p.status = 'posted' AND p.platform = $1 AND p.response_post_id IS NOT NULL
			AND p.posted_at <= $2 AND p.posted_at > $3
			AND NOT EXISTS (SELECT 1 FROM reply_snapshots s WHERE s.post_id = p.id AND s.age_hours = $4)`,
		platform, now.Add(-week), now.Add(-week-snapshotLate), SnapshotWeek)
	if err != nil {
		return nil, fmt.Errorf("store: snapshots due: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var rid string
		var id int64
		if err := rows.Scan(&rid, &id); err != nil {
			return nil, fmt.Errorf("store: snapshots due: %w", err)
		}
		out[rid] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: snapshots due: %w", err)
	}
	return out, nil
}

// TakeSnapshots keeps, for each reply of metrics read at now, the snapshot
// its age calls for: the 1-hour one from 1 to 24 hours after posting, the
// 24-hour one from 24 hours to 7 days, the 7-day one from then on. A
// snapshot taken is never replaced. It returns how many were taken.
func (s *Store) TakeSnapshots(ctx context.Context, metrics map[int64]Metrics, now time.Time) (int64, error) {
	if len(metrics) == 0 {
		return 0, nil
	}
	ids := make([]int64, 0, len(metrics))
	likes := make([]int32, 0, len(metrics))
	retweets := make([]int32, 0, len(metrics))
	replies := make([]int32, 0, len(metrics))
	for id, m := range metrics {
		ids = append(ids, id)
		likes = append(likes, clampCount(m.Likes))
		retweets = append(retweets, clampCount(m.Retweets))
		replies = append(replies, clampCount(m.Replies))
	}
	// The day's snapshot is copied onto the post, where the insights read it.
	var n int64
	err := s.pool.QueryRow(ctx, `
		WITH taken AS (
		INSERT INTO reply_snapshots (post_id, age_hours, likes, retweets, replies, taken_at)
		SELECT p.id, a.age, m.likes, m.retweets, m.replies, $5
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) AS m (id, likes, retweets, replies)
		JOIN posts p ON p.id = m.id AND p.status = 'posted' AND p.posted_at IS NOT NULL
		JOIN (VALUES ($6::int, $7::int), ($7, $8), ($8, NULL)) AS a (age, until) ON $5 - p.posted_at >= make_interval(hours => a.age)
			AND (a.until IS NULL OR $5 - p.posted_at < make_interval(hours => a.until))
		ON CONFLICT (post_id, age_hours) DO NOTHING
		RETURNING post_id, age_hours, likes, retweets, replies),
		day AS (
			UPDATE posts p SET likes_24h = t.likes, retweets_24h = t.retweets, replies_24h = t.replies
			FROM taken t WHERE t.post_id = p.id AND t.age_hours = $7)
		SELECT count(*) FROM taken`, ids, likes, retweets, replies, now, SnapshotHour, SnapshotDay, SnapshotWeek).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: take snapshots: %w", err)
	}
	return n, nil
}

// clampCount is a platform counter as the snapshot columns keep it:
// never negative, at most the largest int32.
func clampCount(n int) int32 {
	return int32(min(max(n, 0), 1<<31-1))
}

// ReplySnapshots returns the snapshots taken of post id's reply, by age in hours.
func (s *Store) ReplySnapshots(ctx context.Context, id int64) (map[int]Metrics, error) {
	rows, err := s.pool.Query(ctx, `SELECT age_hours, likes, retweets, replies FROM reply_snapshots WHERE post_id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("store: reply snapshots %d: %w", id, err)
	}
	defer rows.Close()
	out := map[int]Metrics{}
	for rows.Next() {
		var age int
		var m Metrics
		if err := rows.Scan(&age, &m.Likes, &m.Retweets, &m.Replies); err != nil {
			return nil, fmt.Errorf("store: reply snapshots %d: %w", id, err)
		}
		out[age] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reply snapshots %d: %w", id, err)
	}
	return out, nil
}
