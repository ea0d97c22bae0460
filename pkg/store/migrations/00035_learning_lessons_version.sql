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

-- +goose Down
DROP TRIGGER learning_lessons_truncate_bump ON learning_lessons;
DROP TRIGGER learning_lessons_bump ON learning_lessons;
DROP FUNCTION learning_lessons_version_bump();
DROP TABLE learning_lessons_version;
