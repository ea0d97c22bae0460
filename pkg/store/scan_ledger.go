package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/insights"
	"infernal/pkg/post"
)

// LedgerKeep is how long the ledger keeps a dropped post.
const LedgerKeep = 90 * 24 * time.Hour

// Dropped is a post a scan returned and dropped before recording it.
type Dropped struct {
	PostID string
	Reason string
}

// RecordDropped keeps the posts of one read that a scan dropped before
// recording them, with the reason and source, in one statement. A post
// already in the ledger keeps its first entry.
func (s *Store) RecordDropped(ctx context.Context, platform string, source post.Source, dropped []Dropped) error {
	if len(dropped) == 0 {
		return nil
	}
	ids := make([]string, len(dropped))
	reasons := make([]string, len(dropped))
	for i, d := range dropped {
		ids[i], reasons[i] = d.PostID, d.Reason
	}
	// A post a scan records in posts (another timeline returned it
	// answerable) is accounted for there: the ledger leaves it out.
	_, err := s.pool.Exec(ctx, `
		INSERT INTO scan_ledger (platform, platform_post_id, source, reason)
		SELECT $1, d.id, $2, d.reason FROM unnest($3::text[], $4::text[]) AS d (id, reason)
		WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.platform = $1 AND p.original_post_id = d.id)
		ON CONFLICT (platform, platform_post_id) DO NOTHING`, platform, string(source), ids, reasons)
	if err != nil {
		return fmt.Errorf("store: record dropped posts: %w", err)
	}
	return nil
}

// PruneLedger deletes the ledger's entries seen before before and returns
// how many.
func (s *Store) PruneLedger(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM scan_ledger WHERE seen_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune ledger: %w", err)
	}
	return tag.RowsAffected(), nil
}

// NoteScan records that a scan of the timeline name read it, covering
// posts up to newestID ("" keeps the newest id an earlier scan covered).
func (s *Store) NoteScan(ctx context.Context, platform, name, newestID string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO scan_runs (platform, name, scanned_at, newest_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (platform, name) DO UPDATE SET scanned_at = excluded.scanned_at,
			newest_id = CASE WHEN excluded.newest_id = '' THEN scan_runs.newest_id ELSE excluded.newest_id END`,
		platform, name, at, newestID)
	if err != nil {
		return fmt.Errorf("store: note scan %s/%s: %w", platform, name, err)
	}
	return nil
}

// Fate is what became of one post a scan returned, as a lookup answers it.
type Fate struct {
	// Status is the post's fate (insights.FateOf).
	Status string
	// Reason says why it was skipped or failed, "" otherwise.
	Reason string
	SeenAt time.Time
	// PostID is the post's row, 0 for a post dropped before recording.
	PostID int64
}

// LastScan is the last scan of a timeline, for a lookup of a post never seen.
type LastScan struct {
	At       time.Time
	NewestID string
}

// LookupPost returns the fate of the post platformID of platform: from
// posts when it was recorded there, else from the ledger; ErrNotFound
// when no scan returned it (or the ledger pruned it).
//
// A Bluesky post named by its author's handle (at://<handle>/...) is
// looked up by the author's DID, as its scan recorded it, when a post of
// that author under that handle is known.
func (s *Store) LookupPost(ctx context.Context, platform, platformID string) (Fate, error) {
	if handle, withAuthor, ok := post.DescriptorOf(platform).RefAuthor(platformID); ok {
		var err error
		if platformID, err = s.refByAuthorID(ctx, platform, handle, platformID, withAuthor); err != nil {
			return Fate{}, err
		}
	}
	var (
		f                   Fate
		status, skip, errs  string
		approved, sendStart *time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT id, status, skip_reason, error, inserted_at, approved_at, send_started_at
		FROM posts WHERE platform = $1 AND original_post_id = $2`, platform, platformID).
		Scan(&f.PostID, &status, &skip, &errs, &f.SeenAt, &approved, &sendStart)
	if err == nil {
		f.Status, f.Reason = insights.FateOf(post.Status(status), skip, errs, approved != nil || sendStart != nil)
		return f, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Fate{}, fmt.Errorf("store: look up post %s: %w", platformID, err)
	}
	err = s.pool.QueryRow(ctx, `SELECT reason, seen_at FROM scan_ledger WHERE platform = $1 AND platform_post_id = $2`,
		platform, platformID).Scan(&f.Reason, &f.SeenAt)
	if err != nil {
		return Fate{}, notFound(err, "look up post "+platformID)
	}
	f.Status = insights.FateSkipped
	return f, nil
}

// refByAuthorID returns ref, a post reference of platform that names its
// author by handle, rebuilt by withAuthor with the stable id of the author
// known under that handle (a DID on Bluesky); ref as it is when the
// handle is unknown.
func (s *Store) refByAuthorID(ctx context.Context, platform, handle, ref string, withAuthor func(string) string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT author_id FROM posts
		WHERE platform = $1 AND lower(author_username) = lower($2) AND author_id <> ''
		ORDER BY id DESC LIMIT 1`, platform, handle).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return ref, nil
	}
	if err != nil {
		return "", fmt.Errorf("store: look up post %s: author: %w", ref, err)
	}
	return withAuthor(id), nil
}

// LastScanOf returns the last scan of the timeline name; ErrNotFound when
// none has run.
func (s *Store) LastScanOf(ctx context.Context, platform, name string) (LastScan, error) {
	var l LastScan
	err := s.pool.QueryRow(ctx, `SELECT scanned_at, newest_id FROM scan_runs WHERE platform = $1 AND name = $2`,
		platform, name).Scan(&l.At, &l.NewestID)
	if err != nil {
		return LastScan{}, notFound(err, "last scan of "+name)
	}
	return l, nil
}
