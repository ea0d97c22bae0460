package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/knowledge"
)

// documentColumns are a knowledge document's columns, with its chunk count.
const documentColumns = `d.id, d.title, d.bytes, d.enabled, d.created_at,
	(SELECT count(*) FROM knowledge_chunks c WHERE c.document_id = d.id)::int AS chunks`

type documentRow struct {
	ID        int64     `db:"id"`
	Title     string    `db:"title"`
	Bytes     int       `db:"bytes"`
	Enabled   bool      `db:"enabled"`
	CreatedAt time.Time `db:"created_at"`
	Chunks    int       `db:"chunks"`
}

func (r documentRow) document() knowledge.Document {
	return knowledge.Document{ID: r.ID, Title: r.Title, Bytes: r.Bytes, Chunks: r.Chunks, Enabled: r.Enabled, CreatedAt: r.CreatedAt}
}

// AddDocument stores a document of bytes bytes and its pieces in one
// transaction: all of it or nothing. Past knowledge.MaxDocuments it is
// knowledge.ErrTooMany; two uploads at once are counted one after the other.
func (s *Store) AddDocument(ctx context.Context, title string, bytes int, pieces []knowledge.Piece) (knowledge.Document, error) {
	var out knowledge.Document
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = addDocument(ctx, tx, title, bytes, pieces)
		return err
	})
	return out, err
}

// addDocument is AddDocument within tx.
func addDocument(ctx context.Context, tx pgx.Tx, title string, bytes int, pieces []knowledge.Piece) (knowledge.Document, error) {
	// One upload counts at a time, so two never pass the limit together.
	if _, err := tx.Exec(ctx, `LOCK TABLE knowledge_documents IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return knowledge.Document{}, fmt.Errorf("store: add document: %w", err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM knowledge_documents`).Scan(&n); err != nil {
		return knowledge.Document{}, fmt.Errorf("store: add document: %w", err)
	}
	if n >= knowledge.MaxDocuments {
		return knowledge.Document{}, fmt.Errorf("store: add document: %w", knowledge.ErrTooMany)
	}
	d := knowledge.Document{Title: title, Bytes: bytes, Chunks: len(pieces), Enabled: true}
	if err := tx.QueryRow(ctx, `INSERT INTO knowledge_documents (title, bytes) VALUES ($1, $2) RETURNING id, created_at`,
		title, bytes).Scan(&d.ID, &d.CreatedAt); err != nil {
		return knowledge.Document{}, fmt.Errorf("store: add document: %w", err)
	}
	headings := make([]string, len(pieces))
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		headings[i], texts[i] = p.Heading, p.Text
	}
	if _, err := tx.Exec(ctx, `INSERT INTO knowledge_chunks (document_id, position, heading, text)
		SELECT $1, t.n - 1, t.heading, t.text FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(heading, text, n)`,
		d.ID, headings, texts); err != nil {
		return knowledge.Document{}, fmt.Errorf("store: add document chunks: %w", err)
	}
	if err := countLexemes(ctx, tx, d.ID, 1); err != nil {
		return knowledge.Document{}, err
	}
	// The GIN indexes take an upload's thousand chunks into their pending
	// lists; moved into the indexes now, in bulk, no draft's retrieval
	// scans them one by one until the next vacuum.
	if _, err := tx.Exec(ctx, cleanPendingSQL); err != nil {
		return knowledge.Document{}, fmt.Errorf("store: add document index: %w", err)
	}
	return d, nil
}

// cleanPendingSQL moves the chunks' index entries out of the GIN pending lists.
const cleanPendingSQL = `SELECT gin_clean_pending_list('knowledge_chunks_search_idx'::regclass),
	gin_clean_pending_list('knowledge_chunks_trgm_idx'::regclass)`

