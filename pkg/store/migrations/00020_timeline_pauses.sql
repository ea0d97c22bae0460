-- +goose Up
-- ops_pause.platform: the platform a pause stops ('x', 'bluesky'): a refusal
-- that concerns a platform's whole account (402, usage cap, suspension)
-- pauses that platform only; '' stops every platform (the operator's pause).
-- At most one pause per platform; a pause in force before keeps stopping
-- every platform.
ALTER TABLE ops_pause ADD COLUMN platform text NOT NULL DEFAULT '';
ALTER TABLE ops_pause DROP COLUMN id;
ALTER TABLE ops_pause ADD PRIMARY KEY (platform);

-- timeline_pauses: the timelines whose scans are paused, in every worker,
-- each until it lapses: a timeline whose request the platform rejects for
-- its shape (a 400 it answers every time) waits a while; a lapsed row is
-- ignored, and deleted on the way.
CREATE TABLE timeline_pauses (
    platform text        NOT NULL,
    -- timeline names the scan's cursor ('mentions', 'search', …).
    timeline text        NOT NULL,
    reason   text        NOT NULL,
    since    timestamptz NOT NULL,
    until    timestamptz NOT NULL,
    PRIMARY KEY (platform, timeline)
);

-- +goose Down
DROP TABLE timeline_pauses;
-- One pause is kept: the every-platform one, else the first platform's.
DELETE FROM ops_pause WHERE platform <> (SELECT min(platform) FROM ops_pause);
ALTER TABLE ops_pause DROP CONSTRAINT ops_pause_pkey;
ALTER TABLE ops_pause DROP COLUMN platform;
ALTER TABLE ops_pause ADD COLUMN id boolean PRIMARY KEY DEFAULT true CHECK (id);
