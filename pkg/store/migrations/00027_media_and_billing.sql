-- +goose Up
-- x_billed: X bills each resource once per UTC day, whatever the kind of
-- read it came back in (a mention read as an owned read and looked up the
-- same day is one post read). The X client now names each resource by its
-- class ("post:…", "user:…", "media:…", "created:…"), so one row per day
-- and resource: a second kind of read of it adds nothing.
DELETE FROM x_billed a USING x_billed b
    WHERE a.day = b.day AND a.resource_id = b.resource_id AND a.kind > b.kind;
ALTER TABLE x_billed DROP CONSTRAINT x_billed_pkey;
ALTER TABLE x_billed ADD PRIMARY KEY (day, resource_id);

-- posts and context_posts keep the post's media (at most 4:
-- [{type, url, preview_url, alt}]) and its link card ({url, title,
-- description}, null when none), as the platform returned them.
ALTER TABLE posts ADD COLUMN media jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN link jsonb;
ALTER TABLE context_posts ADD COLUMN media jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN link jsonb;

-- +goose Down
ALTER TABLE context_posts DROP COLUMN link, DROP COLUMN media;
ALTER TABLE posts DROP COLUMN link, DROP COLUMN media;
ALTER TABLE x_billed DROP CONSTRAINT x_billed_pkey;
ALTER TABLE x_billed ADD PRIMARY KEY (day, kind, resource_id);
