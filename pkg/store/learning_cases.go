package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/learning"
	"infernal/pkg/post"
)

// caseColumns are a learning_cases row as caseRow reads it; engagement is
// the post's reply at 24 hours (the day's snapshot, copied onto the post).
const caseColumns = `c.id, coalesce(c.post_id, 0) AS post_id, c.conversation_key, c.platform, c.language,
	c.author_username, c.author_id, c.mention_text, c.thread_digest, c.draft_text, c.final_text, c.decision, c.by,
	c.reason, c.review_score, c.persona_version, c.used_count, c.last_used_at, c.created_at,
	CASE WHEN p.likes_24h IS NULL THEN NULL ELSE p.likes_24h + coalesce(p.retweets_24h, 0) + coalesce(p.replies_24h, 0) END AS engagement`

// caseFrom joins a case to its post for the engagement.
const caseFrom = ` FROM learning_cases c LEFT JOIN posts p ON p.id = c.post_id`

type caseRow struct {
	ID              int64      `db:"id"`
	PostID          int64      `db:"post_id"`
	ConversationKey string     `db:"conversation_key"`
	Platform        string     `db:"platform"`
	Language        string     `db:"language"`
	Author          string     `db:"author_username"`
	AuthorID        string     `db:"author_id"`
	Mention         string     `db:"mention_text"`
	Digest          string     `db:"thread_digest"`
	Draft           string     `db:"draft_text"`
	Final           string     `db:"final_text"`
	Decision        string     `db:"decision"`
	By              string     `db:"by"`
	Reason          string     `db:"reason"`
	ReviewScore     *int       `db:"review_score"`
	PersonaVersion  *int       `db:"persona_version"`
	UsedCount       int        `db:"used_count"`
	LastUsedAt      *time.Time `db:"last_used_at"`
	CreatedAt       time.Time  `db:"created_at"`
	Engagement      *int       `db:"engagement"`
}

func (r caseRow) learningCase() learning.Case {
	return learning.Case{
		ID: r.ID, PostID: r.PostID, ConversationKey: r.ConversationKey, Platform: r.Platform, Language: r.Language,
		Author: r.Author, AuthorID: r.AuthorID, Mention: r.Mention, Digest: r.Digest, Draft: r.Draft, Final: r.Final,
		Decision: learning.Decision(r.Decision), By: r.By, Reason: r.Reason, ReviewScore: r.ReviewScore,
		PersonaVersion: r.PersonaVersion, Engagement: r.Engagement, UsedCount: r.UsedCount, LastUsedAt: r.LastUsedAt,
		CreatedAt: r.CreatedAt,
	}
}

func collectCases(rows pgx.Rows) ([]learning.Case, error) {
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[caseRow])
	if err != nil {
		return nil, err
	}
	out := make([]learning.Case, len(rs))
	for i, r := range rs {
		out[i] = r.learningCase()
	}
	return out, nil
}

// recordCaseSQL keeps a decision on post $1 as its case, inside the
// decision's transaction, after the post's row is updated: the draft is
// the writer's last text before any edit of the administrator's, the final
// text $2; the post's language as its platform gave it; the thread's
// digest the post it answers; the decision is $3 (rejected), or approved
// or edited as the final text equals the draft or not. A profile post has
// no mortal's post: no case. A later decision on the post (after an
// auto-approval was cancelled) replaces the case, which is then distilled
// again.
const recordCaseSQL = `
	INSERT INTO learning_cases (post_id, conversation_key, platform, language, author_username, author_id, mention_text,
		thread_digest, draft_text, final_text, decision, by, review_score, persona_version)
	SELECT p.id, coalesce(nullif(p.conversation_id, ''), p.original_post_id, p.id::text), p.platform, p.language,
		lower(ltrim(p.author_username, '@')), p.author_id, p.original_post_text,
		-- The thread's digest: the post it answers, as the context keeps it, cut short.
		coalesce((SELECT left(cp.text, 280) FROM context_posts cp
			WHERE cp.platform = p.platform AND cp.platform_post_id = p.in_reply_to_id AND p.in_reply_to_id <> ''), ''),
		d.text, $2,
		CASE WHEN $3 = 'rejected' THEN 'rejected' WHEN d.text = $2 THEN 'approved' ELSE 'edited' END,
		$4, p.review_score, p.persona_version
	FROM posts p
	CROSS JOIN LATERAL (SELECT coalesce((SELECT v.text FROM post_versions v WHERE v.post_id = p.id AND v.origin <> 'admin'
		ORDER BY v.id DESC LIMIT 1), p.proposed_response) AS text) d
	WHERE p.id = $1 AND p.source <> 'profile' AND p.original_post_text <> ''
	ON CONFLICT (post_id) WHERE post_id IS NOT NULL DO UPDATE SET
		draft_text = excluded.draft_text, final_text = excluded.final_text, decision = excluded.decision,
		by = excluded.by, reason = '', review_score = excluded.review_score, persona_version = excluded.persona_version,
		distilled_at = NULL, created_at = now()`

