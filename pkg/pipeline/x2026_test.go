package pipeline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// scanAll runs every scan once.
func (e *env) scanAll(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := e.pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if err := e.pipe.Scanner.ScanTargeted(ctx, task(tasks.TypeScanTargeted, struct{}{})); err != nil {
		t.Fatal(err)
	}
}

// recorded returns the routes of the posts recorded, by source.
func (e *env) recorded(t *testing.T) map[post.Source][]post.Route {
	t.Helper()
	ctx := context.Background()
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[post.Source][]post.Route{}
	for _, id := range ids {
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out[p.Source] = append(out[p.Source], p.ReplyRoute)
	}
	return out
}

// Eligibility is decided before drafting: under the 2026 rule only the
// mentions go through the API; conversations and targeted posts are drafted
// for hand-posting when their source asks for it, else not recorded at all.
func TestScanDecidesTheReplyRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy platform.ReplyPolicy
		hand   []post.Source
		want   map[post.Source]post.Route
	}{
		{name: "summoned, hand-posting conversations and targeted", policy: platform.ReplySummoned,
			hand: []post.Source{post.SourceConversation, post.SourceTargeted},
			want: map[post.Source]post.Route{post.SourceMention: post.RouteAPI, post.SourceConversation: post.RouteManual, post.SourceTargeted: post.RouteManual}},
		{name: "summoned, no hand-posting", policy: platform.ReplySummoned, hand: nil,
			want: map[post.Source]post.Route{post.SourceMention: post.RouteAPI}},
		{name: "open policy answers everything through the API", policy: platform.ReplyOpen, hand: nil,
			want: map[post.Source]post.Route{post.SourceMention: post.RouteAPI, post.SourceConversation: post.RouteAPI, post.SourceTargeted: post.RouteAPI}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			e.pipe.Scanner.Policy, e.pipe.Scanner.HandPosting = tt.policy, tt.hand
			e.scanAll(t)
			got := e.recorded(t)
			if len(got) != len(tt.want) {
				t.Errorf("sources recorded %v, want %v", got, tt.want)
			}
			for src, route := range tt.want {
				if len(got[src]) == 0 {
					t.Errorf("no %s post recorded", src)
				}
				for _, r := range got[src] {
					if r != route {
						t.Errorf("%s post routed %q, want %q", src, r, route)
					}
				}
			}
		})
	}
}

// draftedConversation scans, drafts and returns a hand-posting conversation post.
func (e *env) draftedConversation(t *testing.T) post.Post {
	t.Helper()
	ctx := context.Background()
	e.scanAll(t)
	ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != post.SourceConversation {
			continue
		}
		if err := e.pipe.Drafter.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
			t.Fatal(err)
		}
		p, err = e.store.Post(ctx, id)
		if err != nil || p.Status != post.StatusPending || p.ReplyRoute != post.RouteManual {
			t.Fatalf("drafted conversation: %+v %v", p, err)
		}
		return p
	}
	t.Fatal("no conversation post found")
	return post.Post{}
}

// The hand-posting flow: approval moves the post to awaiting_manual, no API
// reply is attempted, and the reply posted by hand is found on the persona's
// timeline by the metrics job, which marks the post posted once, with the
// real reply id, in the statistics and the public log.
func TestHandPostingFlow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	// Every refresh may look: the interval between looks is tested on its own.
	e.pipe.Maintainer.HandPostedEvery = time.Millisecond
	p := e.draftedConversation(t)
	approved, err := decider(e.store, e.queue).Approve(ctx, p.ID, decision.Approval{By: post.ByWeb})
	if err != nil || approved.Status != post.StatusAwaitingManual {
		t.Fatalf("approve: %s %v, want awaiting_manual", approved.Status, err)
	}
	// A send task that arrives anyway sends nothing.
	if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: p.ID})); err != nil {
		t.Fatal(err)
	}
	if n := e.plat.published.Load(); n != 0 {
		t.Fatalf("%d API replies attempted, want none", n)
	}
	refresh := func() {
		t.Helper()
		time.Sleep(5 * time.Millisecond)
		if err := e.pipe.Maintainer.RefreshMetrics(ctx, task(tasks.TypeRefreshMetrics, struct{}{})); err != nil {
			t.Fatal(err)
		}
	}
	refresh()
	if got, _ := e.store.Post(ctx, p.ID); got.Status != post.StatusAwaitingManual {
		t.Fatalf("before the admin posts, the post is %s", got.Status)
	}
	// The admin posts it by hand: X's web site is not bound by the API's rule.
	web, err := sandbox.New(e.store.Pool(), "devil", time.Hour, entries, time.Now, sandbox.WithReplyPolicy(platform.ReplyOpen))
	if err != nil {
		t.Fatal(err)
	}
	reply, err := web.Publish(ctx, approved.ProposedResponse, p.OriginalPostID)
	if err != nil {
		t.Fatal(err)
	}
	refresh()
	refresh()
	got, err := e.store.Post(ctx, p.ID)
	if err != nil || got.Status != post.StatusPosted || got.ResponsePostID != reply.ID {
		t.Fatalf("after the refresh: %s %q %v, want posted as %s", got.Status, got.ResponsePostID, err, reply.ID)
	}
	stats, err := e.store.AdminStats(ctx)
	if err != nil || stats.Posted != 1 {
		t.Errorf("posted count %d %v, want 1", stats.Posted, err)
	}
	threads, _, err := e.store.Logs(ctx, 0, 15)
	if err != nil || len(threads) != 1 || len(threads[0].Messages) != 1 {
		t.Fatalf("public log %+v %v, want one thread with one exchange", threads, err)
	}
}

