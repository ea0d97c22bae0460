-- +goose Up
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
