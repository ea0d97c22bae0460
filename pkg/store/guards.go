package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"infernal/pkg/guard"
	"infernal/pkg/post"
)

// The classes of the two-key advisory locks the reply caps take, so that
// two posts of one conversation (or of one author) are judged one after
// the other and never both pass a cap with room for one.
//
// An author with a stable id takes the lock of its id and then that of
// its handle, one without only the handle's: two posts of one author are
// judged one after the other whether they are told apart by id (a renamed
// author) or by handle (a post from before ids were kept).
const (
	lockConversation = 11001
	lockAuthor       = 11002
	lockAuthorID     = 11003
)

// capStatuses are the statuses of guarded posts that count against the
// reply caps: a reply drafted, waiting, approved or sent (a post in
// drafting counts only once guarded, which every counted post is).
var capStatuses = []string{
	string(post.StatusDrafting), string(post.StatusPending), string(post.StatusApproved),
	string(post.StatusAwaitingManual), string(post.StatusPosted),
}

// conversationCapSQL counts the other guarded posts ($5 is the post) of
// conversation $2 on platform $1 (posts_conversation_idx).
const conversationCapSQL = `SELECT count(*) FROM posts
	WHERE platform = $1 AND conversation_id = $2 AND guarded_at IS NOT NULL AND status = ANY($4) AND id <> $5`

// authorCapSQL counts the other posts of the author guarded in the last 24
// hours: with the author's stable id $6, the posts with that id
// (posts_author_id_idx) and those without an id by handle $3 (lower-case,
// posts_author_guarded_idx), so a renamed author keeps its count and the
// next owner of a handle does not take it over; without an id ($6 empty),
// every post by handle $3. (The repeated test that author_id is not empty lets the partial
// index serve.)
const authorCapSQL = `SELECT (SELECT count(*) FROM posts
		WHERE $6 <> '' AND author_id = $6 AND author_id <> '' AND platform = $1 AND guarded_at IS NOT NULL
			AND guarded_at > now() - interval '24 hours' AND status = ANY($4) AND id <> $5)
	+ (SELECT count(*) FROM posts
		WHERE platform = $1 AND lower(author_username) = $3 AND ($6 = '' OR author_id = '') AND guarded_at IS NOT NULL
			AND guarded_at > now() - interval '24 hours' AND status = ANY($4) AND id <> $5)`

// capCountsSQL reads both counts of the reply caps.
const capCountsSQL = `SELECT (` + conversationCapSQL + `), (` + authorCapSQL + `)`

// passGuardsSQL marks post $5 guarded when it is in drafting and both
// counts are under their caps ($7 per conversation, $8 per author a day).
const passGuardsSQL = `WITH counts AS (SELECT (` + conversationCapSQL + `) AS conversation, (` + authorCapSQL + `) AS author)
	UPDATE posts SET guarded_at = now(), updated_at = now()
	WHERE id = $5 AND status = 'drafting' AND (SELECT conversation < $7 AND author < $8 FROM counts)`

// Skip moves a post in drafting to skipped with reason, the guard that
// stopped it; any other state gets a *post.StateError (ErrConflict).
func (s *Store) Skip(ctx context.Context, id int64, reason string) error {
	return s.skip(ctx, s.pool, id, reason)
}

// skip is Skip on q (the pool or a transaction).
func (s *Store) skip(ctx context.Context, q querier, id int64, reason string) error {
	rows, err := q.Query(ctx, `UPDATE posts SET status = 'skipped', skip_reason = $2, updated_at = now()
		WHERE id = $1 AND status = ANY($3) RETURNING id`, id, reason, from(post.StatusSkipped))
	if err != nil {
		return fmt.Errorf("store: skip %d: %w", id, err)
	}
	n, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("store: skip %d: %w", id, err)
	}
	if len(n) == 0 {
		return s.stateError(ctx, id, "skip", usual(post.StatusSkipped))
	}
	return nil
}

