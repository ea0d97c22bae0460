-- +goose Up
-- learning_lessons_version: moved on by the trigger below in the transaction
-- of every change to what a prompt takes of the lessons (a lesson added,
-- edited, confirmed, enabled or disabled, deleted), so that a worker keeps
-- the enabled lessons it read and reads them again only when the number
-- has moved: one tiny row per draft instead of a thousand. Counting a use
-- (used_count, last_used_at), which every draft does, does not move it.
CREATE TABLE learning_lessons_version (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint  NOT NULL
);
INSERT INTO learning_lessons_version (id, version) VALUES (true, 1);

-- +goose StatementBegin
CREATE FUNCTION learning_lessons_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE learning_lessons_version SET version = version + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER learning_lessons_bump
    AFTER INSERT OR DELETE OR UPDATE OF text, kind, source_case_ids, count, enabled, created_at ON learning_lessons
    FOR EACH STATEMENT EXECUTE FUNCTION learning_lessons_version_bump();
CREATE TRIGGER learning_lessons_truncate_bump AFTER TRUNCATE ON learning_lessons
    FOR EACH STATEMENT EXECUTE FUNCTION learning_lessons_version_bump();

-- Every draft counts a use of its examples and lessons (used_count,
-- last_used_at): with room left on each page, that update stays on the
-- page and is HOT, so it writes no entry into the GIN indexes (text
-- search, trigrams) of a row whose texts did not change; on a full page
-- it wrote about a hundred trigram entries per case, and their pending
-- list's periodic merge stalled a draft now and then.
ALTER TABLE learning_cases SET (fillfactor = 90);
ALTER TABLE learning_lessons SET (fillfactor = 90);

-- +goose Down
ALTER TABLE learning_lessons RESET (fillfactor);
ALTER TABLE learning_cases RESET (fillfactor);
DROP TRIGGER learning_lessons_truncate_bump ON learning_lessons;
DROP TRIGGER learning_lessons_bump ON learning_lessons;
DROP FUNCTION learning_lessons_version_bump();
DROP TABLE learning_lessons_version;
