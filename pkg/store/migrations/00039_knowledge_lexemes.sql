-- +goose Up
-- knowledge_lexemes: how many chunks of enabled documents hold each
-- lexeme (the text-search words of knowledge_chunks.search), kept up to
-- date by every upload, enabling, disabling and deletion. The retrieval
-- chooses its candidates by the rarest of a post's words that some chunk
-- holds; the counts tell which, exactly and at once, where PostgreSQL's
-- statistics list only the commonest words and cost a draft milliseconds
-- to read.
CREATE TABLE knowledge_lexemes (
	lexeme text PRIMARY KEY,
	chunks int NOT NULL
);
INSERT INTO knowledge_lexemes (lexeme, chunks)
SELECT word, ndoc FROM ts_stat('SELECT c.search FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id AND d.enabled');

-- +goose Down
DROP TABLE knowledge_lexemes;