// The admin can mark a hand-posted reply posted, or give it up.
func TestMarkPostedAndGiveUp(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	p := e.draftedConversation(t)
	if _, err := decider(e.store, e.queue).MarkPosted(ctx, p.ID, "", time.Now(), nil, post.ByWeb); !errorsIsConflict(err) {
		t.Fatalf("mark posted while pending: %v, want a conflict", err)
	}
	approve(t, e.store, e.queue, p.ID)
	marked, err := decider(e.store, e.queue).MarkPosted(ctx, p.ID, "", time.Now(), nil, post.ByWeb)
	if err != nil || marked.Status != post.StatusPosted || marked.ResponsePostID != "" {
		t.Fatalf("mark posted: %+v %v", marked, err)
	}
	if _, err := decider(e.store, e.queue).GiveUp(ctx, p.ID, "too late", nil, post.ByWeb); !errorsIsConflict(err) {
		t.Fatalf("give up a posted post: %v, want a conflict", err)
	}
}

func errorsIsConflict(err error) bool {
	return errors.Is(err, store.ErrConflict)
}

// A 403 reply-not-allowed on an API send moves the post to hand-posting,
// and the account-wide refusals pause scanning and sending on that platform
// (only) until resumed.
func TestNamedRefusalsOnSend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fail       error
		wantStatus post.Status
		wantError  string
		wantPause  bool
	}{
		{name: "reply not allowed", fail: &platform.Error{Status: 403, Title: "Forbidden", Detail: platform.ReplyNotAllowedDetail},
			wantStatus: post.StatusAwaitingManual, wantError: "post it by hand"},
		{name: "original deleted", fail: &platform.Error{Status: 403, Title: "Forbidden", Detail: "You attempted to reply to a Tweet that is deleted or not visible to you."},
			wantStatus: post.StatusFailed, wantError: "deleted or is not visible"},
		{name: "out of credits", fail: &platform.Error{Status: 402, Title: "CreditsDepleted", Detail: "no credits"},
			wantStatus: post.StatusApproved, wantError: "credits ran out", wantPause: true},
		{name: "usage capped", fail: &platform.Error{Status: 429, Title: "UsageCapExceeded", Type: "https://api.twitter.com/2/problems/usage-capped", RetryAt: time.Now().Add(time.Hour)},
			wantStatus: post.StatusApproved, wantError: "usage cap", wantPause: true},
		{name: "suspended", fail: &platform.Error{Status: 403, Title: "Forbidden", Detail: "Your account is suspended and is not permitted to access this feature."},
			wantStatus: post.StatusApproved, wantError: "suspended", wantPause: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			id := e.approvedMention(t)
			e.plat.err.Store(&tt.fail)
			// Never retried: the handler returns no error for asynq to retry.
			if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatalf("SendPost: %v, want no retry", err)
			}
			p, _ := e.store.Post(ctx, id)
			if p.Status != tt.wantStatus || !strings.Contains(p.Error, tt.wantError) {
				t.Fatalf("post is %s with %q, want %s with %q", p.Status, p.Error, tt.wantStatus, tt.wantError)
			}
			name := e.pipe.Sender.Platform.Name()
			pause, err := e.store.ActivePause(ctx, name, time.Now())
			if err != nil || (pause != nil) != tt.wantPause {
				t.Fatalf("pause %+v %v, want paused %v", pause, err, tt.wantPause)
			}
			if !tt.wantPause {
				return
			}
			if pause.Platform != name {
				t.Errorf("paused platform %q, want %q", pause.Platform, name)
			}
			if other, err := e.store.ActivePause(ctx, "another", time.Now()); err != nil || other != nil {
				t.Errorf("another platform: pause %+v %v, want none", other, err)
			}
			// Paused: the fault is gone, yet nothing is sent or scanned.
			e.plat.err.Store(nil)
			if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			searches := e.plat.searches.Load()
			if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
				t.Fatal(err)
			}
			if n := e.plat.published.Load(); n != 0 || e.plat.searches.Load() != searches {
				t.Fatalf("while paused: %d sent, %d searches", n, e.plat.searches.Load()-searches)
			}
			// The admin resumes: the approved post goes out.
			if lifted, err := e.store.Resume(ctx); err != nil || !lifted {
				t.Fatalf("resume: %v %v", lifted, err)
			}
			if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			if p, _ := e.store.Post(ctx, id); p.Status != post.StatusPosted || e.plat.published.Load() != 1 {
				t.Fatalf("after resuming the post is %s, sent %d times", p.Status, e.plat.published.Load())
			}
		})
	}
}

