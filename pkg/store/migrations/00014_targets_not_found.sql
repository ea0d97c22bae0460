-- +goose Up
-- A targeted username the platform does not know is looked up at
-- most once an hour, and again at once when the settings change; the hour's
-- drafts are counted for caps.drafts_per_hour.

-- not_found_at: when the platform last answered that the username is
-- unknown; NULL when it is known or not looked up yet. A settings change
-- clears it.
ALTER TABLE targets ADD COLUMN not_found_at timestamptz;

-- caps.drafts_per_hour counts the first drafts of the last hour.
CREATE INDEX post_versions_writer_at_idx ON post_versions (at) WHERE origin = 'writer';

-- +goose Down
DROP INDEX post_versions_writer_at_idx;
ALTER TABLE targets DROP COLUMN not_found_at;
