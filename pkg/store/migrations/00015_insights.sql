-- +goose Up
-- Every post a scan returns accounted for, and the figures of the
-- admin's Insights.

-- scan_ledger: the posts a scan returned and dropped before recording them
-- in posts (a repost, the persona's own post, a post it was not summoned
-- to), with the reason. A post recorded in posts keeps its fate there
-- (status, skip_reason); the two together are every post the scans
-- returned. Pruned after 90 days (store.PruneLedger).
CREATE TABLE scan_ledger (
    platform         text        NOT NULL,
    platform_post_id text        NOT NULL,
    source           text        NOT NULL CHECK (source IN ('conversation', 'mention', 'targeted')),
    reason           text        NOT NULL,
    seen_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, platform_post_id)
);
CREATE INDEX scan_ledger_seen_idx ON scan_ledger (seen_at);

-- scan_runs: the last scan of each timeline that read it, and the newest
-- post id it covered, so a lookup of a post never seen can say whether the
-- scans reached it.
CREATE TABLE scan_runs (
    platform   text        NOT NULL,
    name       text        NOT NULL,
    scanned_at timestamptz NOT NULL DEFAULT now(),
    newest_id  text        NOT NULL DEFAULT '',
    PRIMARY KEY (platform, name)
);

-- drafted_at: when the post's first draft was written; edited: the
-- administrator changed the text before approving it; *_24h: the reply's
-- counters 24 hours after posting, a copy of its reply_snapshots row of
-- that age, so the insights read them with the post (NULL until taken).
ALTER TABLE posts
    ADD COLUMN drafted_at   timestamptz,
    ADD COLUMN edited       boolean NOT NULL DEFAULT false,
    ADD COLUMN likes_24h    integer,
    ADD COLUMN retweets_24h integer,
    ADD COLUMN replies_24h  integer;
UPDATE posts p SET drafted_at = v.at
FROM (SELECT post_id, min(at) AS at FROM post_versions WHERE origin IN ('writer', 'regenerate') GROUP BY post_id) v
WHERE v.post_id = p.id;
UPDATE posts p SET edited = true
WHERE approved_at IS NOT NULL AND EXISTS (SELECT 1 FROM post_versions v WHERE v.post_id = p.id AND v.origin = 'admin');
-- Insights read the posts the scans returned in a range of days, from this
-- index alone (an index-only scan: the rows are wide, the figures few).
CREATE INDEX posts_inserted_idx ON posts (inserted_at)
    INCLUDE (source, status, skip_reason, approved_at, send_started_at, rejected_at, posted_at, created_at,
             drafted_at, persona_version, review_score, edited, likes_24h, retweets_24h, replies_24h)
    WHERE source <> 'profile';

-- reply_snapshots: a posted reply's public counters read about 1 hour,
-- 24 hours and 7 days (168 hours) after it was posted: comparable
-- engagement, whatever the reply's age when insights are read.
CREATE TABLE reply_snapshots (
    post_id   bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    age_hours smallint    NOT NULL CHECK (age_hours IN (1, 24, 168)),
    likes     integer     NOT NULL CHECK (likes >= 0),
    retweets  integer     NOT NULL CHECK (retweets >= 0),
    replies   integer     NOT NULL CHECK (replies >= 0),
    taken_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, age_hours)
);

-- metric_gaps: the periods when the replies' metrics could not be read (a
-- budget pause, an account pause after a 402, a closed rate-limit window),
-- ended_at NULL while one lasts; at most one is open.
CREATE TABLE metric_gaps (
    id         bigserial   PRIMARY KEY,
    reason     text        NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    ended_at   timestamptz
);
CREATE UNIQUE INDEX metric_gaps_open_idx ON metric_gaps ((true)) WHERE ended_at IS NULL;
CREATE INDEX metric_gaps_started_idx ON metric_gaps (started_at);

-- insights_cache: the insights of the ranges the administrator asked for
-- lately (days, source, time zone), as last computed: the web answers from
-- it while it is fresh, and the worker computes each range asked for in
-- the last day again at every metrics refresh, so the admin seldom waits
-- for a computation over months of posts.
CREATE TABLE insights_cache (
    days         integer     NOT NULL,
    source       text        NOT NULL,
    tz           text        NOT NULL,
    range_from   timestamptz NOT NULL,
    range_to     timestamptz NOT NULL,
    body         json        NOT NULL,
    computed_at  timestamptz NOT NULL,
    requested_at timestamptz NOT NULL,
    PRIMARY KEY (days, source, tz)
);

-- +goose Down
DROP TABLE insights_cache;
DROP TABLE metric_gaps;
DROP TABLE reply_snapshots;
DROP INDEX posts_inserted_idx;
ALTER TABLE posts DROP COLUMN drafted_at, DROP COLUMN edited, DROP COLUMN likes_24h, DROP COLUMN retweets_24h, DROP COLUMN replies_24h;
DROP TABLE scan_runs;
DROP TABLE scan_ledger;