// A pause that names when it lifts (the usage cap's reset) lifts by itself.
func TestPauseLiftsAtItsEnd(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	if err := e.store.SetPause(ctx, store.Pause{Refusal: "usage_capped", Reason: "cap", Until: &until}); err != nil {
		t.Fatal(err)
	}
	if p, err := e.store.ActivePause(ctx, "x", time.Now()); err != nil || p == nil {
		t.Fatalf("pause %v %v, want one", p, err)
	}
	if p, err := e.store.ActivePause(ctx, "x", until.Add(time.Second)); err != nil || p != nil {
		t.Fatalf("after its end: pause %v %v, want none", p, err)
	}
}

// A budget of a few cents pauses scanning at the ceiling, and holds back a
// send that would not fit.
func TestBudgetStopsScansAndSends(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.approvedMention(t)
	meter := &spend.Meter{Ledger: e.store, Prices: spend.DefaultPrices(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now}
	budget := &spend.Gate{Meter: meter, Budgets: spend.Budgets{XDaily: 0.03}}
	e.pipe.Scanner.Budget, e.pipe.Sender.Budget = budget, budget
	// Five post reads: $0.025 of $0.03. A scan goes on; a summoned reply of $0.010 does not fit.
	meter.Bill(ctx, "GET /2/tweets/search/recent", []spend.Resources{{Kind: spend.KindPostRead, IDs: []string{"1", "2", "3", "4", "5"}}})
	if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if n := e.plat.searches.Load(); n != 1 {
		t.Fatalf("under the ceiling the scan searched %d times, want 1", n)
	}
	if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.store.Post(ctx, id); p.Status != post.StatusApproved || e.plat.published.Load() != 0 {
		t.Fatalf("a send over the budget: %s, sent %d", p.Status, e.plat.published.Load())
	}
	// One more: $0.03, the ceiling. Scans stop.
	meter.Bill(ctx, "GET /2/tweets/search/recent", []spend.Resources{{Kind: spend.KindPostRead, IDs: []string{"6"}}})
	if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if n := e.plat.searches.Load(); n != 1 {
		t.Fatalf("at the ceiling the scan searched again (%d searches)", n)
	}
}

// Retries after a rate limit are spread past the reset, never bunched at it.
func TestRetryDelaySpreads(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(10 * time.Minute)
	seen := map[time.Duration]bool{}
	for range 20 {
		d := pipeline.RetryDelay(1, &platform.Error{Status: 429, RetryAt: reset}, nil)
		if d < time.Until(reset) {
			t.Fatalf("RetryDelay %s comes before the reset", d)
		}
		seen[d.Round(time.Second)] = true
	}
	if len(seen) < 3 {
		t.Errorf("20 retries fell on %d distinct seconds, want them spread", len(seen))
	}
}

// A pause stops the scans and sends of its own platform, and the
// every-platform pause (the operator's) those of all; another platform's
// pause stops nothing here.
func TestPauseByPlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		platform   func(e *env) string
		wantPaused bool
	}{
		{name: "another platform", platform: func(*env) string { return "another" }},
		{name: "this platform", platform: func(e *env) string { return e.pipe.Sender.Platform.Name() }, wantPaused: true},
		{name: "every platform", platform: func(*env) string { return "" }, wantPaused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			id := e.approvedMention(t)
			if err := e.store.SetPause(ctx, store.Pause{Platform: tt.platform(e), Refusal: "out_of_credits", Reason: "credits ran out"}); err != nil {
				t.Fatal(err)
			}
			searches := e.plat.searches.Load()
			if err := e.pipe.Scanner.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
				t.Fatal(err)
			}
			if err := e.pipe.Sender.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			scanned, sent := e.plat.searches.Load() > searches, e.plat.published.Load() > 0
			if scanned == tt.wantPaused || sent == tt.wantPaused {
				t.Errorf("scanned %v, sent %v; want both %v", scanned, sent, !tt.wantPaused)
			}
		})
	}
}
