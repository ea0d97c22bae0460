-- +goose Up
-- What a worker reads for every draft and every send (the guards' settings,
-- the send caps' counts), kept to a row or two.

-- settings_version: moved on by the triggers below in the transaction of
-- every change to the settings, the blocked authors or the blocked phrases,
-- so a worker keeps the settings it read and reads them again only when the
-- number has moved: one tiny row per task instead of three reads.
CREATE TABLE settings_version (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint  NOT NULL
);
INSERT INTO settings_version (id, version) VALUES (true, 1);

-- +goose StatementBegin
CREATE FUNCTION settings_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE settings_version SET version = version + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER settings_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION settings_version_bump();
CREATE TRIGGER blocked_authors_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON blocked_authors
    FOR EACH STATEMENT EXECUTE FUNCTION settings_version_bump();
CREATE TRIGGER blocked_phrases_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON blocked_phrases
    FOR EACH STATEMENT EXECUTE FUNCTION settings_version_bump();

-- send_days: how many sends started on each UTC day, counted by the
-- triggers below in the transaction that starts the send. The send caps
-- read the last two days' sum as an upper bound of the sends in their
-- windows (every rolling window of 24 hours or less lies within them): when
-- that bound and the approvals waiting leave room under both caps, a send
-- starts without reading the send times. A start stamped twice would count
-- twice, which only loosens the bound, never the caps.
CREATE TABLE send_days (
    day   date   PRIMARY KEY,
    sends bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION send_days_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO send_days (day, sends) VALUES ((NEW.send_started_at AT TIME ZONE 'UTC')::date, 1)
    ON CONFLICT (day) DO UPDATE SET sends = send_days.sends + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Writers wait while the triggers start and the earlier sends are counted.
LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER posts_send_days_insert AFTER INSERT ON posts
    FOR EACH ROW WHEN (NEW.send_started_at IS NOT NULL)
    EXECUTE FUNCTION send_days_count();
CREATE TRIGGER posts_send_days_update AFTER UPDATE OF send_started_at ON posts
    FOR EACH ROW WHEN (NEW.send_started_at IS NOT NULL AND OLD.send_started_at IS DISTINCT FROM NEW.send_started_at)
    EXECUTE FUNCTION send_days_count();
INSERT INTO send_days (day, sends)
SELECT (send_started_at AT TIME ZONE 'UTC')::date, count(*) FROM posts
WHERE send_started_at IS NOT NULL GROUP BY 1;

-- The first lists' indexes (00001), which no read has used since the
-- review queues got partial indexes of their own (00004): every draft,
-- approval and send wrote five entries in them.
DROP INDEX posts_list_date_idx;
DROP INDEX posts_list_engagement_idx;
DROP INDEX posts_list_likes_idx;
DROP INDEX posts_list_retweets_idx;
DROP INDEX posts_list_replies_idx;

-- +goose Down
CREATE INDEX posts_list_date_idx ON posts (source, status, created_at DESC, id DESC);
CREATE INDEX posts_list_engagement_idx ON posts (source, status, engagement_score DESC, id DESC);
CREATE INDEX posts_list_likes_idx ON posts (source, status, likes_count DESC, id DESC);
CREATE INDEX posts_list_retweets_idx ON posts (source, status, retweets_count DESC, id DESC);
CREATE INDEX posts_list_replies_idx ON posts (source, status, replies_count DESC, id DESC);
DROP TRIGGER posts_send_days_update ON posts;
DROP TRIGGER posts_send_days_insert ON posts;
DROP FUNCTION send_days_count();
DROP TABLE send_days;
DROP TRIGGER blocked_phrases_bump ON blocked_phrases;
DROP TRIGGER blocked_authors_bump ON blocked_authors;
DROP TRIGGER settings_bump ON settings;
DROP FUNCTION settings_version_bump();
DROP TABLE settings_version;
