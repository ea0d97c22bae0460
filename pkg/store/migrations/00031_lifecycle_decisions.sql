-- +goose Up
-- The administrator's other decisions on a post are kept in its history
-- too: draft_anyway (a skipped post drafted after all), mark_posted (a
-- reply posted by hand) and give_up (a reply awaiting hand-posting
-- rejected), each through pkg/decision like approve and reject.
ALTER TABLE post_decisions DROP CONSTRAINT post_decisions_action_check;
ALTER TABLE post_decisions ADD CONSTRAINT post_decisions_action_check
    CHECK (action IN ('approve', 'reject', 'edit', 'regenerate', 'cancel', 'draft_anyway', 'mark_posted', 'give_up'));

-- +goose Down
DELETE FROM post_decisions WHERE action IN ('draft_anyway', 'mark_posted', 'give_up');
ALTER TABLE post_decisions DROP CONSTRAINT post_decisions_action_check;
ALTER TABLE post_decisions ADD CONSTRAINT post_decisions_action_check
    CHECK (action IN ('approve', 'reject', 'edit', 'regenerate', 'cancel'));