// PassGuards applies the reply caps to p, a post in drafting, under the
// advisory locks of its conversation and then of its author (always in
// that order): it counts the guarded posts of both (the author's of the
// last 24 hours, by the author's stable id where p has one, see
// authorCapSQL) and either marks the post guarded (reason "") or skips it
// with guard.CapDecision's reason. A post no longer in drafting gets a
// *post.StateError (ErrConflict).
//
// A post within both caps is guarded in one round trip (passGuardsSQL);
// only a post the caps may hold takes the transaction that finds the reason.
func (s *Store) PassGuards(ctx context.Context, p post.Post, caps guard.Caps) (reason string, err error) {
	caps = caps.WithDefaults()
	// A post without a conversation is its own.
	conversation := p.ConversationID
	if conversation == "" {
		conversation = p.OriginalPostID
	}
	author := strings.ToLower(p.AuthorUsername)
	locks := func(q interface {
		Queue(string, ...any) *pgx.QueuedQuery
	}) {
		q.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockConversation, p.Platform+"/"+conversation)
		if p.AuthorID != "" {
			q.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockAuthorID, p.Platform+"/"+p.AuthorID)
		}
		q.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockAuthor, p.Platform+"/"+author)
	}
	nlocks := 2
	if p.AuthorID != "" {
		nlocks = 3
	}
	// The batch is one implicit transaction: the locks are held until the
	// update commits, and the update counts after they are granted.
	var b pgx.Batch
	locks(&b)
	b.Queue(passGuardsSQL, p.Platform, conversation, author, capStatuses, p.ID, p.AuthorID, caps.PerConversation, caps.PerAuthorPerDay)
	res := s.pool.SendBatch(ctx, &b)
	var passed bool
	for range nlocks {
		if _, err = res.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		var tag pgconn.CommandTag
		tag, err = res.Exec()
		passed = tag.RowsAffected() == 1
	}
	if cerr := res.Close(); err != nil || cerr != nil {
		return "", fmt.Errorf("store: pass guards %d: %w", p.ID, errors.Join(err, cerr))
	}
	if passed {
		return "", nil
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var tb pgx.Batch
		locks(&tb)
		if err := tx.SendBatch(ctx, &tb).Close(); err != nil {
			return fmt.Errorf("store: pass guards %d: locks: %w", p.ID, err)
		}
		var inConversation, toAuthor int
		if err := tx.QueryRow(ctx, capCountsSQL,
			p.Platform, conversation, author, capStatuses, p.ID, p.AuthorID).Scan(&inConversation, &toAuthor); err != nil {
			return fmt.Errorf("store: pass guards %d: counts: %w", p.ID, err)
		}
		why, ok := guard.CapDecision(inConversation, toAuthor, caps)
		if !ok {
			reason = why
			return s.skip(ctx, tx, p.ID, why)
		}
		tag, err := tx.Exec(ctx, `UPDATE posts SET guarded_at = now(), updated_at = now() WHERE id = $1 AND status = $2`, p.ID, post.StatusDrafting)
		if err != nil {
			return fmt.Errorf("store: pass guards %d: %w", p.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return s.stateError(ctx, p.ID, "pass guards", post.StatusDrafting)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return reason, nil
}

// RecentTextsLimit is the most recent persona texts the near-duplicate
// guard compares a draft with: a week of a busy persona's drafts.
const RecentTextsLimit = 500

// recentTextsSQL reads the persona's latest drafts and posts
// (posts_recent_drafts_idx).
const recentTextsSQL = `SELECT proposed_response FROM posts
	WHERE status IN ('pending', 'approved', 'awaiting_manual', 'posted') AND updated_at >= $1
	ORDER BY updated_at DESC LIMIT $2`

// RecentPersonaTexts returns the texts of the persona's drafts and posts
// (pending, approved, awaiting hand-posting or posted) changed since
// since, newest first, at most limit of them: what the near-duplicate
// guard compares a new draft with.
func (s *Store) RecentPersonaTexts(ctx context.Context, since time.Time, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, recentTextsSQL, since, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent persona texts: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: recent persona texts: %w", err)
	}
	return out, nil
}

// skippedCountSQL counts the skipped and failed posts of every source from
// post_counts.
const skippedCountSQL = `SELECT coalesce(sum(n), 0) FROM post_counts WHERE status IN ('skipped', 'failed')`

// skippedPageSQL reads one page of the skipped and failed posts in order,
// the ids first from a posts_skipped_failed_*_idx index, then their rows.
// cond (platformCond, argument $3) keeps one platform's, checked on the
// rows the index walk finds.
func skippedPageSQL(order, cond string) string {
	return `SELECT ` + postColumns + ` FROM posts WHERE id IN (
		SELECT id FROM posts WHERE status IN ('skipped', 'failed')` + cond + ` ORDER BY ` + order + ` LIMIT $1 OFFSET $2)
	ORDER BY ` + order
}

// ListSkipped returns one page (1-based) of the posts the guards skipped
// and of those that failed (to draft or to send), of every source, each
// with its skip reason or error, and how many there are in all.
func (s *Store) ListSkipped(ctx context.Context, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	return s.ListSkippedOn(ctx, "", sort, page, pageSize)
}
