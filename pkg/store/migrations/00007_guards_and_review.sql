-- +goose Up
-- Guards before drafting, reviewer control, managed settings.

-- A post a guard stopped before drafting is 'skipped', with its reason.
ALTER TABLE posts DROP CONSTRAINT posts_status_check;
ALTER TABLE posts ADD CONSTRAINT posts_status_check
    CHECK (status IN ('drafting', 'pending', 'approved', 'awaiting_manual', 'posted', 'rejected', 'failed', 'skipped'));
ALTER TABLE posts
    -- skip_reason says which guard stopped a skipped post, e.g. 'opt-out: "stop"'.
    ADD COLUMN skip_reason text NOT NULL DEFAULT '',
    -- flags are the outbound check's findings on the current draft (guard.Flag values).
    ADD COLUMN flags text[] NOT NULL DEFAULT '{}',
    -- guarded_at is when the post passed the guards: from then on it counts
    -- against the reply caps of its conversation and author.
    ADD COLUMN guarded_at timestamptz;

-- The reply caps count a conversation's and an author's guarded posts.
CREATE INDEX posts_conversation_idx ON posts (platform, conversation_id) WHERE guarded_at IS NOT NULL;
CREATE INDEX posts_author_guarded_idx ON posts (platform, lower(author_username), guarded_at) WHERE guarded_at IS NOT NULL;
-- The near-duplicate guard reads the persona's recent drafts and posts.
CREATE INDEX posts_recent_drafts_idx ON posts (updated_at DESC) WHERE status IN ('pending', 'approved', 'awaiting_manual', 'posted');
-- The Skipped view lists skipped posts across sources in every order.
CREATE INDEX posts_skipped_date_idx ON posts (created_at DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_engagement_idx ON posts (engagement_score DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_likes_idx ON posts (likes_count DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_retweets_idx ON posts (retweets_count DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_replies_idx ON posts (replies_count DESC, id DESC) WHERE status = 'skipped';
-- The send caps read the send times of the last 24 hours.
CREATE INDEX posts_sent_at_idx ON posts (send_started_at) WHERE send_started_at IS NOT NULL;

-- post_versions: every text a draft has had, oldest first.
CREATE TABLE post_versions (
    id          bigserial PRIMARY KEY,
    post_id     bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    text        text        NOT NULL,
    origin      text        NOT NULL CHECK (origin IN ('writer', 'regenerate', 'admin')),
    -- instruction is the reviewer's one-line wish for a regenerated draft.
    instruction text        NOT NULL DEFAULT '',
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_versions_post_idx ON post_versions (post_id, id);

-- settings: the administrator's targets, topics and caps; one row, seeded
-- from the environment on first start and edited in the admin afterwards.
CREATE TABLE settings (
    id               boolean     PRIMARY KEY DEFAULT true CHECK (id),
    target_usernames text[]      NOT NULL DEFAULT '{}',
    search_topics    text[]      NOT NULL DEFAULT '{}',
    caps             jsonb       NOT NULL DEFAULT '{}',
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- blocked_authors: never answered. An opt-out adds its author with the post
-- that asked as the reason.
CREATE TABLE blocked_authors (
    username   text        PRIMARY KEY,
    reason     text        NOT NULL DEFAULT '',
    post_id    bigint      REFERENCES posts (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- blocked_phrases: a post holding one (after normalisation) is skipped.
CREATE TABLE blocked_phrases (
    phrase     text        PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE blocked_phrases;
DROP TABLE blocked_authors;
DROP TABLE settings;
DROP TABLE post_versions;
DROP INDEX posts_sent_at_idx;
DROP INDEX posts_skipped_replies_idx;
DROP INDEX posts_skipped_retweets_idx;
DROP INDEX posts_skipped_likes_idx;
DROP INDEX posts_skipped_engagement_idx;
DROP INDEX posts_skipped_date_idx;
DROP INDEX posts_recent_drafts_idx;
DROP INDEX posts_author_guarded_idx;
DROP INDEX posts_conversation_idx;
UPDATE posts SET status = 'failed', error = 'skipped: ' || skip_reason WHERE status = 'skipped';
ALTER TABLE posts DROP COLUMN guarded_at, DROP COLUMN flags, DROP COLUMN skip_reason;
ALTER TABLE posts DROP CONSTRAINT posts_status_check;
ALTER TABLE posts ADD CONSTRAINT posts_status_check
    CHECK (status IN ('drafting', 'pending', 'approved', 'awaiting_manual', 'posted', 'rejected', 'failed'));
