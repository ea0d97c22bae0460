package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/settings"
)

// Pause is a stop of scanning and sending: on one platform, after a refusal
// that concerns its whole account (402, usage cap, suspension), or on every
// platform, when the operator pauses.
type Pause struct {
	// Platform names the platform paused; "" pauses every platform.
	Platform string
	// Refusal names the refusal (platform.Refusal) that paused the account,
	// OperatorRefusal for the operator's pause.
	Refusal string
	// Reason says why, in words for the administrator.
	Reason string
	// Since is when the pause began.
	Since time.Time
	// Until is when it lifts by itself; nil when only the admin lifts it.
	Until *time.Time
}

// OperatorRefusal is the Refusal of a pause the operator set, from the
// admin or from Telegram (platform.Refusal's counterpart for a person).
const OperatorRefusal = "operator"

// SetPause pauses scanning and sending on p.Platform (every platform when
// ""); a pause of it already in force keeps its start and takes the newer
// reason and end.
func (s *Store) SetPause(ctx context.Context, p Pause) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO ops_pause (platform, refusal, reason, until) VALUES ($1, $2, $3, $4)
		ON CONFLICT (platform) DO UPDATE SET refusal = excluded.refusal, reason = excluded.reason, until = excluded.until,
			since = CASE WHEN ops_pause.until <= excluded.since THEN excluded.since ELSE ops_pause.since END`,
		p.Platform, p.Refusal, p.Reason, p.Until)
	if err != nil {
		return fmt.Errorf("store: set pause: %w", err)
	}
	return nil
}

// ActivePause returns the pause that stops platform at now, nil when none:
// its own or the every-platform one, whichever lasts longer. Pauses whose
// Until has passed are lifted on the way.
func (s *Store) ActivePause(ctx context.Context, platform string, now time.Time) (*Pause, error) {
	p, err := scanPause(s.pool.QueryRow(ctx, activePauseSQL, now, platform))
	if err != nil {
		return nil, fmt.Errorf("store: pause: %w", err)
	}
	return p, nil
}

// activePauseSQL reads the pause of platform $2 in force at $1 in one round
// trip (every send asks): the expired pauses are deleted, and the select,
// which sees the table as it was before the delete, leaves them out.
const activePauseSQL = `
	WITH lifted AS (DELETE FROM ops_pause WHERE until IS NOT NULL AND until <= $1)
	SELECT platform, refusal, reason, since, until FROM ops_pause
	WHERE (until IS NULL OR until > $1) AND platform IN ('', $2)
	ORDER BY until DESC NULLS FIRST, platform LIMIT 1`

// ActivePauses lists every pause in force at now, the every-platform one
// first, then by platform; pauses whose Until has passed are lifted on the way.
func (s *Store) ActivePauses(ctx context.Context, now time.Time) ([]Pause, error) {
	rows, err := s.pool.Query(ctx, `
		WITH lifted AS (DELETE FROM ops_pause WHERE until IS NOT NULL AND until <= $1)
		SELECT platform, refusal, reason, since, until FROM ops_pause
		WHERE until IS NULL OR until > $1 ORDER BY platform`, now)
	if err != nil {
		return nil, fmt.Errorf("store: pauses: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Pause, error) {
		var p Pause
		err := row.Scan(&p.Platform, &p.Refusal, &p.Reason, &p.Since, &p.Until)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pauses: %w", err)
	}
	return out, nil
}

// scanPause reads a row of activePauseSQL; nil when there is none.
func scanPause(row pgx.Row) (*Pause, error) {
	var p Pause
	err := row.Scan(&p.Platform, &p.Refusal, &p.Reason, &p.Since, &p.Until)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// PauseWithSettings is ActivePause and CachedSettings in one round trip:
// what a send on platform asks before it starts. A nil c reads the
// settings every time.
func (s *Store) PauseWithSettings(ctx context.Context, platform string, now time.Time, c *SettingsCache) (*Pause, settings.Settings, error) {
	var b pgx.Batch
	var pause *Pause
	var version int64
	b.Queue(activePauseSQL, now, platform).QueryRow(func(row pgx.Row) error {
		var err error
		pause, err = scanPause(row)
		return err
	})
	b.Queue(settingsVersionSQL).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, settings.Settings{}, fmt.Errorf("store: pause and settings version: %w", err)
	}
	set, err := s.settingsAt(ctx, c, version)
	if err != nil {
		return nil, settings.Settings{}, err
	}
	return pause, set, nil
}

// Resume lifts every pause of scanning and sending, of one platform or of
// all; lifted reports whether one was in force. Timeline pauses lapse by
// themselves.
func (s *Store) Resume(ctx context.Context) (lifted bool, err error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ops_pause`)
	if err != nil {
		return false, fmt.Errorf("store: resume: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// TimelinePause stops the scans of one timeline, in every worker, until it
// lapses: the account-wide pause's counterpart for a refusal that concerns one
// request's shape (a 400 the platform answers every time).
type TimelinePause struct {
	// Platform names the platform whose timeline is paused.
	Platform string
	// Timeline names the timeline (the scan's cursor: "mentions", "search"…).
	Timeline string
	// Reason says why, in words for the administrator.
	Reason string
	// Since is when the pause began.
	Since time.Time
	// Until is when it lapses.
	Until time.Time
}

// PauseTimeline pauses the scans of p.Platform's p.Timeline from p.Since
// for d (p.Until is set from them), unless a pause of it is already in
// force then, which is kept as it is. began tells whether this call began
// the pause (so that one worker logs it).
func (s *Store) PauseTimeline(ctx context.Context, p TimelinePause, d time.Duration) (began bool, err error) {
	err = s.pool.QueryRow(ctx, `
		INSERT INTO timeline_pauses (platform, timeline, reason, since, until) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (platform, timeline) DO UPDATE SET reason = excluded.reason, since = excluded.since, until = excluded.until
		WHERE timeline_pauses.until <= excluded.since
		RETURNING true`,
		p.Platform, p.Timeline, p.Reason, p.Since, p.Since.Add(d)).Scan(&began)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: pause timeline %s %s: %w", p.Platform, p.Timeline, err)
	}
	return began, nil
}

// TimelinePaused reports whether the scans of platform's timeline are
// paused at now.
func (s *Store) TimelinePaused(ctx context.Context, platform, timeline string, now time.Time) (bool, error) {
	p, err := scanTimelinePause(s.pool.QueryRow(ctx, timelinePauseSQL, now, platform, timeline))
	if err != nil {
		return false, fmt.Errorf("store: timeline pause %s %s: %w", platform, timeline, err)
	}
	return p != nil, nil
}

// timelinePauseSQL reads the pause of platform $2's timeline $3 in force at
// $1; the lapsed timeline pauses are deleted on the way, as activePauseSQL's.
const timelinePauseSQL = `
	WITH lapsed AS (DELETE FROM timeline_pauses WHERE until <= $1)
	SELECT platform, timeline, reason, since, until FROM timeline_pauses
	WHERE platform = $2 AND timeline = $3 AND until > $1`

// scanTimelinePause reads a row of timelinePauseSQL; nil when there is none.
func scanTimelinePause(row pgx.Row) (*TimelinePause, error) {
	var p TimelinePause
	err := row.Scan(&p.Platform, &p.Timeline, &p.Reason, &p.Since, &p.Until)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// ScanPauses is ActivePause and the pause of the timeline in one round
// trip: what a scan of platform's timeline asks before it reads. Either is
// nil when not in force at now.
func (s *Store) ScanPauses(ctx context.Context, platform, timeline string, now time.Time) (*Pause, *TimelinePause, error) {
	var b pgx.Batch
	var account *Pause
	var tl *TimelinePause
	b.Queue(activePauseSQL, now, platform).QueryRow(func(row pgx.Row) error {
		var err error
		account, err = scanPause(row)
		return err
	})
	b.Queue(timelinePauseSQL, now, platform, timeline).QueryRow(func(row pgx.Row) error {
		var err error
		tl, err = scanTimelinePause(row)
		return err
	})
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, nil, fmt.Errorf("store: pauses of %s %s: %w", platform, timeline, err)
	}
	return account, tl, nil
}

// TimelinePauses lists the timeline pauses in force at now, by platform and
// timeline; the lapsed ones are deleted on the way.
func (s *Store) TimelinePauses(ctx context.Context, now time.Time) ([]TimelinePause, error) {
	rows, err := s.pool.Query(ctx, `
		WITH lapsed AS (DELETE FROM timeline_pauses WHERE until <= $1)
		SELECT platform, timeline, reason, since, until FROM timeline_pauses
		WHERE until > $1 ORDER BY platform, timeline`, now)
	if err != nil {
		return nil, fmt.Errorf("store: timeline pauses: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (TimelinePause, error) {
		var p TimelinePause
		err := row.Scan(&p.Platform, &p.Timeline, &p.Reason, &p.Since, &p.Until)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: timeline pauses: %w", err)
	}
	return out, nil
}
