package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/guard"
	"infernal/pkg/post"
)

// The classes of the two-key advisory locks the reply caps take, so that
// two posts of one conversation (or of one author) are judged one after
// the other and never both pass a cap with room for one.
const (
	lockConversation = 11001
	lockAuthor       = 11002
)

// capStatuses are the statuses of guarded posts that count against the
// reply caps: a reply drafted, waiting, approved or sent (a post in
// drafting counts only once guarded, which every counted post is).
var capStatuses = []string{
	string(post.StatusDrafting), string(post.StatusPending), string(post.StatusApproved),
	string(post.StatusAwaitingManual), string(post.StatusPosted),
}

// conversationCapSQL counts the other guarded posts of a conversation
// (posts_conversation_idx).
const conversationCapSQL = `SELECT count(*) FROM posts
	WHERE platform = $1 AND conversation_id = $2 AND guarded_at IS NOT NULL AND status = ANY($3) AND id <> $4`

// authorCapSQL counts the other posts of an author guarded in the last 24
// hours (posts_author_guarded_idx).
const authorCapSQL = `SELECT count(*) FROM posts
	WHERE platform = $1 AND lower(author_username) = $2 AND guarded_at IS NOT NULL
		AND guarded_at > now() - interval '24 hours' AND status = ANY($3) AND id <> $4`

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

// PassGuards applies the reply caps to a post in drafting, in one
// transaction: it takes the advisory locks of the post's conversation and
// then of its author (always in that order), counts the guarded posts of
// both (the author's of the last 24 hours), and either marks the post
// guarded (reason "") or skips it with guard.CapDecision's reason. A post
// no longer in drafting gets a *post.StateError (ErrConflict).
func (s *Store) PassGuards(ctx context.Context, id int64, caps guard.Caps) (reason string, err error) {
	p, err := s.Post(ctx, id)
	if err != nil {
		return "", err
	}
	// A post without a conversation is its own.
	conversation := p.ConversationID
	if conversation == "" {
		conversation = p.OriginalPostID
	}
	author := strings.ToLower(p.AuthorUsername)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockConversation, p.Platform+"/"+conversation); err != nil {
			return fmt.Errorf("store: pass guards %d: conversation lock: %w", id, err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockAuthor, p.Platform+"/"+author); err != nil {
			return fmt.Errorf("store: pass guards %d: author lock: %w", id, err)
		}
		var inConversation, toAuthor int
		if err := tx.QueryRow(ctx, conversationCapSQL, p.Platform, conversation, capStatuses, id).Scan(&inConversation); err != nil {
			return fmt.Errorf("store: pass guards %d: conversation count: %w", id, err)
		}
		if err := tx.QueryRow(ctx, authorCapSQL, p.Platform, author, capStatuses, id).Scan(&toAuthor); err != nil {
			return fmt.Errorf("store: pass guards %d: author count: %w", id, err)
		}
		why, ok := guard.CapDecision(inConversation, toAuthor, caps)
		if !ok {
			reason = why
			return s.skip(ctx, tx, id, why)
		}
		tag, err := tx.Exec(ctx, `UPDATE posts SET guarded_at = now(), updated_at = now() WHERE id = $1 AND status = $2`, id, post.StatusDrafting)
		if err != nil {
			return fmt.Errorf("store: pass guards %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return s.stateError(ctx, id, "pass guards", post.StatusDrafting)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return reason, nil
}

// DraftAnyway overrides the guard that skipped a post: it moves back to
// drafting, guarded (so the guards are not run again, and it counts
// against the caps), its reason cleared. A post that is not skipped gets a
// *post.StateError (ErrConflict), an unknown one ErrNotFound.
func (s *Store) DraftAnyway(ctx context.Context, id int64) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, `
		UPDATE posts SET status = 'drafting', guarded_at = now(), skip_reason = '', updated_at = now()
		WHERE id = $1 AND status = ANY($2) RETURNING `+postColumns, id, from(post.StatusDrafting))
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, fmt.Errorf("store: draft anyway %d: %w", id, err)
	}
	return post.Post{}, s.stateError(ctx, id, "draft anyway", post.StatusSkipped)
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
func skippedPageSQL(order string) string {
	return `SELECT ` + postColumns + ` FROM posts WHERE id IN (
		SELECT id FROM posts WHERE status IN ('skipped', 'failed') ORDER BY ` + order + ` LIMIT $1 OFFSET $2)
	ORDER BY ` + order
}

// ListSkipped returns one page (1-based) of the posts the guards skipped
// and of those that failed (to draft or to send), of every source, each
// with its skip reason or error, and how many there are in all.
func (s *Store) ListSkipped(ctx context.Context, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	order, ok := orderBy[sort]
	if !ok || page < 1 || pageSize < 1 {
		return nil, 0, fmt.Errorf("store: list skipped: %w: sort %q page %d", ErrInvalid, sort, page)
	}
	var total int
	if err := s.pool.QueryRow(ctx, skippedCountSQL).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count skipped: %w", err)
	}
	posts, err := queryPosts(ctx, s.pool, skippedPageSQL(order), pageSize, (page-1)*pageSize)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list skipped: %w", err)
	}
	return posts, total, nil
}