// recordCase keeps the decision on post id (final: the text approved or
// the draft rejected) in the case memory, through tx.
func recordCase(ctx context.Context, tx pgx.Tx, id int64, final string, rejected bool, by post.Channel) error {
	decision := "approved"
	if rejected {
		decision = string(learning.DecisionRejected)
	}
	if by == "" {
		by = post.ByWeb
	}
	if _, err := tx.Exec(ctx, recordCaseSQL, id, final, decision, by); err != nil {
		return fmt.Errorf("store: case of post %d: %w", id, err)
	}
	return nil
}

// dropCase takes post id's case out of the memory, through q: its
// decision was withdrawn (an auto-approval cancelled).
func dropCase(ctx context.Context, q execer, id int64) error {
	if _, err := q.Exec(ctx, `DELETE FROM learning_cases WHERE post_id = $1`, id); err != nil {
		return fmt.Errorf("store: drop case of post %d: %w", id, err)
	}
	return nil
}

// SetCaseReason keeps reason (checked by learning.CheckReason) as the
// reason of post id's rejection, and marks its case to be distilled again;
// a post without a rejected case (a profile post, one approved) keeps none.
func (s *Store) SetCaseReason(ctx context.Context, id int64, reason string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE learning_cases SET reason = $2, distilled_at = NULL
		WHERE post_id = $1 AND decision = 'rejected'`, id, reason); err != nil {
		return fmt.Errorf("store: reason of post %d: %w", id, err)
	}
	return nil
}

// CasesPageSize is how many cases a page of Cases holds.
const CasesPageSize = 20

// Cases returns page (from 1) of the case memory, newest first, and how
// many cases match: every case, or with q those whose post, draft or
// final text match it (text search on the post, or a substring of any).
func (s *Store) Cases(ctx context.Context, q string, page int) ([]learning.Case, int, error) {
	q = strings.TrimSpace(q)
	where := ` WHERE $1 = '' OR c.search @@ websearch_to_tsquery('english', $1)
		OR strpos(lower(c.mention_text), lower($1)) > 0 OR strpos(lower(c.final_text), lower($1)) > 0
		OR strpos(lower(c.draft_text), lower($1)) > 0`
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*)`+caseFrom+where, q).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count cases: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+caseColumns+caseFrom+where+` ORDER BY c.created_at DESC, c.id DESC LIMIT $2 OFFSET $3`,
		q, CasesPageSize, (max(page, 1)-1)*CasesPageSize)
	if err != nil {
		return nil, 0, fmt.Errorf("store: cases: %w", err)
	}
	out, err := collectCases(rows)
	if err != nil {
		return nil, 0, fmt.Errorf("store: cases: %w", err)
	}
	return out, total, nil
}

// CasesByID returns the cases of ids still in the memory, in the order of ids.
func (s *Store) CasesByID(ctx context.Context, ids []int64) ([]learning.Case, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+caseColumns+caseFrom+`
		JOIN unnest($1::bigint[]) WITH ORDINALITY AS w(id, n) ON w.id = c.id ORDER BY w.n`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: cases by id: %w", err)
	}
	out, err := collectCases(rows)
	if err != nil {
		return nil, fmt.Errorf("store: cases by id: %w", err)
	}
	return out, nil
}

// DeleteCase takes case id out of the memory (the post and its history
// stay); an unknown id is ErrNotFound.
func (s *Store) DeleteCase(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM learning_cases WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: delete case %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: delete case %d: %w", id, ErrNotFound)
	}
	return nil
}

// purgeAuthorCasesSQL deletes the cases, on the platforms of account
// syntax $3 ($1 and $2 as accountSyntaxes gives them), of an author by
// handle ($4, lower-case, without @) or stable id ($5, "" for none).
var purgeAuthorCasesSQL = `DELETE FROM learning_cases WHERE platform IN ` + fmt.Sprintf(syntaxPlatformsSQL, "$3") + `
	AND (lower(author_username) = $4 OR ($5 <> '' AND author_id = $5))`

