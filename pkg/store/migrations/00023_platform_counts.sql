-- +goose Up
-- The admin lists filtered by platform and the public figures of
-- each platform count from a table the triggers keep, as post_counts does
-- for every platform together.

-- platform_counts: how many posts there are of each platform, source and
-- status, kept by the triggers below in the transaction of every change.
-- Rows that fall to zero stay (n = 0).
CREATE TABLE platform_counts (
    platform text   NOT NULL,
    source   text   NOT NULL,
    status   text   NOT NULL,
    n        bigint NOT NULL,
    PRIMARY KEY (platform, source, status)
);

-- +goose StatementBegin
CREATE FUNCTION platform_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO platform_counts (platform, source, status, n) VALUES (NEW.platform, NEW.source, NEW.status, 1)
        ON CONFLICT (platform, source, status) DO UPDATE SET n = platform_counts.n + excluded.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO platform_counts (platform, source, status, n) VALUES (OLD.platform, OLD.source, OLD.status, -1)
        ON CONFLICT (platform, source, status) DO UPDATE SET n = platform_counts.n + excluded.n;
    ELSE
        -- Both rows in key order, so two opposite moves never wait for each other in a cycle.
        INSERT INTO platform_counts (platform, source, status, n)
        SELECT * FROM (VALUES (OLD.platform, OLD.source, OLD.status, -1::bigint),
                              (NEW.platform, NEW.source, NEW.status, 1::bigint)) AS v (platform, source, status, n)
        ORDER BY platform, source, status
        ON CONFLICT (platform, source, status) DO UPDATE SET n = platform_counts.n + excluded.n;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Writers wait while the triggers start and the existing rows are counted,
-- so no change falls between the count and the first trigger.
LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER posts_platform_count_rows AFTER INSERT OR DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION platform_counts_keep();
CREATE TRIGGER posts_platform_count_moves AFTER UPDATE OF platform, source, status ON posts
    FOR EACH ROW WHEN (OLD.platform IS DISTINCT FROM NEW.platform OR OLD.source IS DISTINCT FROM NEW.source
                       OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION platform_counts_keep();
INSERT INTO platform_counts (platform, source, status, n)
SELECT platform, source, status, count(*) FROM posts GROUP BY platform, source, status;

-- +goose Down
DROP TRIGGER posts_platform_count_moves ON posts;
DROP TRIGGER posts_platform_count_rows ON posts;
DROP FUNCTION platform_counts_keep();
DROP TABLE platform_counts;
