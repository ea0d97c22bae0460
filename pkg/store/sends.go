package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/guard"
	"infernal/pkg/post"
)

// sendLockKey is the transaction-scoped advisory lock every capped send
// start holds: with it, reading the send times and marking a send happen as
// one step across every worker, so two of them cannot both take the last
// slot of a window.
const sendLockKey int64 = 0x696e_6665_726e_6c01 // "infernl" and 1

// SendQueue is what the send caps decide on, read under the send lock.
type SendQueue struct {
	// Now is the database's clock, the one send starts are stamped with.
	Now time.Time
	// Sent are the most recent send starts of the caps' longest window,
	// newest first: as many as the caps can tell apart (SendCaps.Bounds).
	Sent []time.Time
	// Ahead counts the approved posts approved before this one that wait
	// for their first send, which the caps serve first.
	Ahead int
}

// BeginSendWithin is BeginSend under the send caps: the first send of a
// post starts only when allow, asked under the send lock with the queue as
// it stands, returns nil; its error is returned as it is and the post left
// approved. A send started before (a retry) is not asked about: it counted
// when it started.
//
// The queue is read only near the caps. When the sends of the last days
// (send_days, an upper bound of every window's) and all approvals waiting
// leave room under the least of caps, the send starts in one round trip
// without asking allow; otherwise the queue holds the most recent sends
// and approvals ahead that caps can tell apart (SendCaps.Bounds), so a
// start reads at most a few hundred rows however many posts went out.
//
// An auto-approved post's first send does not start before its
// send_after: that is a *SendEarlyError, the post left approved.
func (s *Store) BeginSendWithin(ctx context.Context, id int64, caps guard.SendCaps, allow func(SendQueue) error) (p post.Post, started *time.Time, err error) {
	least, most, longest := caps.Bounds()
	p, err = s.beginSendWithRoom(ctx, id, least, longest)
	if err == nil {
		return p, nil, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, nil, fmt.Errorf("store: begin send %d: %w", id, err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, sendLockKey); err != nil {
			return fmt.Errorf("store: begin send %d: lock: %w", id, err)
		}
		p, err = queryPost(ctx, tx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return notFound(err, fmt.Sprintf("begin send %d", id))
		}
		if p.Status != post.StatusApproved {
			return fmt.Errorf("store: begin send %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: post.StatusApproved})
		}
		started = p.SendStartedAt
		if started == nil && p.SendAfter != nil {
			var early bool
			// The database's clock, the one send_after was set by.
			if err := tx.QueryRow(ctx, `SELECT $1::timestamptz > now()`, *p.SendAfter).Scan(&early); err != nil {
				return fmt.Errorf("store: begin send %d: %w", id, err)
			}
			if early {
				return &SendEarlyError{ID: id, Until: *p.SendAfter}
			}
		}
		if started == nil {
			q, err := sendQueue(ctx, tx, p, most, longest)
			if err != nil {
				return fmt.Errorf("store: begin send %d: %w", id, err)
			}
			if err := allow(q); err != nil {
				return err
			}
		}
		// The cap's note goes with the wait it explained.
		if _, err := tx.Exec(ctx, `UPDATE posts SET send_started_at = coalesce(send_started_at, now()),
			error = CASE WHEN error = $2 THEN '' ELSE error END, updated_at = now() WHERE id = $1`, id, guard.ReasonSendCap); err != nil {
			return fmt.Errorf("store: begin send %d: %w", id, err)
		}
		return nil
	})
	return p, started, err
}

// beginSendWithRoomSQL starts the first send of approved post $1 when the
// sends since the UTC day of now() - $4 (send_days, which counts every
// start) and every approval waiting (post_counts) number at most $2: then
// no window of the caps can be full, whatever the times. No row when
// there is not that much room, or the post is not approved or started before.
const beginSendWithRoomSQL = `UPDATE posts SET send_started_at = now(),
		error = CASE WHEN error = $3 THEN '' ELSE error END, updated_at = now()
	WHERE id = $1 AND status = 'approved' AND send_started_at IS NULL AND (send_after IS NULL OR send_after <= now())
		AND (SELECT coalesce(sum(sends), 0) FROM send_days WHERE day >= ((now() - $4::interval) AT TIME ZONE 'UTC')::date)
			+ (SELECT coalesce(sum(n), 0) FROM post_counts WHERE status = 'approved') <= $2
	RETURNING ` + postColumns

