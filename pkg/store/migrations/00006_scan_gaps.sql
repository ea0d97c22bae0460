-- +goose Up
-- scan_gaps: stretches of a timeline a bounded scan left unread, between a
-- since_id (the cursor the scan started from; '' for none) and an until_id
-- (the oldest post it read), both exclusive as X's parameters are. Later
-- scans read them until they are closed; nothing newer than the cursor is
-- skipped silently.
CREATE TABLE scan_gaps (
    id         bigserial PRIMARY KEY,
    platform   text        NOT NULL,
    name       text        NOT NULL,
    since_id   text        NOT NULL,
    until_id   text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform, name, since_id)
);

-- scan_skips: what scans left unread rather than spend beyond the read
-- budget, and gaps given up as unreadable, per timeline, for the admin.
CREATE TABLE scan_skips (
    platform      text        NOT NULL,
    name          text        NOT NULL,
    skipped_reads bigint      NOT NULL DEFAULT 0 CHECK (skipped_reads >= 0),
    dropped_gaps  bigint      NOT NULL DEFAULT 0 CHECK (dropped_gaps >= 0),
    last_reason   text        NOT NULL DEFAULT '',
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, name)
);

-- +goose Down
DROP TABLE scan_skips;
DROP TABLE scan_gaps;
