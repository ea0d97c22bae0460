-- +goose Up
-- The per-author reply cap counts an author's guarded posts of the last 24
-- hours by the author's stable id where the post has one, so that a renamed
-- author keeps its count and the next owner of a handle starts from none;
-- posts without an id (author_id = '') are still counted by handle
-- (posts_author_guarded_idx). The same index finds the handle an author id
-- was last seen with, which the settings answer shows next to an entry
-- given by id. Ids of different platforms never look alike (X's are
-- digits, Bluesky's DIDs), so the platform needs no place in it.
CREATE INDEX posts_author_id_idx ON posts (author_id, guarded_at) WHERE author_id <> '';

-- +goose Down
DROP INDEX posts_author_id_idx;
