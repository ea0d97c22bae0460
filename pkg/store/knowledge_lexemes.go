package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// countLexemesSQL adds $2 (1 or -1) times the chunks of document $1 that
// hold each lexeme to knowledge_lexemes, in the lexemes' order, so that
// two uploads at once lock the rows they share in the same order.
const countLexemesSQL = `
	INSERT INTO knowledge_lexemes AS k (lexeme, chunks)
	SELECT word, $2 * ndoc FROM ts_stat(format('SELECT search FROM knowledge_chunks WHERE document_id = %s', $1::bigint))
	ORDER BY word
	ON CONFLICT (lexeme) DO UPDATE SET chunks = k.chunks + excluded.chunks`

// countLexemes counts document id's chunks in knowledge_lexemes (sign 1),
// or takes them out (sign -1), within tx.
func countLexemes(ctx context.Context, tx pgx.Tx, id int64, sign int) error {
	if _, err := tx.Exec(ctx, countLexemesSQL, id, sign); err != nil {
		return fmt.Errorf("store: count the lexemes of document %d: %w", id, err)
	}
	if sign < 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM knowledge_lexemes WHERE chunks <= 0`); err != nil {
			return fmt.Errorf("store: count the lexemes of document %d: %w", id, err)
		}
	}
	return nil
}
