package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The funnel tells the autopilot's approvals by their last approval's
// channel: one approved by the autopilot, one by the administrator, and
// one the autopilot approved, then the administrator cancelled and approved.
func TestInsightsCountTheAutopilot(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	approve := func(n int, by ...post.Channel) {
		t.Helper()
		id, _, err := st.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: fmt.Sprint(900 + n),
			ConversationID: fmt.Sprint("c", n), OriginalPostText: "hi", AuthorUsername: fmt.Sprint("m", n), CreatedAt: time.Now().Add(-time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SaveDraft(ctx, id, store.Draft{Response: "burn", Category: "wrath"}); err != nil {
			t.Fatal(err)
		}
		for i, b := range by {
			if i > 0 {
				if _, err := st.CancelAutoApproval(ctx, id, post.ByWeb); err != nil {
					t.Fatal(err)
				}
			}
			a := store.Approval{By: b}
			if b == post.ByAutopilot {
				// An auto-approval waits out its grace window, cancellable.
				a.Auto = &store.Auto{Grace: time.Minute, MaxPerHour: 100}
			}
			if _, err := st.ApproveWith(ctx, id, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	approve(1, post.ByAutopilot)
	approve(2, post.ByWeb)
	approve(3, post.ByAutopilot, post.ByWeb)
	in, err := st.Insights(ctx, store.InsightsQuery{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour), TZ: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	var approved, autopilot int64
	for _, f := range in.Fates {
		if f.Approved {
			approved += f.N
			autopilot += f.Autopilot
		}
	}
	if approved != 3 || autopilot != 1 {
		t.Errorf("approved %d, by the autopilot %d; want 3 and 1 (fates %+v)", approved, autopilot, in.Fates)
	}
}
