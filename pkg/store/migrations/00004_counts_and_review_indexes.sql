-- +goose Up
-- Counts and indexes that keep the lists and statistics fast at a million posts.

-- post_counts: how many posts there are of each source, status and category,
-- kept by the triggers below in the transaction of every change, so the
-- statistics and the admin lists' totals read a few rows instead of counting
-- posts. Rows that fall to zero stay (n = 0).
CREATE TABLE post_counts (
    source   text   NOT NULL,
    status   text   NOT NULL,
    category text   NOT NULL,
    n        bigint NOT NULL,
    PRIMARY KEY (source, status, category)
);

-- +goose StatementBegin
CREATE FUNCTION post_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO post_counts (source, status, category, n) VALUES (NEW.source, NEW.status, NEW.category, 1)
        ON CONFLICT (source, status, category) DO UPDATE SET n = post_counts.n + excluded.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO post_counts (source, status, category, n) VALUES (OLD.source, OLD.status, OLD.category, -1)
        ON CONFLICT (source, status, category) DO UPDATE SET n = post_counts.n + excluded.n;
    ELSE
        -- Both rows in key order, so two opposite moves never wait for each other in a cycle.
        INSERT INTO post_counts (source, status, category, n)
        SELECT * FROM (VALUES (OLD.source, OLD.status, OLD.category, -1::bigint),
                              (NEW.source, NEW.status, NEW.category, 1::bigint)) AS v (source, status, category, n)
        ORDER BY source, status, category
        ON CONFLICT (source, status, category) DO UPDATE SET n = post_counts.n + excluded.n;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Writers wait while the triggers start and the existing rows are counted,
-- so no change falls between the count and the first trigger.
LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER posts_count_rows AFTER INSERT OR DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION post_counts_keep();
CREATE TRIGGER posts_count_moves AFTER UPDATE OF source, status, category ON posts
    FOR EACH ROW WHEN (OLD.source IS DISTINCT FROM NEW.source OR OLD.status IS DISTINCT FROM NEW.status
                       OR OLD.category IS DISTINCT FROM NEW.category)
    EXECUTE FUNCTION post_counts_keep();
INSERT INTO post_counts (source, status, category, n)
SELECT source, status, category, count(*) FROM posts GROUP BY source, status, category;

-- The review queues (pending, failed, awaiting hand-posting) in every order of the admin lists:
-- an index over the queue alone returns a page in order, whereas the
-- (source, status, ...) indexes must merge three statuses and sort.
CREATE INDEX posts_queue_date_idx ON posts (source, created_at DESC, id DESC) WHERE status IN ('pending', 'failed', 'awaiting_manual');
CREATE INDEX posts_queue_engagement_idx ON posts (source, engagement_score DESC, id DESC) WHERE status IN ('pending', 'failed', 'awaiting_manual');
CREATE INDEX posts_queue_likes_idx ON posts (source, likes_count DESC, id DESC) WHERE status IN ('pending', 'failed', 'awaiting_manual');
CREATE INDEX posts_queue_retweets_idx ON posts (source, retweets_count DESC, id DESC) WHERE status IN ('pending', 'failed', 'awaiting_manual');
CREATE INDEX posts_queue_replies_idx ON posts (source, replies_count DESC, id DESC) WHERE status IN ('pending', 'failed', 'awaiting_manual');

-- The memorable quotes: posted responses by their engagement.
CREATE INDEX posts_quotes_idx ON posts ((response_likes + 2 * response_retweets + 2 * response_replies) DESC, posted_at DESC)
    WHERE status = 'posted';
-- The mentions of the last 24 hours.
CREATE INDEX posts_mention_created_idx ON posts (created_at) WHERE source = 'mention';

-- The public log's pages, deep ones too, from the index alone.
CREATE INDEX log_threads_page_idx ON log_threads (latest_timestamp DESC, id DESC) INCLUDE (type);
DROP INDEX log_threads_latest_idx;

-- +goose Down
CREATE INDEX log_threads_latest_idx ON log_threads (latest_timestamp DESC, id DESC);
DROP INDEX log_threads_page_idx;
DROP INDEX posts_mention_created_idx;
DROP INDEX posts_quotes_idx;
DROP INDEX posts_queue_replies_idx;
DROP INDEX posts_queue_retweets_idx;
DROP INDEX posts_queue_likes_idx;
DROP INDEX posts_queue_engagement_idx;
DROP INDEX posts_queue_date_idx;
DROP TRIGGER posts_count_moves ON posts;
DROP TRIGGER posts_count_rows ON posts;
DROP FUNCTION post_counts_keep();
DROP TABLE post_counts;
