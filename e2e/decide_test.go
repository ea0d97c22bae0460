package e2e

import (
	"context"
	"testing"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// heldSends is the tasks client with the sends of approvals held back: the
// test enqueues each send itself, once it is ready for it.
type heldSends struct {
	*tasks.Client
}

// EnqueueSend holds the send back.
func (heldSends) EnqueueSend(context.Context, int64) error { return nil }

// approve approves post id as the web admin does, through pkg/decision
// (the version check, the caps, the history), its send held back for the
// test to enqueue.
func approve(t *testing.T, st *store.Store, queue *tasks.Client, id int64) {
	t.Helper()
	if _, err := decision.New(st, heldSends{queue}, persona, nil).Approve(context.Background(), id, decision.Approval{By: post.ByWeb}); err != nil {
		t.Fatalf("approve post %d: %v", id, err)
	}
}
