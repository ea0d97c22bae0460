-- +goose Up
-- What a Mastodon post shows and how long its answer may be.
-- content_warning: the author's content warning over the post (Mastodon's
-- spoiler_text), '' when none; kept apart from the text, for the card, the
-- writer and the length of a reply, which carries it. Context posts too.
-- web_url: the post's own web page as its platform named it at intake
-- (Mastodon's Status url, on the author's server), '' when none: the admin
-- builds X's and Bluesky's from the descriptor instead.
-- max_length: the limit in force on the platform when the draft was
-- written (Mastodon's configuration.statuses.max_characters, read by the
-- worker), NULL for the platform's default.
ALTER TABLE posts ADD COLUMN content_warning text NOT NULL DEFAULT '',
    ADD COLUMN web_url text NOT NULL DEFAULT '',
    ADD COLUMN max_length integer CHECK (max_length > 0);
ALTER TABLE context_posts ADD COLUMN content_warning text NOT NULL DEFAULT '';
-- The latest limit of a platform (an imported case's): only the rows that
-- keep one, so that a platform without any finds none at once.
CREATE INDEX posts_max_length_idx ON posts (platform, id DESC) WHERE max_length IS NOT NULL;

-- +goose Down
DROP INDEX posts_max_length_idx;
ALTER TABLE context_posts DROP COLUMN content_warning;
ALTER TABLE posts DROP COLUMN max_length, DROP COLUMN web_url, DROP COLUMN content_warning;
