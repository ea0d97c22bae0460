package pipeline_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform/x"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// spentLedger is a spend ledger that has spent spent.
type spentLedger struct {
	spend.Ledger
	mu    sync.Mutex
	spent spend.Sums
}

func (l *spentLedger) SpendTotals(context.Context, time.Time) (spend.Sums, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent, nil
}

func (l *spentLedger) set(usd float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spent = spend.Sums{XUSD: usd}
}

// metricsStandIn is X's GET /2/tweets for public metrics: every reply has
// as many likes as the reads of it so far, and each read is counted.
type metricsStandIn struct {
	mu    sync.Mutex
	reads map[string]int
}

func (m *metricsStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/2/tweets" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"title":"Not Found Error","detail":"no such path","type":"about:blank"}`)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var data []map[string]any
	for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
		m.reads[id]++
		data = append(data, map[string]any{"id": id, "text": "reply",
			"public_metrics": map[string]int{"like_count": m.reads[id], "retweet_count": 1, "reply_count": 0}})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func (m *metricsStandIn) readsOf(id string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads[id]
}

// A posted reply's metrics are kept about 1 hour, 24 hours and 7 days
// after posting, each snapshot once; the week's is read past the refresh's
// window, and nothing after it. A spent X budget reads nothing and leaves
// a gap in the metrics, closed by the next read.
func TestSnapshotsOnScheduleWithinTheBudget(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	standIn := &metricsStandIn{reads: map[string]int{}}
	srv := httptest.NewServer(standIn)
	t.Cleanup(srv.Close)
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	posted := time.Now().Add(-30 * 24 * time.Hour).Truncate(time.Second)
	id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "x", Source: post.SourceMention, OriginalPostID: "501",
		AuthorUsername: "mortal", CreatedAt: posted.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "The furnace hums.", Category: "wrath"}); err != nil {
		t.Fatal(err)
	}
	approve(t, e.store, e.queue, id)
	if err := e.store.MarkPosted(ctx, id, "9001", posted); err != nil {
		t.Fatal(err)
	}
	ledger := &spentLedger{}
	now := posted
	m := &pipeline.Maintainer{Store: e.store, Platform: c, Queue: e.queue, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return now }, Self: pipeline.NewSelf(c),
		Budget: &spend.Gate{Meter: &spend.Meter{Ledger: ledger, Now: time.Now}, Budgets: spend.Budgets{XDaily: 1}}}
	tests := []struct {
		name      string
		age       time.Duration
		spentUSD  float64
		wantReads int
		wantAges  []int
		wantGap   bool
	}{
		{name: "half an hour", age: 30 * time.Minute, wantReads: 1},
		{name: "an hour", age: time.Hour + time.Minute, wantReads: 2, wantAges: []int{1}},
		{name: "two hours: the hour's kept", age: 2 * time.Hour, wantReads: 3, wantAges: []int{1}},
		{name: "a day, the budget spent", age: 24*time.Hour + time.Minute, spentUSD: 2, wantReads: 3, wantAges: []int{1}, wantGap: true},
		{name: "a day, the budget back", age: 24*time.Hour + 2*time.Minute, wantReads: 4, wantAges: []int{1, 24}},
		{name: "a week and an hour", age: 7*24*time.Hour + time.Hour, wantReads: 5, wantAges: []int{1, 24, 168}},
		{name: "a week and two hours: done", age: 7*24*time.Hour + 2*time.Hour, wantReads: 5, wantAges: []int{1, 24, 168}},
		{name: "nine days", age: 9 * 24 * time.Hour, wantReads: 5, wantAges: []int{1, 24, 168}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = posted.Add(tt.age)
			ledger.set(tt.spentUSD)
			if err := m.RefreshMetrics(ctx, task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
				t.Fatal(err)
			}
			if got := standIn.readsOf("9001"); got != tt.wantReads {
				t.Errorf("%d reads of the reply, want %d", got, tt.wantReads)
			}
			snaps, err := e.store.ReplySnapshots(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(snaps) != len(tt.wantAges) {
				t.Errorf("snapshots %v, want ages %v", snaps, tt.wantAges)
			}
			for _, age := range tt.wantAges {
				if _, ok := snaps[age]; !ok {
					t.Errorf("no %dh snapshot: %v", age, snaps)
				}
			}
			// The hour's snapshot holds the second read's likes, never replaced.
			if s, ok := snaps[1]; ok && s.Likes != 2 {
				t.Errorf("1h snapshot %+v, want the likes of the read at 1h (2)", s)
			}
			in, err := e.store.Insights(ctx, store.InsightsQuery{From: posted.Add(-time.Hour), To: time.Now().Add(time.Hour), TZ: "UTC"})
			if err != nil {
				t.Fatal(err)
			}
			// The insights read the day's snapshot: the likes of the read at 24 hours (4).
			var measured, dayLikes int64
			for _, d := range in.Days {
				measured, dayLikes = measured+d.Measured, dayLikes+d.Likes
			}
			if day := slices.Contains(tt.wantAges, 24); (measured == 1) != day || (day && dayLikes != 4) {
				t.Errorf("insights measured %d replies with %d likes; want the day's snapshot: %v", measured, dayLikes, day)
			}
			open := len(in.Gaps) > 0 && in.Gaps[len(in.Gaps)-1].EndedAt == nil
			if open != tt.wantGap {
				t.Errorf("gaps %+v, want one open: %v", in.Gaps, tt.wantGap)
			}
		})
	}
}
