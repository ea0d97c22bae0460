package storetest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// generateChunksSQL makes the chunks of document $1: $2 chunks of 88
// pseudo-words of VocabularySize (Word; 8 letters and a space each, about
// 800 characters), drawn skewed as GenerateLearning's are.
const generateChunksSQL = `
WITH v AS (SELECT array_agg(translate(left(md5(g::text), 8), '0123456789', 'ghijklmnop') ORDER BY g) AS w
	FROM generate_series(1, $3::int) g)
INSERT INTO knowledge_chunks (document_id, position, heading, text)
SELECT $1, i, 'Section ' || i,
	(SELECT string_agg(v.w[1 + floor(power(random(), 2) * $3)::int + 0 * k], ' ') FROM generate_series(1, 88) k WHERE i >= 0)
FROM v, generate_series(0, $2::int - 1) i`

// GenerateKnowledge fills the knowledge base with docs enabled documents
// of about bytes bytes each (cut into chunks of about 800 characters),
// then analyzes the tables: the benchmark of the knowledge retrieval's data.
func GenerateKnowledge(ctx context.Context, pool *pgxpool.Pool, docs, bytes int) error {
	chunks := max(1, bytes/800)
	for d := range docs {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO knowledge_documents (title, bytes) VALUES ($1, $2) RETURNING id`,
			fmt.Sprintf("Document %d", d), bytes).Scan(&id); err != nil {
			return fmt.Errorf("storetest: generate documents: %w", err)
		}
		if _, err := pool.Exec(ctx, generateChunksSQL, id, chunks, VocabularySize); err != nil {
			return fmt.Errorf("storetest: generate chunks: %w", err)
		}
	}
	// As every upload does: the words counted for the retrieval's choice of
	// candidates (knowledge_lexemes, as migration 00039 counts them)...
	if _, err := pool.Exec(ctx, `INSERT INTO knowledge_lexemes (lexeme, chunks)
		SELECT word, ndoc FROM ts_stat('SELECT search FROM knowledge_chunks')`); err != nil {
		return fmt.Errorf("storetest: count the words: %w", err)
	}
	// ...and the index entries out of the pending lists.
	if _, err := pool.Exec(ctx, `SELECT gin_clean_pending_list('knowledge_chunks_search_idx'::regclass),
		gin_clean_pending_list('knowledge_chunks_trgm_idx'::regclass)`); err != nil {
		return fmt.Errorf("storetest: clean pending lists: %w", err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE knowledge_documents, knowledge_chunks`); err != nil {
		return fmt.Errorf("storetest: analyze: %w", err)
	}
	return nil
}
