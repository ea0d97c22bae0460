package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The simulated world keeps its posts and its clock in PostgreSQL tables of
// its own, sandbox_posts and sandbox_clock (their schema is among pkg/store's
// migrations). It models an outside system, so it speaks SQL itself; the
// product's own data is only ever reached through pkg/store.

// errNotFound means the world has no such post.
var errNotFound = errors.New("not found")

// row is a post of the simulated microblog.
type row struct {
	ID             int64
	AuthorUsername string
	AuthorName     string
	// Kind is mention, topic, target (a mortal's post) or persona: how the
	// reads find it. A mortal's reply inside a thread and a quote of a
	// mortal's post are topic posts; a thin mention inside a thread and a
	// quote of the persona's reply are mentions.
	Kind string
	Text string
	// Lang is the language of the corpus entry the post was made from
	// (ISO 639-1, "" for the persona's own posts).
	Lang           string
	InReplyToID    int64
	ConversationID int64
	// QuotedID is the post this one quotes, 0 for none.
	QuotedID  int64
	Likes     int
	Retweets  int
	Replies   int
	CreatedAt time.Time
}

// query selects simulated posts newer than SinceID and, when UntilID is not
// zero, older than UntilID, newest first.
type query struct {
	Kind    string
	Author  string
	SinceID int64
	UntilID int64
	Limit   int
}

// keep is how long the simulated microblog keeps its posts.
const keep = 14 * 24 * time.Hour

// growing is how long a post keeps gaining engagement.
const growing = 48 * time.Hour

// world reads and writes the simulated microblog.
type world struct {
	pool *pgxpool.Pool
}

const rowColumns = `id, author_username, author_name, kind, text, coalesce(in_reply_to_id, 0), coalesce(conversation_id, id),
	coalesce(quoted_id, 0), likes, retweets, replies, created_at, lang`

func scanRow(r pgx.Row) (row, error) {
	var p row
	err := r.Scan(&p.ID, &p.AuthorUsername, &p.AuthorName, &p.Kind, &p.Text, &p.InReplyToID, &p.ConversationID,
		&p.QuotedID, &p.Likes, &p.Retweets, &p.Replies, &p.CreatedAt, &p.Lang)
	return p, err
}

// noRow turns pgx's "no rows" into errNotFound, naming what was looked for.
func noRow(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, errNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// turn is what the world makes at one sequence number of its clock: a
// post, and the earlier turns whose posts it answers or quotes, counted back
// from its own.
type turn struct {
	Post row
	// ReplyBack is how many turns back the post it answers was made, 0 for
	// a post that answers none.
	ReplyBack int64
	// QuoteBack is how many turns back the post it quotes was made, 0 for a
	// post that quotes none.
	QuoteBack int64
	// QuotePersona makes the post quote the persona's newest recent reply
	// that nobody has quoted yet, when there is one, instead of QuoteBack's
	// post. Such a quote summons the persona, so it is filed as a mention.
	QuotePersona bool
	// Else is the post made instead when the post to answer or quote is
	// gone (forgotten, or never made).
	Else row
}

// advance moves the simulated world's clock on to now, in one transaction:
// posts older than keep are forgotten, the mortal posts due since the last
// call are made (one per pace, at most max; on the very first call the
// opening burst), each planned by newTurn from its sequence number, and
// engagement grows. Concurrent callers wait for each other, so a reader
// that advances first sees the whole batch.
func (w *world) advance(ctx context.Context, now time.Time, pace time.Duration, burst, max int, newTurn func(seq int64) turn) error {
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
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
		// Forgotten first, so that no new post answers one about to go.
		if _, err := tx.Exec(ctx, `DELETE FROM sandbox_posts WHERE created_at < $1`, now.Add(-keep)); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := makeTurn(ctx, tx, seq+int64(i), now, next.Add(-time.Duration(n-1-i)*pace), newTurn(seq+int64(i))); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE sandbox_clock SET advanced_at = $1, seq = seq + $2`, next, n); err != nil {
			return err
		}
		return grow(ctx, tx, now)
	})
	if err != nil {
		return fmt.Errorf("advance: %w", err)
	}
	return nil
}

// makeTurn writes the post of turn t, the world's turn seq, created at at.
func makeTurn(ctx context.Context, tx pgx.Tx, seq int64, now, at time.Time, t turn) error {
	p, err := resolve(ctx, tx, seq, now, t)
	if err != nil {
		return fmt.Errorf("turn %d: %w", seq, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO sandbox_posts
		(author_username, author_name, kind, text, in_reply_to_id, conversation_id, quoted_id, seq, created_at, lang)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, p.AuthorUsername, p.AuthorName, p.Kind, p.Text,
		nullID(p.InReplyToID), nullID(p.ConversationID), nullID(p.QuotedID), seq, at, p.Lang); err != nil {
		return fmt.Errorf("turn %d: %w", seq, err)
	}
	return nil
}

// resolve returns the post of turn t, the world's turn seq: it joins the
// conversation of the post it answers (whose reply count goes up) and names
// the post it quotes; when either is gone, it is t.Else.
func resolve(ctx context.Context, tx pgx.Tx, seq int64, now time.Time, t turn) (row, error) {
	p := t.Post
	if t.ReplyBack > 0 {
		err := tx.QueryRow(ctx, `UPDATE sandbox_posts SET replies = replies + 1
			WHERE id = (SELECT id FROM sandbox_posts WHERE seq = $1 ORDER BY id DESC LIMIT 1)
			RETURNING id, coalesce(conversation_id, id)`, seq-t.ReplyBack).Scan(&p.InReplyToID, &p.ConversationID)
		if errors.Is(err, pgx.ErrNoRows) {
			return t.Else, nil
		}
		if err != nil {
			return row{}, fmt.Errorf("parent: %w", err)
		}
	}
	if t.QuotePersona {
		err := tx.QueryRow(ctx, `SELECT id FROM sandbox_posts p WHERE kind = 'persona' AND in_reply_to_id IS NOT NULL
			AND created_at > $1 AND NOT EXISTS (SELECT 1 FROM sandbox_posts q WHERE q.quoted_id = p.id)
			ORDER BY id DESC LIMIT 1`, now.Add(-growing)).Scan(&p.QuotedID)
		if err == nil {
			p.Kind = "mention"
			return p, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return row{}, fmt.Errorf("persona reply: %w", err)
		}
	}
	if t.QuoteBack > 0 {
		err := tx.QueryRow(ctx, `SELECT id FROM sandbox_posts WHERE seq = $1 ORDER BY id DESC LIMIT 1`,
			seq-t.QuoteBack).Scan(&p.QuotedID)
		if errors.Is(err, pgx.ErrNoRows) {
			return t.Else, nil
		}
		if err != nil {
			return row{}, fmt.Errorf("quoted: %w", err)
		}
	}
	return p, nil
}

// nullID is id for a nullable column: nil for 0.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// grow lets engagement grow on the posts of the last two days (each gains a
// few likes, fewer reposts and replies, the persona's a little more).
func grow(ctx context.Context, tx pgx.Tx, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE sandbox_posts SET
			likes = likes + floor(random() * CASE WHEN kind = 'persona' THEN 6 ELSE 4 END)::int,
			retweets = retweets + floor(random() * 1.6)::int,
			replies = replies + floor(random() * 1.3)::int
		WHERE created_at > $1`, now.Add(-growing))
	return err
}

