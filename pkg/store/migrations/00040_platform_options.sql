-- +goose Up
-- settings.platform_options: the choices one platform alone knows of
-- (settings.PlatformOptions as JSON, by platform then option, such as
-- {"mastodon": {"reply_to_direct": false}}; an option absent is off). It
-- replaces migration 00038's settings.mastodon, so that a platform's
-- options need no column of their own.
ALTER TABLE settings ADD COLUMN platform_options jsonb NOT NULL DEFAULT '{}';
UPDATE settings SET platform_options = jsonb_build_object('mastodon', mastodon) WHERE mastodon <> '{}';
ALTER TABLE settings DROP COLUMN mastodon;

-- +goose Down
ALTER TABLE settings ADD COLUMN mastodon jsonb NOT NULL DEFAULT '{}';
UPDATE settings SET mastodon = platform_options -> 'mastodon' WHERE platform_options ? 'mastodon';
ALTER TABLE settings DROP COLUMN platform_options;
