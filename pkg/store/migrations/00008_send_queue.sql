-- +goose Up
-- Issue 11: the approvals waiting for their first send, in approval order,
-- for the admin's "Waiting to send" list and the send caps' queue position.
-- The order is the one the send caps serve (coalesce covers approvals
-- recorded before approved_at was set).
CREATE INDEX posts_send_queue_idx ON posts ((coalesce(approved_at, updated_at)), id)
    WHERE status = 'approved' AND send_started_at IS NULL;

-- +goose Down
DROP INDEX posts_send_queue_idx;
