-- +goose Up
-- The sandbox has conversations. Its mortals answer each other and
-- quote posts; a post the world makes keeps its turn (the clock's seq), so
-- that a later turn can answer or quote it.
ALTER TABLE sandbox_posts
    ADD COLUMN quoted_id bigint,
    ADD COLUMN seq       bigint;
CREATE INDEX sandbox_posts_seq_idx ON sandbox_posts (seq) WHERE seq IS NOT NULL;
-- A quote of the persona's reply is made once: the world looks for the
-- replies nobody quoted yet.
CREATE INDEX sandbox_posts_quoted_idx ON sandbox_posts (quoted_id) WHERE quoted_id IS NOT NULL;

-- +goose Down
DROP INDEX sandbox_posts_quoted_idx;
DROP INDEX sandbox_posts_seq_idx;
ALTER TABLE sandbox_posts DROP COLUMN quoted_id, DROP COLUMN seq;
