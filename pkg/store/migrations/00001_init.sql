-- +goose Up

-- posts: every post the persona considers, and its drafted response.
-- A post found on a platform is unique per (platform, original_post_id);
-- a profile post has no original and so no such key.
CREATE TABLE posts (
    id                   bigserial PRIMARY KEY,
    platform             text        NOT NULL,
    source               text        NOT NULL CHECK (source IN ('conversation', 'mention', 'profile', 'targeted')),
    status               text        NOT NULL DEFAULT 'drafting'
                                     CHECK (status IN ('drafting', 'pending', 'approved', 'posted', 'rejected', 'failed')),
    original_post_id     text,
    conversation_id      text,
    original_post_text   text        NOT NULL DEFAULT '',
    original_post_user   text        NOT NULL DEFAULT '',
    author_username      text        NOT NULL DEFAULT '',
    author_profile_image text        NOT NULL DEFAULT '',
    media_url            text        NOT NULL DEFAULT '',
    created_at           timestamptz NOT NULL DEFAULT now(),
    category             text        NOT NULL DEFAULT ''
                                     CHECK (category IN ('', 'pride', 'greed', 'wrath', 'envy', 'lust', 'gluttony', 'sloth')),
    likes_count          integer     NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
    retweets_count       integer     NOT NULL DEFAULT 0 CHECK (retweets_count >= 0),
    replies_count        integer     NOT NULL DEFAULT 0 CHECK (replies_count >= 0),
    -- engagement_score = likes + 2·retweets + 2·replies, kept by Postgres so it can be indexed.
    engagement_score     integer     GENERATED ALWAYS AS (likes_count + 2 * retweets_count + 2 * replies_count) STORED,
    proposed_response    text        NOT NULL DEFAULT '',
    temperature          double precision NOT NULL DEFAULT 0.3,
    presence_penalty     double precision NOT NULL DEFAULT 0.3,
    frequency_penalty    double precision NOT NULL DEFAULT 0.3,
    draft_attempts       integer     NOT NULL DEFAULT 0,
    approved_at          timestamptz,
    rejected_at          timestamptz,
    -- send_started_at is set before the platform call, so a retry knows to look first.
    send_started_at      timestamptz,
    posted_at            timestamptz,
    response_post_id     text,
    response_likes       integer     NOT NULL DEFAULT 0,
    response_retweets    integer     NOT NULL DEFAULT 0,
    response_replies     integer     NOT NULL DEFAULT 0,
    error                text        NOT NULL DEFAULT '',
    inserted_at          timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform, original_post_id)
);

-- One index per admin list order; the lists filter on (source, status).
CREATE INDEX posts_list_date_idx ON posts (source, status, created_at DESC, id DESC);
CREATE INDEX posts_list_engagement_idx ON posts (source, status, engagement_score DESC, id DESC);
CREATE INDEX posts_list_likes_idx ON posts (source, status, likes_count DESC, id DESC);
CREATE INDEX posts_list_retweets_idx ON posts (source, status, retweets_count DESC, id DESC);
CREATE INDEX posts_list_replies_idx ON posts (source, status, replies_count DESC, id DESC);
-- Statistics and the featured latest response read posted rows by time.
CREATE INDEX posts_status_posted_idx ON posts (status, posted_at DESC);
CREATE INDEX posts_status_updated_idx ON posts (status, updated_at);

-- log_threads: the public record, one thread per conversation or profile post.
CREATE TABLE log_threads (
    id               bigserial PRIMARY KEY,
    type             text        NOT NULL CHECK (type IN ('MORTAL_INTERACTION', 'CONSCIOUSNESS_BROADCAST')),
    -- thread_key groups exchanges: platform and conversation id, or the profile post's id.
    thread_key       text        NOT NULL UNIQUE,
    latest_timestamp timestamptz NOT NULL DEFAULT now(),
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX log_threads_latest_idx ON log_threads (latest_timestamp DESC, id DESC);

-- log_messages: one posted exchange each; a post appears at most once.
CREATE TABLE log_messages (
    id        bigserial PRIMARY KEY,
    thread_id bigint      NOT NULL REFERENCES log_threads (id) ON DELETE CASCADE,
    post_id   bigint      NOT NULL UNIQUE REFERENCES posts (id) ON DELETE CASCADE,
    timestamp timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX log_messages_thread_idx ON log_messages (thread_id, timestamp);

-- targets: the accounts whose recent posts the targeted scan reads.
CREATE TABLE targets (
    id         bigserial PRIMARY KEY,
    platform   text        NOT NULL,
    username   text        NOT NULL,
    user_id    text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform, username)
);

-- scan_cursors: the newest id each scan has seen, so a restart neither re-reads nor skips.
CREATE TABLE scan_cursors (
    platform   text        NOT NULL,
    name       text        NOT NULL,
    value      text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, name)
);

-- engagement_snapshots: the persona's 24-hour engagement at each metrics refresh.
CREATE TABLE engagement_snapshots (
    id           bigserial PRIMARY KEY,
    window_start timestamptz NOT NULL,
    taken_at     timestamptz NOT NULL DEFAULT now(),
    likes        integer     NOT NULL DEFAULT 0,
    retweets     integer     NOT NULL DEFAULT 0,
    replies      integer     NOT NULL DEFAULT 0
);
CREATE INDEX engagement_snapshots_taken_idx ON engagement_snapshots (taken_at DESC);

-- admins: the administrator; the password is kept as an argon2id hash.
CREATE TABLE admins (
    id            bigserial PRIMARY KEY,
    username      text        NOT NULL UNIQUE,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- sessions: bearer tokens, kept only as their SHA-256.
CREATE TABLE sessions (
    id         bigserial PRIMARY KEY,
    admin_id   bigint      NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
    token_hash bytea       NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);

-- login_failures: recent failed logins, to throttle guessing by address and by name.
CREATE TABLE login_failures (
    id         bigserial PRIMARY KEY,
    username   text        NOT NULL,
    address    text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_username_idx ON login_failures (username, at);
CREATE INDEX login_failures_address_idx ON login_failures (address, at);

-- sandbox_posts: the simulated microblog of the embedded default platform.
CREATE TABLE sandbox_posts (
    id              bigserial PRIMARY KEY,
    author_username text        NOT NULL,
    author_name     text        NOT NULL,
    -- kind is what the simulated post is: a mention of the persona, a post on a topic, or a targeted account's post.
    kind            text        NOT NULL CHECK (kind IN ('mention', 'topic', 'target', 'persona')),
    text            text        NOT NULL,
    in_reply_to_id  bigint,
    conversation_id bigint,
    likes           integer     NOT NULL DEFAULT 0,
    retweets        integer     NOT NULL DEFAULT 0,
    replies         integer     NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_posts_author_idx ON sandbox_posts (author_username, id);
CREATE INDEX sandbox_posts_kind_idx ON sandbox_posts (kind, id);
CREATE INDEX sandbox_posts_reply_idx ON sandbox_posts (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL;

-- sandbox_clock: when the simulated world last moved on.
CREATE TABLE sandbox_clock (
    id         boolean     PRIMARY KEY DEFAULT true CHECK (id),
    advanced_at timestamptz NOT NULL DEFAULT now(),
    seq        bigint      NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE sandbox_clock;
DROP TABLE sandbox_posts;
DROP TABLE login_failures;
DROP TABLE sessions;
DROP TABLE admins;
DROP TABLE engagement_snapshots;
DROP TABLE scan_cursors;
DROP TABLE targets;
DROP TABLE log_messages;
DROP TABLE log_threads;
DROP TABLE posts;
