package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/learning"
)

// lessonColumns are a learning_lessons row as lessonRow reads it.
const lessonColumns = `id, text, kind, source_case_ids, count, enabled, used_count, created_at, last_used_at`

type lessonRow struct {
	ID            int64      `db:"id"`
	Text          string     `db:"text"`
	Kind          string     `db:"kind"`
	SourceCaseIDs []int64    `db:"source_case_ids"`
	Count         int        `db:"count"`
	Enabled       bool       `db:"enabled"`
	UsedCount     int        `db:"used_count"`
	CreatedAt     time.Time  `db:"created_at"`
	LastUsedAt    *time.Time `db:"last_used_at"`
}

func (r lessonRow) lesson() learning.Lesson {
	return learning.Lesson{
		ID: r.ID, Text: r.Text, Kind: learning.LessonKind(r.Kind), SourceCaseIDs: r.SourceCaseIDs, Count: r.Count,
		Enabled: r.Enabled, UsedCount: r.UsedCount, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt,
	}
}

func queryLessons(ctx context.Context, q querier, sql string, args ...any) ([]learning.Lesson, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[lessonRow])
	if err != nil {
		return nil, err
	}
	out := make([]learning.Lesson, len(rs))
	for i, r := range rs {
		out[i] = r.lesson()
	}
	return out, nil
}

func queryLesson(ctx context.Context, q querier, what string, sql string, args ...any) (learning.Lesson, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return learning.Lesson{}, fmt.Errorf("store: %s: %w", what, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[lessonRow])
	if err != nil {
		return learning.Lesson{}, notFound(err, what)
	}
	return r.lesson(), nil
}

// Lessons returns every lesson, the most confirmed first (count, then newest).
func (s *Store) Lessons(ctx context.Context) ([]learning.Lesson, error) {
	out, err := queryLessons(ctx, s.pool, `SELECT `+lessonColumns+` FROM learning_lessons ORDER BY count DESC, created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: lessons: %w", err)
	}
	return out, nil
}

// EnabledLessons returns the lessons that may go into a prompt.
func (s *Store) EnabledLessons(ctx context.Context) ([]learning.Lesson, error) {
	out, err := queryLessons(ctx, s.pool, `SELECT `+lessonColumns+` FROM learning_lessons WHERE enabled ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: enabled lessons: %w", err)
	}
	return out, nil
}

// LessonsVersion returns the number learning_lessons_version's trigger
// moves on with every change to the lessons a prompt may take (not with a
// use counted): while it stays, EnabledLessons returns the same lessons.
func (s *Store) LessonsVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.pool.QueryRow(ctx, `SELECT version FROM learning_lessons_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: lessons version: %w", err)
	}
	return v, nil
}

// LessonsByID returns the lessons of ids still stored, in the order of ids.
func (s *Store) LessonsByID(ctx context.Context, ids []int64) ([]learning.Lesson, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := queryLessons(ctx, s.pool, `SELECT l.id, l.text, l.kind, l.source_case_ids, l.count, l.enabled, l.used_count, l.created_at, l.last_used_at
		FROM learning_lessons l JOIN unnest($1::bigint[]) WITH ORDINALITY AS w(id, n) ON w.id = l.id ORDER BY w.n`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: lessons by id: %w", err)
	}
	return out, nil
}

// LessonDuplicate is the trigram similarity (of the lower-cased texts)
// from which a new lesson is a near-duplicate of a stored one.
const LessonDuplicate = 0.6

// lessonLock serialises the lessons' additions, so that two near-duplicates
// added at once are counted on one lesson.
const lessonLock = 0x1e550

// AddLesson stores text (checked by learning.CheckLesson) as a lesson of
// kind, distilled from case source (0 for none); a near-duplicate of a
// stored lesson (LessonDuplicate) raises that one's count, and takes the
// source, instead. It returns the lesson and whether it is new.
func (s *Store) AddLesson(ctx context.Context, text string, kind learning.LessonKind, source int64) (learning.Lesson, bool, error) {
	var out learning.Lesson
	created := false
	sources := []int64{}
	if source > 0 {
		sources = []int64{source}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lessonLock); err != nil {
			return err
		}
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM learning_lessons WHERE lower(text) % lower($1) AND similarity(lower(text), lower($1)) >= $2
			ORDER BY similarity(lower(text), lower($1)) DESC, id LIMIT 1`, text, LessonDuplicate).Scan(&id)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			created = true
			out, err = queryLesson(ctx, tx, "add lesson", `INSERT INTO learning_lessons (text, kind, source_case_ids)
				VALUES ($1, $2, $3) RETURNING `+lessonColumns, text, kind, sources)
			return err
		case err != nil:
			return err
		}
		out, err = queryLesson(ctx, tx, "add lesson", `UPDATE learning_lessons SET count = count + 1, updated_at = now(),
			source_case_ids = CASE WHEN $2 = 0 OR $2 = ANY(source_case_ids) THEN source_case_ids ELSE source_case_ids || $2 END
			WHERE id = $1 RETURNING `+lessonColumns, id, source)
		return err
	})
	if err != nil {
		return learning.Lesson{}, false, fmt.Errorf("store: add lesson: %w", err)
	}
	return out, created, nil
}

// UpdateLesson changes lesson id's text (checked) and enabled flag where
// not nil; an unknown id is ErrNotFound.
func (s *Store) UpdateLesson(ctx context.Context, id int64, text *string, enabled *bool) (learning.Lesson, error) {
	return queryLesson(ctx, s.pool, fmt.Sprintf("update lesson %d", id), `UPDATE learning_lessons
		SET text = coalesce($2, text), enabled = coalesce($3, enabled), updated_at = now()
		WHERE id = $1 RETURNING `+lessonColumns, id, text, enabled)
}

// Lesson returns lesson id; an unknown id is ErrNotFound.
func (s *Store) Lesson(ctx context.Context, id int64) (learning.Lesson, error) {
	return queryLesson(ctx, s.pool, fmt.Sprintf("lesson %d", id), `SELECT `+lessonColumns+` FROM learning_lessons WHERE id = $1`, id)
}

// DeleteLesson removes lesson id; an unknown id is ErrNotFound.
func (s *Store) DeleteLesson(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM learning_lessons WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: delete lesson %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: delete lesson %d: %w", id, ErrNotFound)
	}
	return nil
}
