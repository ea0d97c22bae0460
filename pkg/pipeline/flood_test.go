package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// A flood of mentions from 200 distinct new authors: drafts stop at the
// hour's cap and at the model budget; the rest wait undrafted, none is
// lost, and they are drafted in the order they came, whatever the order
// their tasks run in, as the hours allow.
func TestFloodDraftsAtTheHourlyCapInOrder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	const flood, perHour = 200, 50
	caps := settings.DefaultCaps()
	caps.DraftsPerHour = perHour
	if err := e.store.PutSettings(ctx, settings.Settings{Caps: caps}); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, flood)
	for i := range flood {
		id, created, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention,
			OriginalPostID: fmt.Sprintf("%d", 1900000000000000000+i), ConversationID: fmt.Sprintf("c%d", i),
			OriginalPostText: fmt.Sprintf("@devil is coffee number %d a sin?", i), AuthorUsername: fmt.Sprintf("fresh_%d", i),
			CreatedAt: time.Now()})
		if err != nil || !created {
			t.Fatalf("post %d: %v (created %v)", i, err, created)
		}
		ids[i] = id
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := time.Now()
	d := &pipeline.Drafter{Store: e.store, Writer: offline.New("devil"), Log: log, Handle: "devil",
		Now: func() time.Time { return now }}
	// runAll runs every waiting post's draft task, newest first, as reconcile
	// may queue them, and answers the ids drafted in this run, in id order.
	drafted := map[int64]bool{}
	runAll := func() []int64 {
		t.Helper()
		for _, id := range slices.Backward(ids) {
			if drafted[id] {
				continue
			}
			if err := d.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatalf("DraftPost %d: %v", id, err)
			}
		}
		var out []int64
		for _, id := range ids {
			p, err := e.store.Post(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case p.Status == post.StatusPending && !drafted[id]:
				drafted[id] = true
				out = append(out, id)
			case p.Status != post.StatusPending && p.Status != post.StatusDrafting:
				t.Fatalf("post %d is %s: lost", id, p.Status)
			}
		}
		return out
	}
	wantNext := func(got []int64, from, n int, what string) {
		t.Helper()
		if !slices.Equal(got, ids[from:from+n]) {
			t.Fatalf("%s: drafted %d posts %v…, want the %d from #%d in order", what, len(got), got[:min(len(got), 5)], n, from)
		}
	}
	wantNext(runAll(), 0, perHour, "first hour")
	wantNext(runAll(), 0, 0, "same hour, tasks run again")
	counts := func() (int, int) {
		t.Helper()
		done, waiting, err := e.store.DraftCounts(ctx, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return done, waiting
	}
	if done, waiting := counts(); done != perHour || waiting != flood-perHour {
		t.Errorf("DraftCounts = %d drafted, %d waiting; want %d and %d", done, waiting, perHour, flood-perHour)
	}

	// The next hour, the model budget is spent: nothing is drafted, nothing lost.
	now = now.Add(time.Hour + time.Minute)
	meter := &spend.Meter{Ledger: e.store, Prices: spend.DefaultPrices(), Log: log, Now: time.Now}
	meter.Usage(ctx, "gpt-4o-mini", 100000, 100000)
	d.Budget = &spend.Gate{Meter: meter, Budgets: spend.Budgets{ModelDaily: 0.0001}}
	wantNext(runAll(), 0, 0, "budget spent")

	// The budget raised: the hour's cap again, then the next hours, in order.
	d.Budget = nil
	for hour := 1; hour < flood/perHour; hour++ {
		wantNext(runAll(), hour*perHour, perHour, fmt.Sprintf("hour %d", hour+1))
		now = now.Add(time.Hour + time.Minute)
	}
	if _, waiting := counts(); waiting != 0 || len(drafted) != flood {
		t.Errorf("%d waiting, %d drafted; want none waiting and all %d drafted", waiting, len(drafted), flood)
	}
}