// SeedKnowledge stores the sample document once, on a database that never
// had it: deleted, it stays deleted. It reports whether it stored it.
func (s *Store) SeedKnowledge(ctx context.Context, title string, bytes int, pieces []knowledge.Piece) (bool, error) {
	seeded := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO knowledge_seeded (id) VALUES (true) ON CONFLICT DO NOTHING`)
		if err != nil {
			return fmt.Errorf("store: seed knowledge: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		if _, err := addDocument(ctx, tx, title, bytes, pieces); err != nil {
			return err
		}
		seeded = true
		return nil
	})
	return seeded, err
}

// Documents returns every knowledge document, the newest first.
func (s *Store) Documents(ctx context.Context) ([]knowledge.Document, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+documentColumns+` FROM knowledge_documents d ORDER BY d.created_at DESC, d.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[documentRow])
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	out := make([]knowledge.Document, len(rs))
	for i, r := range rs {
		out[i] = r.document()
	}
	return out, nil
}

// SetDocumentEnabled enables or disables document id; an unknown id is ErrNotFound.
func (s *Store) SetDocumentEnabled(ctx context.Context, id int64, enabled bool) (knowledge.Document, error) {
	var out knowledge.Document
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// Locked first: two changes at once count the lexemes once.
		var was bool
		if err := tx.QueryRow(ctx, `SELECT enabled FROM knowledge_documents WHERE id = $1 FOR UPDATE`, id).Scan(&was); err != nil {
			return notFound(err, fmt.Sprintf("enable document %d", id))
		}
		if was != enabled {
			sign := -1
			if enabled {
				sign = 1
			}
			if err := countLexemes(ctx, tx, id, sign); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `UPDATE knowledge_documents d SET enabled = $2 WHERE d.id = $1 RETURNING `+documentColumns, id, enabled)
		if err != nil {
			return fmt.Errorf("store: enable document %d: %w", id, err)
		}
		r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[documentRow])
		if err != nil {
			return notFound(err, fmt.Sprintf("enable document %d", id))
		}
		out = r.document()
		return nil
	})
	return out, err
}

