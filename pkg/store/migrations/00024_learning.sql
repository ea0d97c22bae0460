-- +goose Up
-- The persona learns from its editor: every decision on a draft is a case,
-- every edit (and rejection with a reason) may yield a lesson, and both are
-- retrieved by text similarity for the next drafts (pkg/retrieval).
-- pg_trgm ships with PostgreSQL; it gives the trigram similarity.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- learning_cases: one per post decided on (the last decision wins), or per
-- imported reply (post_id NULL). conversation_key keeps two examples from
-- one conversation apart; search is the text search of the mortal's post.
CREATE TABLE learning_cases (
	id bigserial PRIMARY KEY,
	post_id bigint REFERENCES posts (id) ON DELETE SET NULL,
	conversation_key text NOT NULL DEFAULT '',
	platform text NOT NULL,
	language text NOT NULL DEFAULT '',
	author_username text NOT NULL DEFAULT '',
	author_id text NOT NULL DEFAULT '',
	mention_text text NOT NULL,
	thread_digest text NOT NULL DEFAULT '',
	draft_text text NOT NULL DEFAULT '',
	final_text text NOT NULL,
	decision text NOT NULL CHECK (decision IN ('approved', 'edited', 'rejected')),
	by text NOT NULL,
	reason text NOT NULL DEFAULT '',
	review_score int,
	persona_version int,
	used_count int NOT NULL DEFAULT 0,
	last_used_at timestamptz,
	-- distilled_at: when its lesson was distilled; NULL on an edited case
	-- or a rejection with a reason marks one to distil.
	distilled_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	search tsvector GENERATED ALWAYS AS (to_tsvector('english', mention_text)) STORED
);
CREATE UNIQUE INDEX learning_cases_post_idx ON learning_cases (post_id) WHERE post_id IS NOT NULL;
CREATE INDEX learning_cases_search_idx ON learning_cases USING gin (search);
CREATE INDEX learning_cases_trgm_idx ON learning_cases USING gin (mention_text gin_trgm_ops);
CREATE INDEX learning_cases_final_trgm_idx ON learning_cases USING gin (final_text gin_trgm_ops);
CREATE INDEX learning_cases_created_idx ON learning_cases (created_at DESC, id DESC);
CREATE INDEX learning_cases_author_idx ON learning_cases (lower(author_username));
CREATE INDEX learning_cases_distil_idx ON learning_cases (id)
	WHERE distilled_at IS NULL AND (decision = 'edited' OR (decision = 'rejected' AND reason <> ''));
CREATE INDEX learning_cases_author_id_idx ON learning_cases (author_id) WHERE author_id <> '';

-- learning_lessons: short rules distilled from edits and rejections, or
-- written by the administrator; a near-duplicate raises count.
CREATE TABLE learning_lessons (
	id bigserial PRIMARY KEY,
	text text NOT NULL,
	kind text NOT NULL CHECK (kind IN ('edit', 'rejection', 'manual')),
	source_case_ids bigint[] NOT NULL DEFAULT '{}',
	count int NOT NULL DEFAULT 1,
	enabled boolean NOT NULL DEFAULT true,
	used_count int NOT NULL DEFAULT 0,
	last_used_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX learning_lessons_trgm_idx ON learning_lessons USING gin (text gin_trgm_ops);
CREATE INDEX learning_lessons_sources_idx ON learning_lessons USING gin (source_case_ids);

-- What shaped each draft: the cases given as examples and the lessons in
-- its prompt, on the post (its current draft) and on each version.
ALTER TABLE posts ADD COLUMN learned_cases bigint[] NOT NULL DEFAULT '{}',
	ADD COLUMN learned_lessons bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE post_versions ADD COLUMN learned_cases bigint[] NOT NULL DEFAULT '{}',
	ADD COLUMN learned_lessons bigint[] NOT NULL DEFAULT '{}';

-- learning: the administrator's learning settings (settings.Learning as
-- JSON); '{}' is the default: on, 3 examples, 5 lessons.
ALTER TABLE settings ADD COLUMN learning jsonb NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE settings DROP COLUMN learning;
ALTER TABLE post_versions DROP COLUMN learned_lessons, DROP COLUMN learned_cases;
ALTER TABLE posts DROP COLUMN learned_lessons, DROP COLUMN learned_cases;
DROP TABLE learning_lessons;
DROP TABLE learning_cases;
