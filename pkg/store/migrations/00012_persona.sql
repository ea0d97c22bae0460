-- +goose Up
-- The persona as data the operator edits, and a second opinion on every
-- draft.

-- persona_versions: every version of the persona, the newest the one in
-- use. A PUT adds a version; none is ever changed. The first process to
-- start seeds version 1 with the built-in persona (store.SeedPersona).
CREATE TABLE persona_versions (
    version      integer     PRIMARY KEY,
    name         text        NOT NULL DEFAULT '',
    bio          text        NOT NULL DEFAULT '',
    voice        text        NOT NULL,
    examples     text[]      NOT NULL DEFAULT '{}',
    avoid_topics text[]      NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- persona_version: the persona version a post's draft was written in (NULL
-- before versions, or for a draft written with none stored). review_*: the
-- judge's score (1 to 5), one-line reason and name, NULL score while
-- unjudged or when the judge failed. review_waived: the administrator drafted
-- the post anyway after the judge skipped it, so the judge skips it no more.
ALTER TABLE posts
    ADD COLUMN persona_version integer REFERENCES persona_versions (version),
    ADD COLUMN review_score    smallint CHECK (review_score BETWEEN 1 AND 5),
    ADD COLUMN review_reason   text     NOT NULL DEFAULT '',
    ADD COLUMN review_by       text     NOT NULL DEFAULT '',
    ADD COLUMN review_waived   boolean  NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE posts DROP COLUMN persona_version, DROP COLUMN review_score, DROP COLUMN review_reason,
    DROP COLUMN review_by, DROP COLUMN review_waived;
DROP TABLE persona_versions;
