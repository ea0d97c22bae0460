-- +goose Up
-- Opt-outs and blocked authors are kept by the author's stable id (the X
-- user id, the Bluesky DID), not by the handle, which its owner can change
-- and someone else can later take.

-- posts.author_id: the platform's id of the found post's author, '' where
-- unknown (rows found before it was kept).
ALTER TABLE posts ADD COLUMN author_id text NOT NULL DEFAULT '';

-- blocked_authors.author_id: the blocked author's stable id; NULL for an
-- entry known by handle only (every row before this migration, and one the
-- administrator names by handle), which blocks that handle until the
-- author is next seen, when the id is filled in and the handle no longer
-- matters.
ALTER TABLE blocked_authors ADD COLUMN author_id text;
CREATE UNIQUE INDEX blocked_authors_author_id_idx ON blocked_authors (author_id) WHERE author_id IS NOT NULL;

-- +goose Down
DROP INDEX blocked_authors_author_id_idx;
ALTER TABLE blocked_authors DROP COLUMN author_id;
ALTER TABLE posts DROP COLUMN author_id;
