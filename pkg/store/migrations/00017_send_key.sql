-- +goose Up
-- A Bluesky reply is written under a record key (a TID) chosen once
-- and stored here before its first attempt, so that a retry after a crash
-- writes the same key (putRecord with swapRecord null answers an identical
-- resend with the same post). NULL until a send that uses keys begins; X and
-- the sandbox never set it.
ALTER TABLE posts ADD COLUMN send_key text;

-- +goose Down
ALTER TABLE posts DROP COLUMN send_key;
