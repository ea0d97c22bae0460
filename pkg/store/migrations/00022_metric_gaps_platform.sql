-- +goose Up
-- metric_gaps.platform: the platform whose replies' metrics could not be
-- read; '' for a gap recorded before gaps were kept per platform. Each
-- platform has at most one open gap, so a platform read well does not end
-- another's gap.
ALTER TABLE metric_gaps ADD COLUMN platform text NOT NULL DEFAULT '';
DROP INDEX metric_gaps_open_idx;
CREATE UNIQUE INDEX metric_gaps_open_idx ON metric_gaps (platform) WHERE ended_at IS NULL;

-- +goose Down
-- One open gap again: the latest open one of each platform but one is ended.
UPDATE metric_gaps SET ended_at = started_at
	WHERE ended_at IS NULL AND started_at < (SELECT max(started_at) FROM metric_gaps WHERE ended_at IS NULL);
DROP INDEX metric_gaps_open_idx;
CREATE UNIQUE INDEX metric_gaps_open_idx ON metric_gaps ((true)) WHERE ended_at IS NULL;
ALTER TABLE metric_gaps DROP COLUMN platform;
