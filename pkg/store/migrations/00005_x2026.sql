-- +goose Up
-- X's 2026 rules: reply eligibility and hand-posting, account-wide pauses,
-- and the spend meter.

-- reply_route: how an approved reply goes out: 'api', or 'manual' (posted by
-- hand through X's web intent, since the API may not reply to the post);
-- NULL for a profile post. Posts found before the rule keep the API route.
ALTER TABLE posts ADD COLUMN reply_route text CHECK (reply_route IN ('api', 'manual'));
UPDATE posts SET reply_route = 'api' WHERE source <> 'profile';
-- awaiting_manual: approved for hand-posting, waiting to be found posted.
ALTER TABLE posts DROP CONSTRAINT posts_status_check;
ALTER TABLE posts ADD CONSTRAINT posts_status_check
    CHECK (status IN ('drafting', 'pending', 'approved', 'awaiting_manual', 'posted', 'rejected', 'failed'));

-- ops_pause: at most one account-wide pause of scanning and sending (402
-- out of credits, usage cap, suspension), until the admin resumes or, when
-- until is set, until then.
CREATE TABLE ops_pause (
    id      boolean     PRIMARY KEY DEFAULT true CHECK (id),
    refusal text        NOT NULL,
    reason  text        NOT NULL,
    since   timestamptz NOT NULL DEFAULT now(),
    until   timestamptz
);

-- x_calls: every billable call to X, with what it was billed for.
CREATE TABLE x_calls (
    id        bigserial   PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    day       date        NOT NULL,
    endpoint  text        NOT NULL,
    kind      text        NOT NULL,
    -- resources counts the resources newly billed on day (X bills each once per UTC day).
    resources integer     NOT NULL DEFAULT 0 CHECK (resources >= 0),
    usd       numeric(14, 6) NOT NULL DEFAULT 0 CHECK (usd >= 0)
);
CREATE INDEX x_calls_day_idx ON x_calls (day, endpoint);

-- x_billed: the resources billed on each UTC day, so that a second read the
-- same day costs nothing.
CREATE TABLE x_billed (
    day         date NOT NULL,
    kind        text NOT NULL,
    resource_id text NOT NULL,
    PRIMARY KEY (day, kind, resource_id)
);

-- model_usage: the tokens each answer of the model used, and their price.
CREATE TABLE model_usage (
    id                bigserial   PRIMARY KEY,
    at                timestamptz NOT NULL DEFAULT now(),
    day               date        NOT NULL,
    model             text        NOT NULL,
    prompt_tokens     integer     NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens integer     NOT NULL CHECK (completion_tokens >= 0),
    usd               numeric(14, 6) NOT NULL DEFAULT 0 CHECK (usd >= 0)
);
CREATE INDEX model_usage_day_idx ON model_usage (day, model);

-- +goose Down
DROP TABLE model_usage;
DROP TABLE x_billed;
DROP TABLE x_calls;
DROP TABLE ops_pause;
UPDATE posts SET status = 'failed', error = 'hand-posting was undone by a migration' WHERE status = 'awaiting_manual';
ALTER TABLE posts DROP CONSTRAINT posts_status_check;
ALTER TABLE posts ADD CONSTRAINT posts_status_check
    CHECK (status IN ('drafting', 'pending', 'approved', 'posted', 'rejected', 'failed'));
ALTER TABLE posts DROP COLUMN reply_route;
