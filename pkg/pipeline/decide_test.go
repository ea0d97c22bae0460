package pipeline_test

import (
	"context"
	"testing"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// idleQueue takes the work a decision starts and does nothing with it: for
// the tests that run a stage by hand, where reconciliation would pick up
// what Redis never held.
type idleQueue struct{}

func (idleQueue) EnqueueSend(context.Context, int64) error                 { return nil }
func (idleQueue) EnqueueRegenerate(context.Context, int64, string) error   { return nil }
func (idleQueue) EnsureDraft(context.Context, int64, string) (bool, error) { return true, nil }

// decider is the decision path every channel takes, over st and q (nil:
// an idleQueue), for the persona "devil".
func decider(st *store.Store, q decision.Queue) *decision.Decider {
	if q == nil {
		q = idleQueue{}
	}
	return decision.New(st, q, "devil", nil)
}

// approve approves post id as the web admin does, through pkg/decision,
// failing the test when it cannot.
func approve(t testing.TB, st *store.Store, q decision.Queue, id int64) post.Post {
	t.Helper()
	p, err := decider(st, q).Approve(context.Background(), id, decision.Approval{By: post.ByWeb})
	if err != nil {
		t.Fatalf("approve post %d: %v", id, err)
	}
	return p
}
