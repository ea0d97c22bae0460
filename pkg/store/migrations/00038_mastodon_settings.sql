-- +goose Up
-- settings.mastodon: the administrator's Mastodon choices (settings.Mastodon
-- as JSON, {"reply_to_direct": false} by default), which the worker reads at
-- every scan and send; '{}' keeps the defaults.
ALTER TABLE settings ADD COLUMN mastodon jsonb NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE settings DROP COLUMN mastodon;
