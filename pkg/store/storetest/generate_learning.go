package storetest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
)

// VocabularySize is how many pseudo-words GenerateLearning's texts are
// made of; Word names them.
const VocabularySize = 3000

// generateCasesSQL makes $1 approved cases (numbered from $3) over a year, their posts twelve
// and their replies eight of VocabularySize pseudo-words (Word), drawn
// skewed so that a few words are common and most rare, as in real posts.
const generateCasesSQL = `
WITH v AS (SELECT array_agg(translate(left(md5(g::text), 8), '0123456789', 'ghijklmnop') ORDER BY g) AS w
	FROM generate_series(1, $2::int) g)
INSERT INTO learning_cases (conversation_key, platform, author_username, mention_text, draft_text, final_text,
	decision, by, created_at, distilled_at)
SELECT 'gen' || i, 'x', 'mortal' || i % 20000,
	(SELECT string_agg(v.w[1 + floor(power(random(), 2) * $2)::int + 0 * k], ' ') FROM generate_series(1, 12) k WHERE i > 0),
	'', (SELECT string_agg(v.w[1 + floor(power(random(), 2) * $2)::int + 0 * k], ' ') FROM generate_series(1, 8) k WHERE i > 0),
	CASE WHEN i % 5 = 0 THEN 'edited' ELSE 'approved' END, CASE WHEN i % 7 = 0 THEN 'autopilot' ELSE 'web' END,
	now() - make_interval(mins => i % 525600), now()
FROM v, generate_series($3::int, $3::int + $1::int - 1) i`

// generateLessonsSQL makes $1 enabled lessons, each from one generated case.
const generateLessonsSQL = `
WITH b AS (SELECT min(id) AS lo, count(*) AS n FROM learning_cases)
INSERT INTO learning_lessons (text, kind, source_case_ids, count, created_at)
SELECT 'Lesson ' || i || ': keep to the point about ' || translate(left(md5(i::text), 8), '0123456789', 'ghijklmnop'),
	CASE WHEN i % 4 = 0 THEN 'rejection' ELSE 'edit' END,
	-- The generated cases' ids run on from the first.
	ARRAY[coalesce(b.lo, 0) + (i * 97) % greatest(b.n, 1)],
	1 + i % 5, now() - make_interval(days => i % 365)
FROM b, generate_series(1, $1::int) i`

// Word is the i-th (from 1) pseudo-word of GenerateLearning's vocabulary.
func Word(i int) string {
	return wordOf(i)
}

// GenerateLearning fills the case memory with cases and lessons, then
// analyzes the tables: the benchmark of retrieval's data.
func GenerateLearning(ctx context.Context, pool *pgxpool.Pool, cases, lessons int) error {
	// In batches: each statement keeps within the pool's statement timeout
	// while the GIN indexes take the rows.
	const batch = 5000
	for from := 1; from <= cases; from += batch {
		if _, err := pool.Exec(ctx, generateCasesSQL, min(batch, cases-from+1), VocabularySize, from); err != nil {
			return fmt.Errorf("storetest: generate cases: %w", err)
		}
	}
	if _, err := pool.Exec(ctx, generateLessonsSQL, lessons); err != nil {
		return fmt.Errorf("storetest: generate lessons: %w", err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE learning_cases, learning_lessons`); err != nil {
		return fmt.Errorf("storetest: analyze: %w", err)
	}
	return nil
}

// wordOf is PostgreSQL's translate(left(md5(i), 8), digits, 'g'..'p') in Go.
func wordOf(i int) string {
	sum := md5.Sum([]byte(strconv.Itoa(i)))
	h := hex.EncodeToString(sum[:])[:8]
	out := []byte(h)
	for k, c := range out {
		if c >= '0' && c <= '9' {
			out[k] = 'g' + (c - '0')
		}
	}
	return string(out)
}
