-- +goose Up
-- The sandbox forgets its old posts; this index keeps that cheap.
CREATE INDEX sandbox_posts_created_idx ON sandbox_posts (created_at);

-- +goose Down
DROP INDEX sandbox_posts_created_idx;
