-- +goose Up
-- A renamed administrator's old account is disabled rather than deleted, so
-- that its name cannot sign in again and the change stays visible.
ALTER TABLE admins ADD COLUMN disabled_at timestamptz;
-- Revoking every session of one admin looks its sessions up by admin.
CREATE INDEX sessions_admin_idx ON sessions (admin_id);

-- +goose Down
DROP INDEX sessions_admin_idx;
ALTER TABLE admins DROP COLUMN disabled_at;
