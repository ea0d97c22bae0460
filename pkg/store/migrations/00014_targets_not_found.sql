-- +goose Up
-- Issue 30: a targeted username the platform does not know is looked up at
-- most once an hour, and again at once when the settings change.

-- not_found_at: when the platform last answered that the username is
-- unknown; NULL when it is known or not looked up yet. A settings change
-- clears it.
ALTER TABLE targets ADD COLUMN not_found_at timestamptz;

-- +goose Down
ALTER TABLE targets DROP COLUMN not_found_at;
