-- +goose Up
-- draft_version: grows by one whenever a post's proposed text changes (the
-- writer's draft, a regenerate, a redraft, the administrator's saved edit).
-- A decision names the version it was made on, so what was shown is what is
-- decided. Existing posts start at the number of versions they have had.
ALTER TABLE posts ADD COLUMN draft_version integer NOT NULL DEFAULT 0;
UPDATE posts p SET draft_version = greatest(
    (SELECT count(*) FROM post_versions v WHERE v.post_id = p.id),
    CASE WHEN p.proposed_response <> '' THEN 1 ELSE 0 END);

-- post_decisions: every decision on a post, oldest first: approve, reject,
-- edit, regenerate, cancel; by is the channel it came through (web, bulk,
-- telegram, autopilot) and draft_version the version it was made on.
-- detail holds what the channel adds (an autopilot rule that matched).
CREATE TABLE post_decisions (
    id            bigserial   PRIMARY KEY,
    post_id       bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    action        text        NOT NULL CHECK (action IN ('approve', 'reject', 'edit', 'regenerate', 'cancel')),
    by            text        NOT NULL CHECK (by IN ('web', 'bulk', 'telegram', 'autopilot')),
    draft_version integer     NOT NULL,
    detail        jsonb       NOT NULL DEFAULT '{}',
    at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_decisions_post_idx ON post_decisions (post_id, id);

-- telegram_state: the one Telegram link (one row): the offset of the last
-- update applied, so none is applied twice or lost across a restart; the
-- bot's name, and the last update and error, for the settings; since: when
-- the link first ran, so drafts older than it are not sent at once.
CREATE TABLE telegram_state (
    id             boolean     PRIMARY KEY DEFAULT true CHECK (id),
    update_offset  bigint      NOT NULL DEFAULT 0,
    bot_username   text        NOT NULL DEFAULT '',
    since          timestamptz NOT NULL DEFAULT now(),
    last_update_at timestamptz,
    last_error     text        NOT NULL DEFAULT '',
    last_error_at  timestamptz
);

-- telegram_drafts: which draft versions reached Telegram, as a card of
-- their own or summed up in a digest; a pending draft without a row here
-- is still to be sent.
CREATE TABLE telegram_drafts (
    post_id       bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    draft_version integer     NOT NULL,
    how           text        NOT NULL CHECK (how IN ('card', 'digested')),
    at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, draft_version)
);
CREATE INDEX telegram_drafts_at_idx ON telegram_drafts (at);

-- telegram_messages: the messages the bot sent. A card (kind card) is open
-- while its buttons stand; it is closed once edited to show the outcome.
-- An edit prompt (kind edit) waits for the administrator's reply. text is
-- the card as sent, so its outcome can be added below it.
CREATE TABLE telegram_messages (
    chat_id       bigint      NOT NULL,
    message_id    bigint      NOT NULL,
    kind          text        NOT NULL CHECK (kind IN ('card', 'digest', 'edit', 'notice')),
    post_id       bigint      REFERENCES posts (id) ON DELETE CASCADE,
    draft_version integer     NOT NULL DEFAULT 0,
    open          boolean     NOT NULL DEFAULT true,
    text          text        NOT NULL DEFAULT '',
    outcome       text        NOT NULL DEFAULT '',
    sent_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chat_id, message_id)
);
CREATE INDEX telegram_messages_open_idx ON telegram_messages (post_id) WHERE open;
CREATE INDEX telegram_messages_sent_idx ON telegram_messages (sent_at);

-- +goose Down
DROP TABLE telegram_messages;
DROP TABLE telegram_drafts;
DROP TABLE telegram_state;
DROP TABLE post_decisions;
ALTER TABLE posts DROP COLUMN draft_version;