// DeleteDocument removes document id and its chunks; an unknown id is ErrNotFound.
func (s *Store) DeleteDocument(ctx context.Context, id int64) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var enabled bool
		if err := tx.QueryRow(ctx, `SELECT enabled FROM knowledge_documents WHERE id = $1 FOR UPDATE`, id).Scan(&enabled); err != nil {
			return notFound(err, fmt.Sprintf("delete document %d", id))
		}
		if enabled {
			if err := countLexemes(ctx, tx, id, -1); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM knowledge_documents WHERE id = $1`, id); err != nil {
			return fmt.Errorf("store: delete document %d: %w", id, err)
		}
		return nil
	})
}

// CommonChunkLexemeRows and CommonChunkShare say when a word is too
// common to choose candidates: held by more than CommonChunkLexemeRows
// chunks and by more than CommonChunkShare of them all (see
// chunkCandidatesSQL), it tells no chunk apart. A small knowledge base
// keeps all its words.
const (
	CommonChunkLexemeRows = 300
	CommonChunkShare      = 0.05
)

// RarestChunkTerms is how many of a query's terms, the rarest first,
// choose the candidate chunks (see chunkCandidatesSQL).
const RarestChunkTerms = 4

// PairedChunkRows bounds the chunks holding two of the rarest terms that
// one draft ranks (see chunkCandidatesSQL).
const PairedChunkRows = 100

// chunkCandidatesSQL reads the chunks of enabled documents like a query,
// at most $3, the best ranked first, each with its text-search rank
// against the query's lexemes ($1, its terms) and the trigram similarity
// of its text to $2 (the normalised query). The work of one draft is
// bounded whatever its terms and however large the knowledge base:
//   - of the query's lexemes that some chunk holds (knowledge_lexemes
//     counts them), a lexeme held by more than $4 chunks and more than
//     the share $7 of them all is left out: it tells no chunk apart;
//   - of the rest, the $5 rarest choose the candidates;
//   - first the chunks holding two of them (the GIN index alone finds
//     them), at most $6 of them ranked; then, while fewer than $3, those
//     holding the rarest one.
//
// Rows are ranked (ts_rank reads each one's tsvector) only within those
// bounds: ranking every chunk that shares one word with a post cost a
// draft half a second among 200 documents of 1 MB.
const chunkCandidatesSQL = `
	WITH lexemes AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme),
	kept AS MATERIALIZED (
		SELECT k.lexeme, row_number() OVER (ORDER BY k.chunks, k.lexeme) AS n
		FROM lexemes l JOIN knowledge_lexemes k ON k.lexeme = l.lexeme
		WHERE k.chunks > 0 AND k.chunks <= greatest($4,
			$7 * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'knowledge_chunks'::regclass))
		ORDER BY n LIMIT $5),
	q AS MATERIALIZED (
		SELECT (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) FROM kept) AS any,
			(SELECT to_tsquery('simple', string_agg('(' || quote_literal(a.lexeme) || ' & ' || quote_literal(b.lexeme) || ')', ' | '))
				FROM kept a JOIN kept b ON a.n < b.n) AS two,
			(SELECT to_tsquery('simple', quote_literal(lexeme)) FROM kept WHERE n = 1) AS rarest),
	enabled AS MATERIALIZED (SELECT id FROM knowledge_documents WHERE enabled),
	several AS MATERIALIZED (
		SELECT c.id, c.search FROM knowledge_chunks c, q
		WHERE q.two IS NOT NULL AND c.search @@ q.two AND c.document_id IN (SELECT id FROM enabled)
		LIMIT $6),
	one AS MATERIALIZED (
		SELECT c.id, c.search FROM knowledge_chunks c, q
		WHERE q.rarest IS NOT NULL AND (SELECT count(*) FROM several) < $3
			AND c.search @@ q.rarest AND c.document_id IN (SELECT id FROM enabled)
			AND c.id NOT IN (SELECT id FROM several)
		LIMIT $3),
	lexical AS (
		SELECT x.id, ts_rank(x.search, q.any, 32) AS rank, x.tier
		FROM (SELECT id, search, 0 AS tier FROM several UNION ALL SELECT id, search, 1 FROM one) x, q
		ORDER BY x.tier, rank DESC, x.id DESC LIMIT $3)
	SELECT c.id, c.document_id, c.position, c.heading, c.text, d.title,
		similarity(c.text, $2)::float8 AS trigram, l.rank::float8 AS rank
	FROM lexical l JOIN knowledge_chunks c ON c.id = l.id
	JOIN knowledge_documents d ON d.id = c.document_id`

// ChunkCandidates returns the chunks of enabled documents like a text:
// those that hold two of its rarest terms, then those that hold the rarest (text search; see chunkCandidatesSQL), at most CandidateLimit, each
// with its rank and its trigram similarity to normalized.
func (s *Store) ChunkCandidates(ctx context.Context, terms []string, normalized string) ([]knowledge.Candidate, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, chunkCandidatesSQL, strings.Join(terms, " "), normalized, CandidateLimit, CommonChunkLexemeRows,
		RarestChunkTerms, PairedChunkRows, CommonChunkShare)
	if err != nil {
		return nil, fmt.Errorf("store: chunk candidates: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (knowledge.Candidate, error) {
		var c knowledge.Candidate
		err := row.Scan(&c.ID, &c.DocumentID, &c.Position, &c.Heading, &c.Text, &c.Title, &c.Trigram, &c.Rank)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: chunk candidates: %w", err)
	}
	return out, nil
}

// FactsByChunk returns the chunks of ids with their documents' titles,
// in no order; a chunk whose document was deleted is left out.
func (s *Store) FactsByChunk(ctx context.Context, ids []int64) ([]knowledge.Fact, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.document_id, d.title, c.text FROM knowledge_chunks c
		JOIN knowledge_documents d ON d.id = c.document_id WHERE c.id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: facts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (knowledge.Fact, error) {
		var f knowledge.Fact
		err := row.Scan(&f.ChunkID, &f.DocumentID, &f.Title, &f.Text)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: facts: %w", err)
	}
	return out, nil
}
