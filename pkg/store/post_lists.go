package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// Post returns one post by id.
func (s *Store) Post(ctx context.Context, id int64) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id)
	if err != nil {
		return post.Post{}, notFound(err, fmt.Sprintf("post %d", id))
	}
	return p, nil
}

// orderBy maps each list order to its SQL; every one ends on id so pages are stable.
var orderBy = map[post.Sort]string{
	post.SortDate:       "created_at DESC, id DESC",
	post.SortEngagement: "engagement_score DESC, id DESC",
	post.SortLikes:      "likes_count DESC, id DESC",
	post.SortRetweets:   "retweets_count DESC, id DESC",
	post.SortReplies:    "replies_count DESC, id DESC",
}

// ListPending returns one page (1-based) of the posts of a source that await
// the administrator, and how many there are in all: the pending ones, the
// failed ones, kept in view with their error to be fixed and approved
// again, or rejected, and the ones awaiting hand-posting, kept in view until
// they are posted or given up.
func (s *Store) ListPending(ctx context.Context, source post.Source, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	return s.ListPendingOn(ctx, source, "", sort, page, pageSize)
}

// ListPendingOn is ListPending of the posts of one platform (post.Platforms);
// "" is every platform, as ListPending.
func (s *Store) ListPendingOn(ctx context.Context, source post.Source, platform string, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	order, ok := orderBy[sort]
	if !ok || !source.Valid() || !validFilter(platform) || page < 1 || pageSize < 1 {
		return nil, 0, fmt.Errorf("store: list pending: %w: source %q platform %q sort %q page %d", ErrInvalid, source, platform, sort, page)
	}
	count, args := queueCountSQL, []any{source}
	if platform != "" {
		count, args = queuePlatformCountSQL, []any{source, platform}
	}
	var total int
	if err := s.pool.QueryRow(ctx, count, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count pending: %w", err)
	}
	args = []any{source, pageSize, (page - 1) * pageSize}
	if platform != "" {
		args = append(args, platform)
	}
	posts, err := queryPosts(ctx, s.pool, queuePageSQL(order, platformCond(platform, 4)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list pending: %w", err)
	}
	return posts, total, nil
}

// queueCountSQL counts a source's review queue from post_counts.
const queueCountSQL = `SELECT coalesce(sum(n), 0) FROM post_counts WHERE source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')`

// queuePlatformCountSQL counts a source's review queue on platform $2 from
// platform_counts.
const queuePlatformCountSQL = `SELECT coalesce(sum(n), 0) FROM platform_counts
	WHERE platform = $2 AND source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')`

// queuePageSQL reads one page of a source's review queue in order: the
// page's ids first, from a partial queue index (posts_queue_*_idx), where
// the entries skipped by the offset are read from the index alone once the
// table is vacuumed, then the rows of those ids. cond (platformCond) keeps
// one platform's posts, checked on the rows the index walk finds.
func queuePageSQL(order, cond string) string {
	return `SELECT ` + postColumns + ` FROM posts WHERE id IN (
		SELECT id FROM posts WHERE source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')` + cond + `
		ORDER BY ` + order + ` LIMIT $2 OFFSET $3)
	ORDER BY ` + order
}

// AwaitingManual returns up to limit posts of platform awaiting
// hand-posting, oldest approval first.
func (s *Store) AwaitingManual(ctx context.Context, platform string, limit int) ([]post.Post, error) {
	posts, err := queryPosts(ctx, s.pool, `SELECT `+postColumns+` FROM posts
		WHERE platform = $1 AND status = $2 ORDER BY approved_at NULLS FIRST, id LIMIT $3`, platform, post.StatusAwaitingManual, limit)
	if err != nil {
		return nil, fmt.Errorf("store: awaiting manual: %w", err)
	}
	return posts, nil
}

// IDsInStatus returns the ids of posts in status whose last change is older
// than before, oldest first, at most limit of them.
func (s *Store) IDsInStatus(ctx context.Context, status post.Status, before time.Time, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM posts WHERE status = $1 AND updated_at < $2 ORDER BY updated_at LIMIT $3`,
		status, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	return ids, nil
}

// PostRef names a post and the platform it is on.
type PostRef struct {
	ID       int64
	Platform string
}

// RefsInStatus is IDsInStatus with each post's platform, which a draft
// task names: what reconciliation queues a lost draft again with.
func (s *Store) RefsInStatus(ctx context.Context, status post.Status, before time.Time, limit int) ([]PostRef, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, platform FROM posts WHERE status = $1 AND updated_at < $2 ORDER BY updated_at LIMIT $3`,
		status, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: refs in status %s: %w", status, err)
	}
	refs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[PostRef])
	if err != nil {
		return nil, fmt.Errorf("store: refs in status %s: %w", status, err)
	}
	return refs, nil
}

// PostPlatform returns the platform post id was found on (or is to be
// posted to): which of the worker's platforms works on it.
func (s *Store) PostPlatform(ctx context.Context, id int64) (string, error) {
	var name string
	if err := s.pool.QueryRow(ctx, `SELECT platform FROM posts WHERE id = $1`, id).Scan(&name); err != nil {
		return "", notFound(err, fmt.Sprintf("post %d platform", id))
	}
	return name, nil
}