// PurgeAuthorCases deletes every case of the author on platform (and the
// other platforms of its account syntax) known by username (lower-case,
// without @) or authorID ("" when unknown): the author opted out or is
// blocked, and is never an example again. It returns how many were
// deleted.
func (s *Store) PurgeAuthorCases(ctx context.Context, platform, username, authorID string) (int64, error) {
	platforms, syntaxes := accountSyntaxes()
	tag, err := s.pool.Exec(ctx, purgeAuthorCasesSQL, platforms, syntaxes, syntaxOf(platform), strings.ToLower(strings.TrimPrefix(username, "@")), authorID)
	if err != nil {
		return 0, fmt.Errorf("store: purge cases of %s: %w", username, err)
	}
	return tag.RowsAffected(), nil
}

// ImportedCase is one past reply an operator imports.
type ImportedCase struct {
	Platform string
	// Language is the mention's language (post.ParseLanguage's form), ""
	// when the line named none.
	Language string
	Mention  string
	Reply    string
}

// ImportCases stores cases as approved cases of channel learning.ByImport
// (already checked), each its own conversation, in one statement, and
// returns how many were stored.
func (s *Store) ImportCases(ctx context.Context, cases []ImportedCase) (int64, error) {
	if len(cases) == 0 {
		return 0, nil
	}
	platforms := make([]string, len(cases))
	languages := make([]string, len(cases))
	mentions := make([]string, len(cases))
	replies := make([]string, len(cases))
	for i, c := range cases {
		platforms[i], languages[i], mentions[i], replies[i] = c.Platform, c.Language, c.Mention, c.Reply
	}
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO learning_cases (conversation_key, platform, language, mention_text, final_text, decision, by, distilled_at)
		SELECT 'import:' || gen_random_uuid(), t.platform, t.language, t.mention, t.reply, 'approved', $4, now()
		FROM unnest($1::text[], $2::text[], $3::text[], $5::text[]) WITH ORDINALITY AS t(platform, mention, reply, language, n) ORDER BY t.n`,
		platforms, mentions, replies, learning.ByImport, languages)
	if err != nil {
		return 0, fmt.Errorf("store: import cases: %w", err)
	}
	return tag.RowsAffected(), nil
}

// CandidateLimit is the most candidates one retrieval reads.
const CandidateLimit = 40

// caseCandidatesSQL reads the cases (rejected ones too: their lessons
// are ranked by them) whose post holds one of the lexemes of $1 (the
// query's terms), with their text-search rank and the trigram similarity
// of their post to $2 (the normalised query); at most $3. A lexeme that
// PostgreSQL's statistics of learning_cases.search ($6 and $7, the
// commonest lexemes and their rows; see lexemeStats) find in more than $4
// cases is left out: as common as a stop word, it tells no post
// apart. The candidates are read in two bounded steps, so that no draft
// ranks (and reads from the heap) the thousands of cases sharing one
// term with it: first the cases holding two of the terms or more (the
// GIN index alone finds them; ts_rank orders them, the best first), then,
// while fewer than $3, the newest of those holding one (all of which rank
// alike: ts_rank of one term found once), read backwards along the
// primary key among the newest $5 cases until enough are found. Every
// rank is ts_rank against all the terms, as before.
const caseCandidatesSQL = `
	WITH lexemes AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme),
	common AS (SELECT f.lexeme FROM unnest($6::text[], $7::float8[]) AS f(lexeme, rows) WHERE f.rows > $4),
	kept AS MATERIALIZED (SELECT lexeme FROM lexemes WHERE lexeme NOT IN (SELECT lexeme FROM common WHERE lexeme IS NOT NULL)),
	q AS MATERIALIZED (
		SELECT (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) FROM kept) AS any,
			(SELECT to_tsquery('simple', string_agg('(' || quote_literal(a.lexeme) || ' & ' || quote_literal(b.lexeme) || ')', ' | '))
				FROM kept a JOIN kept b ON a.lexeme < b.lexeme) AS two),
	several AS (
		SELECT c.id, ts_rank(c.search, q.any, 32) AS rank FROM learning_cases c, q
		WHERE q.two IS NOT NULL AND c.search @@ q.two
		ORDER BY rank DESC, c.id DESC LIMIT $3),
	one AS (
		SELECT c.id, ts_rank(c.search, q.any, 32) AS rank FROM learning_cases c, q
		WHERE q.any IS NOT NULL AND (SELECT count(*) FROM several) < $3
			AND c.id > (SELECT max(id) FROM learning_cases) - $5
			AND c.search @@ q.any AND c.id NOT IN (SELECT id FROM several)
		ORDER BY c.id DESC LIMIT $3),
	lexical AS (
		(SELECT id, rank, 0 AS tier FROM several UNION ALL SELECT id, rank, 1 FROM one)
		ORDER BY tier, rank DESC, id DESC LIMIT $3)
	SELECT ` + caseColumns + `, similarity(c.mention_text, $2)::float8 AS trigram, l.rank::float8 AS rank` +
	caseFrom + ` JOIN lexical l ON l.id = c.id`

// RecentCaseRows is how far back (in cases, newest first) the candidates
// holding one term only are looked for (see caseCandidatesSQL): a bound
// on the rows one draft reads, whatever its terms.
const RecentCaseRows = 3000

// CommonLexemeRows is how many cases a query term may be found in and
// still choose candidates (see caseCandidatesSQL).
const CommonLexemeRows = 500

type candidateRow struct {
	caseRow
	Trigram float64 `db:"trigram"`
	Rank    float64 `db:"rank"`
}

// CaseCandidates returns the cases like a post (rejected ones too):
// those whose post holds one of terms not too common (text search), at
// most CandidateLimit, each with its rank and its trigram similarity to
// normalized.
func (s *Store) CaseCandidates(ctx context.Context, terms []string, normalized string) ([]learning.Candidate, error) {
	if len(terms) == 0 && normalized == "" {
		return nil, nil
	}
	stats, err := s.lexemeStats(ctx, "learning_cases", "search")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, caseCandidatesSQL, strings.Join(terms, " "), normalized, CandidateLimit, CommonLexemeRows,
		RecentCaseRows, stats.lexemes, stats.rows)
	if err != nil {
		return nil, fmt.Errorf("store: case candidates: %w", err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[candidateRow])
	if err != nil {
		return nil, fmt.Errorf("store: case candidates: %w", err)
	}
	out := make([]learning.Candidate, len(rs))
	for i, r := range rs {
		out[i] = learning.Candidate{Case: r.learningCase(), Trigram: r.Trigram, Rank: r.Rank}
	}
	return out, nil
}

// MarkLearnedUsed counts one more use of the cases and lessons of ids,
// used in a prompt now.
func (s *Store) MarkLearnedUsed(ctx context.Context, l post.LearnedFrom) error {
	if len(l.Cases) == 0 && len(l.Lessons) == 0 {
		return nil
	}
	var b pgx.Batch
	b.Queue(`UPDATE learning_cases SET used_count = used_count + 1, last_used_at = now() WHERE id = ANY($1)`, nonNilIDs(l.Cases))
	b.Queue(`UPDATE learning_lessons SET used_count = used_count + 1, last_used_at = now() WHERE id = ANY($1)`, nonNilIDs(l.Lessons))
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("store: mark learned used: %w", err)
	}
	return nil
}

// CasesToDistill returns at most limit cases waiting for their lesson:
// edited ones and rejections with a reason, oldest first.
func (s *Store) CasesToDistill(ctx context.Context, limit int) ([]learning.Case, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+caseColumns+caseFrom+`
		WHERE c.distilled_at IS NULL AND (c.decision = 'edited' OR (c.decision = 'rejected' AND c.reason <> ''))
		ORDER BY c.id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: cases to distil: %w", err)
	}
	out, err := collectCases(rows)
	if err != nil {
		return nil, fmt.Errorf("store: cases to distil: %w", err)
	}
	return out, nil
}

// MarkDistilled marks case id's lesson distilled (or found to be none).
func (s *Store) MarkDistilled(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE learning_cases SET distilled_at = now() WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: mark case %d distilled: %w", id, err)
	}
	return nil
}

// purgeBlockedCasesSQL deletes the cases of every blocked author, by
// handle or by stable id, on the platforms of the entry's account syntax
// ($1 and $2 as accountSyntaxes gives them).
var purgeBlockedCasesSQL = `DELETE FROM learning_cases c USING blocked_authors b
	WHERE c.platform IN ` + fmt.Sprintf(syntaxPlatformsSQL, "b.account_syntax") + `
		AND (lower(c.author_username) = lower(b.username) OR (b.author_id IS NOT NULL AND c.author_id = b.author_id))`

// nonNilIDs returns ids, or an empty list for nil, which pgx would store as NULL.
func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
