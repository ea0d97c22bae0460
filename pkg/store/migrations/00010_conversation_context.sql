-- +goose Up
-- The conversation a post belongs to, read once and kept.

-- context_posts: posts of the platform read as some draft's context (a parent,
-- an ancestor, a quoted post), one row per platform post. Later drafts,
-- regenerations and follow-ups in the conversation read them from here, so
-- that X bills each post once. A post the platform no longer shows is kept
-- with gone = true, so that it is not asked for again.
CREATE TABLE context_posts (
    platform         text        NOT NULL,
    platform_post_id text        NOT NULL,
    conversation_id  text        NOT NULL DEFAULT '',
    in_reply_to_id   text        NOT NULL DEFAULT '',
    quoted_id        text        NOT NULL DEFAULT '',
    author_id        text        NOT NULL DEFAULT '',
    author_username  text        NOT NULL DEFAULT '',
    author_name      text        NOT NULL DEFAULT '',
    text             text        NOT NULL DEFAULT '',
    created_at       timestamptz,
    gone             boolean     NOT NULL DEFAULT false,
    fetched_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, platform_post_id)
);
-- The sandbox forgets its posts after two weeks; context rows of X are
-- pruned by age the same way (store.PruneContextPosts).
CREATE INDEX context_posts_fetched_idx ON context_posts (fetched_at);

-- What a found post answers and quotes, so that its context can be walked
-- from the database alone; context_note says what the draft could not see
-- (the X budget spent, a read refused), shown on the card.
ALTER TABLE posts
    ADD COLUMN in_reply_to_id text NOT NULL DEFAULT '',
    ADD COLUMN quoted_id      text NOT NULL DEFAULT '',
    ADD COLUMN context_note   text NOT NULL DEFAULT '';

-- A follow-up reads the persona's earlier replies of its conversation.
CREATE INDEX posts_conversation_posted_idx ON posts (platform, conversation_id, posted_at)
    WHERE status = 'posted' AND conversation_id IS NOT NULL;

-- +goose Down
DROP INDEX posts_conversation_posted_idx;
ALTER TABLE posts DROP COLUMN in_reply_to_id, DROP COLUMN quoted_id, DROP COLUMN context_note;
DROP TABLE context_posts;
