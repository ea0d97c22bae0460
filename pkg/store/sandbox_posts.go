package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SandboxPost is a post of the simulated microblog.
type SandboxPost struct {
	ID             int64
	AuthorUsername string
	AuthorName     string
	// Kind is mention, topic, target (a mortal's post) or persona.
	Kind           string
	Text           string
	InReplyToID    int64
	ConversationID int64
	Likes          int
	Retweets       int
	Replies        int
	CreatedAt      time.Time
}

const sandboxColumns = `id, author_username, author_name, kind, text, coalesce(in_reply_to_id, 0), coalesce(conversation_id, id),
	likes, retweets, replies, created_at`

func scanSandboxPost(row pgx.Row) (SandboxPost, error) {
	var p SandboxPost
	err := row.Scan(&p.ID, &p.AuthorUsername, &p.AuthorName, &p.Kind, &p.Text, &p.InReplyToID, &p.ConversationID,
		&p.Likes, &p.Retweets, &p.Replies, &p.CreatedAt)
	return p, err
}

// SandboxAdvance moves the simulated world's clock on to now, in one
// transaction: the mortal posts due since the last call are made (one per
// pace, at most max; on the very first call the opening burst), each written
// by newPost from its sequence number, and engagement grows. Concurrent callers
// wait for each other, so a reader that advances first sees the whole batch.
func (s *Store) SandboxAdvance(ctx context.Context, now time.Time, pace time.Duration, burst, max int, newPost func(seq int64) SandboxPost) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO sandbox_clock (advanced_at, seq) VALUES ($1, 0) ON CONFLICT DO NOTHING`,
			now.Add(-time.Duration(burst)*pace)); err != nil {
			return err
		}
		var at time.Time
		var seq int64
		if err := tx.QueryRow(ctx, `SELECT advanced_at, seq FROM sandbox_clock FOR UPDATE`).Scan(&at, &seq); err != nil {
			return err
		}
		n := int(now.Sub(at) / pace)
		if n <= 0 {
			return nil
		}
		next := at.Add(time.Duration(n) * pace)
		if n > max {
			n, next = max, now
		}
		for i := 0; i < n; i++ {
			p := newPost(seq + int64(i))
			p.CreatedAt = next.Add(-time.Duration(n-1-i) * pace)
			if _, err := tx.Exec(ctx, `INSERT INTO sandbox_posts (author_username, author_name, kind, text, created_at)
				VALUES ($1, $2, $3, $4, $5)`, p.AuthorUsername, p.AuthorName, p.Kind, p.Text, p.CreatedAt); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE sandbox_clock SET advanced_at = $1, seq = seq + $2`, next, n); err != nil {
			return err
		}
		return growSandbox(ctx, tx, now)
	})
	if err != nil {
		return fmt.Errorf("store: sandbox advance: %w", err)
	}
	return nil
}

// SandboxInsert adds a post to the simulated microblog and returns it with its id.
// A reply bumps its parent's reply count and joins its conversation.
func (s *Store) SandboxInsert(ctx context.Context, p SandboxPost) (SandboxPost, error) {
	var out SandboxPost
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var conv *int64
		if p.InReplyToID != 0 {
			var c int64
			err := tx.QueryRow(ctx, `UPDATE sandbox_posts SET replies = replies + 1 WHERE id = $1
				RETURNING coalesce(conversation_id, id)`, p.InReplyToID).Scan(&c)
			if err != nil {
				return notFound(err, fmt.Sprintf("sandbox post %d", p.InReplyToID))
			}
			conv = &c
		}
		var replyTo *int64
		if p.InReplyToID != 0 {
			replyTo = &p.InReplyToID
		}
		var err error
		out, err = scanSandboxPost(tx.QueryRow(ctx, `INSERT INTO sandbox_posts
			(author_username, author_name, kind, text, in_reply_to_id, conversation_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+sandboxColumns,
			p.AuthorUsername, p.AuthorName, p.Kind, p.Text, replyTo, conv, p.CreatedAt))
		return err
	})
	if err != nil {
		return SandboxPost{}, fmt.Errorf("store: sandbox insert: %w", err)
	}
	return out, nil
}

// sandboxKeep is how long the simulated microblog keeps its posts.
const sandboxKeep = 14 * 24 * time.Hour

// growSandbox lets engagement grow on the posts of the last two days (each
// gains a few likes, fewer reposts and replies, the persona's a little
// more) and forgets posts older than sandboxKeep.
func growSandbox(ctx context.Context, tx pgx.Tx, now time.Time) error {
	if _, err := tx.Exec(ctx, `DELETE FROM sandbox_posts WHERE created_at < $1`, now.Add(-sandboxKeep)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE sandbox_posts SET
			likes = likes + floor(random() * CASE WHEN kind = 'persona' THEN 6 ELSE 4 END)::int,
			retweets = retweets + floor(random() * 1.6)::int,
			replies = replies + floor(random() * 1.3)::int
		WHERE created_at > $1`, now.Add(-48*time.Hour))
	return err
}

// SandboxQuery selects simulated posts newer than SinceID, newest first.
type SandboxQuery struct {
	Kind    string
	Author  string
	SinceID int64
	Limit   int
}

// SandboxPosts returns the simulated posts matching q.
func (s *Store) SandboxPosts(ctx context.Context, q SandboxQuery) ([]SandboxPost, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sandboxColumns+` FROM sandbox_posts
		WHERE ($1 = '' OR kind = $1) AND ($2 = '' OR author_username = $2) AND id > $3
		ORDER BY id DESC LIMIT $4`, q.Kind, q.Author, q.SinceID, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: sandbox posts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SandboxPost, error) { return scanSandboxPost(r) })
	if err != nil {
		return nil, fmt.Errorf("store: sandbox posts: %w", err)
	}
	return out, nil
}

// SandboxByIDs returns the simulated posts with the given ids.
func (s *Store) SandboxByIDs(ctx context.Context, ids []int64) ([]SandboxPost, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sandboxColumns+` FROM sandbox_posts WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: sandbox posts by id: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SandboxPost, error) { return scanSandboxPost(r) })
	if err != nil {
		return nil, fmt.Errorf("store: sandbox posts by id: %w", err)
	}
	return out, nil
}

// SandboxFindPersonaPost returns the persona's post that replies to
// inReplyTo, or, for inReplyTo 0, its standalone post with exactly text.
func (s *Store) SandboxFindPersonaPost(ctx context.Context, inReplyTo int64, text string) (SandboxPost, error) {
	var row pgx.Row
	if inReplyTo != 0 {
		row = s.pool.QueryRow(ctx, `SELECT `+sandboxColumns+` FROM sandbox_posts WHERE kind = 'persona' AND in_reply_to_id = $1
			ORDER BY id LIMIT 1`, inReplyTo)
	} else {
		row = s.pool.QueryRow(ctx, `SELECT `+sandboxColumns+` FROM sandbox_posts WHERE kind = 'persona' AND in_reply_to_id IS NULL
			AND text = $1 ORDER BY id DESC LIMIT 1`, text)
	}
	p, err := scanSandboxPost(row)
	if err != nil {
		return SandboxPost{}, notFound(err, "sandbox persona post")
	}
	return p, nil
}

// SandboxAuthorExists tells whether anyone by that handle has posted in the sandbox.
func (s *Store) SandboxAuthorExists(ctx context.Context, username string) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sandbox_posts WHERE author_username = $1)`, username).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: sandbox author: %w", err)
	}
	return ok, nil
}
