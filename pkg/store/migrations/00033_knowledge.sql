-- +goose Up
-- The knowledge base: documents the administrator uploads, cut into
-- chunks (pkg/knowledge) that are retrieved for a draft by text search and
-- trigram similarity (pkg/retrieval; pg_trgm is enabled by 00024).
CREATE TABLE knowledge_documents (
	id bigserial PRIMARY KEY,
	title text NOT NULL,
	bytes int NOT NULL,
	enabled boolean NOT NULL DEFAULT true,
	created_at timestamptz NOT NULL DEFAULT now()
);

-- knowledge_chunks: a document's pieces, in order (position); heading is
-- the section it stands under, part of what it is found by.
CREATE TABLE knowledge_chunks (
	id bigserial PRIMARY KEY,
	document_id bigint NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
	position int NOT NULL,
	heading text NOT NULL DEFAULT '',
	text text NOT NULL,
	search tsvector GENERATED ALWAYS AS (to_tsvector('english', heading || ' ' || text)) STORED
);
CREATE INDEX knowledge_chunks_document_idx ON knowledge_chunks (document_id, position);
CREATE INDEX knowledge_chunks_search_idx ON knowledge_chunks USING gin (search);
CREATE INDEX knowledge_chunks_trgm_idx ON knowledge_chunks USING gin (text gin_trgm_ops);

-- grounded_in: the knowledge chunks in a draft's prompt, as
-- [{"document_id", "chunk_id"}], on the post (its current draft) and on
-- each version; ids stay when a document is deleted.
ALTER TABLE posts ADD COLUMN grounded_in jsonb NOT NULL DEFAULT '[]';
ALTER TABLE post_versions ADD COLUMN grounded_in jsonb NOT NULL DEFAULT '[]';

-- knowledge: the administrator's knowledge settings (settings.Knowledge as
-- JSON); '{}' is the default: 3 chunks.
ALTER TABLE settings ADD COLUMN knowledge jsonb NOT NULL DEFAULT '{}';

-- knowledge_seeded: the sample document is seeded once, on first start;
-- deleting it does not bring it back.
CREATE TABLE knowledge_seeded (
	id boolean PRIMARY KEY DEFAULT true CHECK (id),
	at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE knowledge_seeded;
ALTER TABLE settings DROP COLUMN knowledge;
ALTER TABLE post_versions DROP COLUMN grounded_in;
ALTER TABLE posts DROP COLUMN grounded_in;
DROP TABLE knowledge_chunks;
DROP TABLE knowledge_documents;