// beginSendWithRoom starts post id's first send in one round trip when the
// caps have room for every approval waiting (beginSendWithRoomSQL), under
// the send lock: the batch is one implicit transaction, which holds the
// lock until the start commits, and the update reads the counts after the
// lock is granted. It returns pgx.ErrNoRows when it did not start the send.
func (s *Store) beginSendWithRoom(ctx context.Context, id int64, least int, longest time.Duration) (post.Post, error) {
	var b pgx.Batch
	b.Queue(`SELECT pg_advisory_xact_lock($1)`, sendLockKey)
	b.Queue(beginSendWithRoomSQL, id, least, guard.ReasonSendCap, longest)
	res := s.pool.SendBatch(ctx, &b)
	if _, err := res.Exec(); err != nil {
		return post.Post{}, errors.Join(fmt.Errorf("lock: %w", err), res.Close())
	}
	rows, err := res.Query()
	if err != nil {
		return post.Post{}, errors.Join(err, res.Close())
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[postRow])
	if cerr := res.Close(); cerr != nil {
		return post.Post{}, errors.Join(err, cerr)
	}
	if err != nil {
		return post.Post{}, err
	}
	return r.post(), nil
}

// SendQueueOf reads, without the lock, the queue as post id would meet it
// now under caps: what the admin is told at approval.
func (s *Store) SendQueueOf(ctx context.Context, id int64, caps guard.SendCaps) (SendQueue, error) {
	p, err := queryPost(ctx, s.pool, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id)
	if err != nil {
		return SendQueue{}, notFound(err, fmt.Sprintf("send queue of %d", id))
	}
	_, most, longest := caps.Bounds()
	q, err := sendQueue(ctx, s.pool, p, most, longest)
	if err != nil {
		return SendQueue{}, fmt.Errorf("store: send queue of %d: %w", id, err)
	}
	return q, nil
}

