-- +goose Up
-- send_after: an auto-approved post is not sent before it (its grace
-- window, in which the administrator may cancel); NULL for a human approval.
ALTER TABLE posts ADD COLUMN send_after timestamptz;

-- autopilot: the administrator's autopilot rules (settings.Autopilot as
-- JSON); '{}' is the default, which is off.
ALTER TABLE settings ADD COLUMN autopilot jsonb NOT NULL DEFAULT '{}';

-- The autopilot counts its approvals of the last hour.
CREATE INDEX post_decisions_autopilot_idx ON post_decisions (at) WHERE by = 'autopilot' AND action = 'approve';

-- +goose Down
DROP INDEX post_decisions_autopilot_idx;
ALTER TABLE settings DROP COLUMN autopilot;
ALTER TABLE posts DROP COLUMN send_after;
