-- +goose Up
-- language: the mortal's post's language as its platform gave it at intake
-- (X's lang, the first of Bluesky's langs, Mastodon's language; a BCP 47
-- tag such as 'en' or 'pt-BR'), '' when the platform named none. A
-- decision copies it into the post's case (learning_cases.language).
ALTER TABLE posts ADD COLUMN language text NOT NULL DEFAULT '';
-- The sandbox's posts keep their corpus entry's language, which its
-- platform then gives them as the others do.
ALTER TABLE sandbox_posts ADD COLUMN lang text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE sandbox_posts DROP COLUMN lang;
ALTER TABLE posts DROP COLUMN language;