// queryRower runs a one-row query on the pool or inside a transaction.
type queryRower interface {
	querier
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// sendQueue reads the most recent most send starts of the last longest
// (posts_sent_at_idx) and how many approved posts approved before p still
// wait to start (posts_send_queue_idx), counting at most most of them:
// guard.SendTurn decides the same on those as on every one.
func sendQueue(ctx context.Context, q queryRower, p post.Post, most int, longest time.Duration) (SendQueue, error) {
	// Each platform has its own caps: its sends and approvals only.
	out, err := sentTimes(ctx, q, p.Platform, most, longest)
	if err != nil {
		return SendQueue{}, err
	}
	approvedAt := p.UpdatedAt
	if p.ApprovedAt != nil {
		approvedAt = *p.ApprovedAt
	}
	err = q.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM posts WHERE status = $1 AND send_started_at IS NULL
		AND (coalesce(approved_at, updated_at), id) < ($2, $3) AND platform = $5 LIMIT $4) AS ahead`,
		post.StatusApproved, approvedAt, p.ID, most, p.Platform).Scan(&out.Ahead)
	if err != nil {
		return SendQueue{}, err
	}
	return out, nil
}

// sentTimes reads the database's clock and the most recent most send
// starts of the last longest (posts_sent_at_idx) on platform, or on every
// platform when it is empty: a queue with nobody counted ahead yet.
func sentTimes(ctx context.Context, q queryRower, platform string, most int, longest time.Duration) (SendQueue, error) {
	var out SendQueue
	if err := q.QueryRow(ctx, `SELECT now()`).Scan(&out.Now); err != nil {
		return SendQueue{}, err
	}
	rows, err := q.Query(ctx, sentTimesSQL, out.Now.Add(-longest), most, platform)
	if err != nil {
		return SendQueue{}, err
	}
	if out.Sent, err = pgx.CollectRows(rows, pgx.RowTo[time.Time]); err != nil {
		return SendQueue{}, err
	}
	return out, nil
}

// sentTimesSQL reads the latest $2 send starts since $1 (posts_sent_at_idx)
// on platform $3, or on every platform when $3 is empty.
const sentTimesSQL = `SELECT send_started_at FROM posts WHERE send_started_at > $1 AND ($3 = '' OR platform = $3)
	ORDER BY send_started_at DESC LIMIT $2`

// sendQueueOrder is the order the send caps serve approvals in, the one of
// posts_send_queue_idx.
const sendQueueOrder = `coalesce(approved_at, updated_at), id`

// queuedCountSQL counts the approvals waiting for their first send.
const queuedCountSQL = `SELECT count(*) FROM posts WHERE status = 'approved' AND send_started_at IS NULL`

// queuedPageSQL reads one page of the approvals waiting for their first
// send, in approval order: the ids first from posts_send_queue_idx, then
// their rows. cond (platformCond, argument $3) keeps one platform's,
// checked on the rows the index walk finds.
func queuedPageSQL(cond string) string {
	return `SELECT ` + postColumns + ` FROM posts WHERE id IN (
		SELECT id FROM posts WHERE status = 'approved' AND send_started_at IS NULL` + cond + `
		ORDER BY ` + sendQueueOrder + ` LIMIT $1 OFFSET $2)
	ORDER BY ` + sendQueueOrder
}

// QueuedPage is one page of the approvals waiting for their first send.
type QueuedPage struct {
	// Posts are the page's approvals, in approval order.
	Posts []post.Post
	// Total counts the approvals waiting, on every page.
	Total int
	// Queue is the send queue the page's first post meets: Ahead counts
	// the approvals on the pages before; the post at index i of Posts has
	// Queue.Ahead+i ahead of it.
	Queue SendQueue
	// Aheads counts, for each post of Posts, the approvals ahead of it
	// (Queue.Ahead+i): of its platform on a page of one platform, whose
	// send caps are its own; of every platform on the page of all.
	Aheads []int
}

// ListQueued returns one page (1-based) of the approved posts that have
// not started sending, in the order the send caps serve them, with the
// send times the caps decide on, read once for the page.
func (s *Store) ListQueued(ctx context.Context, page, pageSize int, caps guard.SendCaps) (QueuedPage, error) {
	return s.ListQueuedOn(ctx, "", page, pageSize, caps)
}

// queuedPlatformCountSQL counts the approvals of platform $1 waiting for
// their first send (posts_send_queue_idx, the platform checked on its rows).
const queuedPlatformCountSQL = `SELECT count(*) FROM posts WHERE status = 'approved' AND send_started_at IS NULL AND platform = $1`

// ListQueuedOn is ListQueued of the approvals of one platform
// (post.Platforms), with that platform's send times; "" is every
// platform, as ListQueued.
func (s *Store) ListQueuedOn(ctx context.Context, platform string, page, pageSize int, caps guard.SendCaps) (QueuedPage, error) {
	if !validFilter(platform) || page < 1 || pageSize < 1 {
		return QueuedPage{}, fmt.Errorf("store: list queued: %w: platform %q page %d", ErrInvalid, platform, page)
	}
	var out QueuedPage
	count, countArgs, pageArgs := queuedCountSQL, []any{}, []any{pageSize, (page - 1) * pageSize}
	if platform != "" {
		count, countArgs, pageArgs = queuedPlatformCountSQL, []any{platform}, append(pageArgs, platform)
	}
	_, most, longest := caps.Bounds()
	// One snapshot for the count, the page and the send times, so a send
	// starting meanwhile is not counted both as sent and as waiting.
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := s.pool.inTx(ctx, opts, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, count, countArgs...).Scan(&out.Total); err != nil {
			return fmt.Errorf("store: count queued: %w", err)
		}
		posts, err := queryPosts(ctx, tx, queuedPageSQL(platformCond(platform, 3)), pageArgs...)
		if err != nil {
			return fmt.Errorf("store: list queued: %w", err)
		}
		// A page of one platform meets that platform's caps; the page of
		// every platform counts every platform's sends, an estimate never
		// earlier than each platform's own caps allow.
		if out.Queue, err = sentTimes(ctx, tx, platform, most, longest); err != nil {
			return fmt.Errorf("store: list queued: send times: %w", err)
		}
		out.Posts, out.Queue.Ahead = posts, (page-1)*pageSize
		out.Aheads = make([]int, len(posts))
		for i := range out.Aheads {
			out.Aheads[i] = out.Queue.Ahead + i
		}
		return nil
	})
	if err != nil {
		return QueuedPage{}, err
	}
	return out, nil
}

// SendCounts is how the send caps stand: the sends started in the last 3
// and 24 hours and the approved posts they hold.
type SendCounts struct {
	Last3Hours int
	Last24h    int
	// Queued counts the approved posts noted guard.ReasonSendCap.
	Queued int
}

// SendCounts reads how the send caps stand now (posts_sent_at_idx).
func (s *Store) SendCounts(ctx context.Context) (SendCounts, error) {
	var c SendCounts
	err := s.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM posts WHERE send_started_at > now() - interval '3 hours'),
			(SELECT count(*) FROM posts WHERE send_started_at > now() - interval '24 hours'),
			(SELECT count(*) FROM posts WHERE status = $1 AND error = $2)`,
		post.StatusApproved, guard.ReasonSendCap).Scan(&c.Last3Hours, &c.Last24h, &c.Queued)
	if err != nil {
		return SendCounts{}, fmt.Errorf("store: send counts: %w", err)
	}
	return c, nil
}
