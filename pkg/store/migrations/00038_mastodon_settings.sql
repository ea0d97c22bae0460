-- +goose Up
-- settings.mastodon: the administrator's Mastodon choices (settings.Mastodon
-- as JSON, {"reply_to_direct": false} by default), which the worker reads at
-- every scan and send; '{}' keeps the defaults.
ALTER TABLE settings ADD COLUMN mastodon jsonb NOT NULL DEFAULT '{}';

-- blocked_authors.account_syntax: whose accounts an entry names
-- (post.Descriptor.AccountSyntax: 'x' for X and the sandbox, 'bluesky',
-- 'mastodon'). Mastodon's account ids are digits like X's user ids, so an
-- id blocks an author only on the platforms of its syntax: an X user id
-- never blocks the Mastodon account of the same digits, nor the reverse
-- (migration 00021's "ids of different platforms never look alike" no
-- longer holds; the reply caps count by platform already).
ALTER TABLE blocked_authors ADD COLUMN account_syntax text NOT NULL DEFAULT 'x';
UPDATE blocked_authors SET account_syntax = 'bluesky'
    WHERE username LIKE 'did:%' OR username LIKE '%.%' OR author_id LIKE 'did:%';
UPDATE blocked_authors SET account_syntax = 'mastodon' WHERE username LIKE '%@%';
-- An opt-out names the post that gave it, whose platform is the author's.
UPDATE blocked_authors b SET account_syntax = p.platform
    FROM posts p WHERE p.id = b.post_id AND p.platform IN ('bluesky', 'mastodon');
DROP INDEX blocked_authors_author_id_idx;
CREATE UNIQUE INDEX blocked_authors_author_id_idx ON blocked_authors (account_syntax, author_id) WHERE author_id IS NOT NULL;

-- blocked_authors.looked_up_at: on a platform whose blocked handles are
-- looked up to their ids (post.Descriptor.ResolveBlocked: Mastodon), when
-- the worker last looked an entry up and kept no id (the server does not
-- know the account, or its id is blocked already under another entry);
-- NULL otherwise. Looked up again an hour later, or at once when the
-- settings change.
ALTER TABLE blocked_authors ADD COLUMN looked_up_at timestamptz;

-- +goose Down
ALTER TABLE blocked_authors DROP COLUMN looked_up_at;
DROP INDEX blocked_authors_author_id_idx;
-- Before, one id was one author whatever its platform: Mastodon's entries go.
DELETE FROM blocked_authors WHERE account_syntax = 'mastodon';
CREATE UNIQUE INDEX blocked_authors_author_id_idx ON blocked_authors (author_id) WHERE author_id IS NOT NULL;
ALTER TABLE blocked_authors DROP COLUMN account_syntax;
ALTER TABLE settings DROP COLUMN mastodon;
