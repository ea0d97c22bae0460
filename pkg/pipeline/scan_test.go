package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

func TestScansAreIdempotentAndSkipUnknownTargets(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		for typ, h := range map[string]func(context.Context, *asynq.Task) error{
			tasks.TypeScanMentions: e.pipe.Scanner.ScanMentions, tasks.TypeScanConversations: e.pipe.Scanner.ScanConversations,
			tasks.TypeScanTargeted: e.pipe.Scanner.ScanTargeted,
		} {
			if err := h(ctx, task(typ, struct{}{})); err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
	}
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's opening burst of 12 posts, each recorded once however often it is read.
	if len(ids) != 12 {
		t.Errorf("%d posts recorded, want 12", len(ids))
	}
	seen := map[post.Source]bool{}
	for _, id := range ids {
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seen[p.Source] = true
	}
	for _, src := range []post.Source{post.SourceMention, post.SourceConversation, post.SourceTargeted} {
		if !seen[src] {
			t.Errorf("no %s post recorded", src)
		}
	}
	cursor, err := e.store.Cursor(ctx, "sandbox", "mentions")
	if err != nil || cursor == "" {
		t.Errorf("mentions cursor not kept: %q %v", cursor, err)
	}
}
