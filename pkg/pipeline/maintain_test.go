package pipeline_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/tasks"
)

func TestRefreshMetrics(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Maintainer.RefreshMetrics(ctx, task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
		t.Fatal(err)
	}
	eng, err := e.store.LatestEngagement(ctx)
	if err != nil || eng.WindowStart == nil {
		t.Fatalf("no engagement recorded: %+v %v", eng, err)
	}
	if d := time.Since(*eng.WindowStart); d < 23*time.Hour || d > 25*time.Hour {
		t.Errorf("window starts %s ago, want 24h", d)
	}
}