// insert adds a post to the simulated microblog and returns it with its id.
// A reply bumps its parent's reply count and joins its conversation; a reply
// to a post that is not there is errNotFound.
func (w *world) insert(ctx context.Context, p row) (row, error) {
	var replyTo *int64
	if p.InReplyToID != 0 {
		replyTo = &p.InReplyToID
	}
	// One statement, so one round trip per published post: the parent's
	// count goes up and the reply joins its conversation; with no parent
	// there (but one named) nothing is inserted.
	out, err := scanRow(w.pool.QueryRow(ctx, `
		WITH parent AS (
			UPDATE sandbox_posts SET replies = replies + 1 WHERE id = $5
			RETURNING coalesce(conversation_id, id) AS conversation_id)
		INSERT INTO sandbox_posts (author_username, author_name, kind, text, in_reply_to_id, conversation_id, created_at)
		SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint, (SELECT conversation_id FROM parent), $6::timestamptz
		WHERE $5::bigint IS NULL OR EXISTS (SELECT 1 FROM parent)
		RETURNING `+rowColumns,
		p.AuthorUsername, p.AuthorName, p.Kind, p.Text, replyTo, p.CreatedAt))
	if err != nil {
		if replyTo != nil {
			err = noRow(err, fmt.Sprintf("post %d", p.InReplyToID))
		}
		return row{}, fmt.Errorf("insert: %w", err)
	}
	return out, nil
}

// posts returns the simulated posts matching q.
func (w *world) posts(ctx context.Context, q query) ([]row, error) {
	rows, err := w.pool.Query(ctx, `SELECT `+rowColumns+` FROM sandbox_posts
		WHERE ($1 = '' OR kind = $1) AND ($2 = '' OR author_username = $2) AND id > $3 AND ($5 = 0 OR id < $5)
		ORDER BY id DESC LIMIT $4`, q.Kind, q.Author, q.SinceID, q.Limit, q.UntilID)
	if err != nil {
		return nil, fmt.Errorf("posts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) { return scanRow(r) })
	if err != nil {
		return nil, fmt.Errorf("posts: %w", err)
	}
	return out, nil
}

// byIDs returns the simulated posts with the given ids, oldest first.
func (w *world) byIDs(ctx context.Context, ids []int64) ([]row, error) {
	rows, err := w.pool.Query(ctx, `SELECT `+rowColumns+` FROM sandbox_posts WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("posts by id: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) { return scanRow(r) })
	if err != nil {
		return nil, fmt.Errorf("posts by id: %w", err)
	}
	return out, nil
}

// findPersonaPost returns the persona's post that replies to inReplyTo, or,
// for inReplyTo 0, its standalone post with exactly text; errNotFound when
// there is none.
func (w *world) findPersonaPost(ctx context.Context, inReplyTo int64, text string) (row, error) {
	var r pgx.Row
	if inReplyTo != 0 {
		r = w.pool.QueryRow(ctx, `SELECT `+rowColumns+` FROM sandbox_posts WHERE kind = 'persona' AND in_reply_to_id = $1
			ORDER BY id LIMIT 1`, inReplyTo)
	} else {
		r = w.pool.QueryRow(ctx, `SELECT `+rowColumns+` FROM sandbox_posts WHERE kind = 'persona' AND in_reply_to_id IS NULL
			AND text = $1 ORDER BY id DESC LIMIT 1`, text)
	}
	p, err := scanRow(r)
	if err != nil {
		return row{}, noRow(err, "persona post")
	}
	return p, nil
}

// personaReplies returns the persona's posts that reply to id, oldest first.
func (w *world) personaReplies(ctx context.Context, id int64) ([]row, error) {
	rows, err := w.pool.Query(ctx, `SELECT `+rowColumns+` FROM sandbox_posts WHERE kind = 'persona' AND in_reply_to_id = $1
		ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("persona replies: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) { return scanRow(r) })
	if err != nil {
		return nil, fmt.Errorf("persona replies: %w", err)
	}
	return out, nil
}
