package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Gap is a stretch of a timeline a bounded scan left unread: the posts newer
// than SinceID ("" for no lower bound) and older than UntilID.
type Gap struct {
	ID      int64  `db:"id"`
	SinceID string `db:"since_id"`
	UntilID string `db:"until_id"`
}

// ScanSkips is what the scans of one timeline left for later or gave up.
type ScanSkips struct {
	Platform string `db:"platform"`
	Name     string `db:"name"`
	// OpenGaps is how many gaps are still to be read.
	OpenGaps int `db:"open_gaps"`
	// SkippedReads counts the gap reads put off because the read budget
	// did not allow them.
	SkippedReads int64 `db:"skipped_reads"`
	// DroppedGaps counts the gaps given up because the platform refused to
	// read them (too old for its window).
	DroppedGaps int64     `db:"dropped_gaps"`
	LastReason  string    `db:"last_reason"`
	UpdatedAt   time.Time `db:"updated_at"`
}

// Gaps returns the open gaps of a timeline, oldest first. Ids are compared
// as numbers: a shorter decimal id is the smaller.
func (s *Store) Gaps(ctx context.Context, platform, name string) ([]Gap, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, since_id, until_id FROM scan_gaps
		WHERE platform = $1 AND name = $2
		ORDER BY length(until_id), until_id`, platform, name)
	if err != nil {
		return nil, fmt.Errorf("store: gaps %s/%s: %w", platform, name, err)
	}
	gaps, err := pgx.CollectRows(rows, pgx.RowToStructByName[Gap])
	if err != nil {
		return nil, fmt.Errorf("store: gaps %s/%s: %w", platform, name, err)
	}
	return gaps, nil
}

// MoveCursor moves a timeline's cursor from from to to. When gapUntil is not
// empty, the read that moved it stopped at gapUntil before reaching from, and
// the posts between them are kept as a gap, in the same transaction, so a
// crash can neither move the cursor without the gap nor the reverse. A cursor
// no longer at from (another scan moved it) gets ErrConflict and changes
// nothing.
func (s *Store) MoveCursor(ctx context.Context, platform, name, from, to, gapUntil string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var cur string
		err := tx.QueryRow(ctx, `SELECT value FROM scan_cursors WHERE platform = $1 AND name = $2 FOR UPDATE`, platform, name).Scan(&cur)
		missing := errors.Is(err, pgx.ErrNoRows)
		switch {
		case missing && from == "":
			if _, err := tx.Exec(ctx, `INSERT INTO scan_cursors (platform, name, value) VALUES ($1, $2, $3)`, platform, name, to); err != nil {
				return fmt.Errorf("insert cursor: %w", err)
			}
		case missing:
			return fmt.Errorf("%w: cursor is gone, not at %q", ErrConflict, from)
		case err != nil:
			return fmt.Errorf("read cursor: %w", err)
		case cur != from:
			return fmt.Errorf("%w: cursor at %q, not %q", ErrConflict, cur, from)
		default:
			if _, err := tx.Exec(ctx, `UPDATE scan_cursors SET value = $3, updated_at = now() WHERE platform = $1 AND name = $2`, platform, name, to); err != nil {
				return fmt.Errorf("update cursor: %w", err)
			}
		}
		if gapUntil == "" {
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO scan_gaps (platform, name, since_id, until_id) VALUES ($1, $2, $3, $4)
			ON CONFLICT (platform, name, since_id) DO NOTHING`, platform, name, from, gapUntil); err != nil {
			return fmt.Errorf("insert gap: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: move cursor %s/%s: %w", platform, name, err)
	}
	return nil
}

// NarrowGap records that the posts of gap g from its UntilID down to until
// were read: the gap now ends at until. A gap already narrowed or closed by
// another scan gets ErrConflict.
func (s *Store) NarrowGap(ctx context.Context, g Gap, until string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE scan_gaps SET until_id = $3, updated_at = now() WHERE id = $1 AND until_id = $2`, g.ID, g.UntilID, until)
	if err != nil {
		return fmt.Errorf("store: narrow gap %d: %w", g.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: narrow gap %d: %w", g.ID, ErrConflict)
	}
	return nil
}

// CloseGap forgets gap id, read to its end; a gap already closed is no error.
func (s *Store) CloseGap(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM scan_gaps WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: close gap %d: %w", id, err)
	}
	return nil
}

// DropGap gives gap id up as unreadable and counts it, with the reason, for
// the timeline.
func (s *Store) DropGap(ctx context.Context, platform, name string, id int64, reason string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM scan_gaps WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO scan_skips (platform, name, dropped_gaps, last_reason) VALUES ($1, $2, 1, $3)
			ON CONFLICT (platform, name) DO UPDATE SET dropped_gaps = scan_skips.dropped_gaps + 1,
				last_reason = excluded.last_reason, updated_at = now()`, platform, name, reason)
		if err != nil {
			return fmt.Errorf("count: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: drop gap %d: %w", id, err)
	}
	return nil
}

// CountSkippedReads adds n gap reads a scan of the timeline put off, with
// the reason.
func (s *Store) CountSkippedReads(ctx context.Context, platform, name string, n int, reason string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO scan_skips (platform, name, skipped_reads, last_reason) VALUES ($1, $2, $3, $4)
		ON CONFLICT (platform, name) DO UPDATE SET skipped_reads = scan_skips.skipped_reads + excluded.skipped_reads,
			last_reason = excluded.last_reason, updated_at = now()`, platform, name, n, reason)
	if err != nil {
		return fmt.Errorf("store: count skipped reads %s/%s: %w", platform, name, err)
	}
	return nil
}

// AllScanSkips returns, for every timeline with open gaps or counted skips,
// what its scans left for later or gave up, by platform and name.
func (s *Store) AllScanSkips(ctx context.Context) ([]ScanSkips, error) {
	rows, err := s.pool.Query(ctx, `SELECT platform, name,
			(SELECT count(*) FROM scan_gaps g WHERE g.platform = t.platform AND g.name = t.name)::int AS open_gaps,
			coalesce(k.skipped_reads, 0) AS skipped_reads, coalesce(k.dropped_gaps, 0) AS dropped_gaps,
			coalesce(k.last_reason, '') AS last_reason, coalesce(k.updated_at, now()) AS updated_at
		FROM (SELECT platform, name FROM scan_gaps UNION SELECT platform, name FROM scan_skips) t
		LEFT JOIN scan_skips k USING (platform, name)
		ORDER BY platform, name`)
	if err != nil {
		return nil, fmt.Errorf("store: scan skips: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[ScanSkips])
	if err != nil {
		return nil, fmt.Errorf("store: scan skips: %w", err)
	}
	return out, nil
}
