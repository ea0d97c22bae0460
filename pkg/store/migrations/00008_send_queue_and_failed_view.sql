-- +goose Up
-- The approvals waiting for their first send, in approval order,
-- for the admin's "Waiting to send" list and the send caps' queue position.
-- The order is the one the send caps serve (coalesce covers approvals
-- recorded before approved_at was set).
CREATE INDEX posts_send_queue_idx ON posts ((coalesce(approved_at, updated_at)), id)
    WHERE status = 'approved' AND send_started_at IS NULL;

-- The Skipped view lists failed posts too: "Skipped and failed".
DROP INDEX posts_skipped_date_idx;
DROP INDEX posts_skipped_engagement_idx;
DROP INDEX posts_skipped_likes_idx;
DROP INDEX posts_skipped_retweets_idx;
DROP INDEX posts_skipped_replies_idx;
CREATE INDEX posts_skipped_failed_date_idx ON posts (created_at DESC, id DESC) WHERE status IN ('skipped', 'failed');
CREATE INDEX posts_skipped_failed_engagement_idx ON posts (engagement_score DESC, id DESC) WHERE status IN ('skipped', 'failed');
CREATE INDEX posts_skipped_failed_likes_idx ON posts (likes_count DESC, id DESC) WHERE status IN ('skipped', 'failed');
CREATE INDEX posts_skipped_failed_retweets_idx ON posts (retweets_count DESC, id DESC) WHERE status IN ('skipped', 'failed');
CREATE INDEX posts_skipped_failed_replies_idx ON posts (replies_count DESC, id DESC) WHERE status IN ('skipped', 'failed');

-- +goose Down
DROP INDEX posts_skipped_failed_replies_idx;
DROP INDEX posts_skipped_failed_retweets_idx;
DROP INDEX posts_skipped_failed_likes_idx;
DROP INDEX posts_skipped_failed_engagement_idx;
DROP INDEX posts_skipped_failed_date_idx;
CREATE INDEX posts_skipped_date_idx ON posts (created_at DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_engagement_idx ON posts (engagement_score DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_likes_idx ON posts (likes_count DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_retweets_idx ON posts (retweets_count DESC, id DESC) WHERE status = 'skipped';
CREATE INDEX posts_skipped_replies_idx ON posts (replies_count DESC, id DESC) WHERE status = 'skipped';
DROP INDEX posts_send_queue_idx;
