package decision_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// queue records the work decisions hand to the workers; down makes every
// call fail, as a Redis that is unreachable.
type queue struct {
	calls []string
	down  bool
}

func (q *queue) record(format string, args ...any) error {
	q.calls = append(q.calls, fmt.Sprintf(format, args...))
	if q.down {
		return errors.New("redis: connection refused")
	}
	return nil
}

func (q *queue) EnqueueSend(_ context.Context, id int64) error { return q.record("send %d", id) }
func (q *queue) EnqueueRegenerate(_ context.Context, id int64, instruction string) error {
	return q.record("regenerate %d %q", id, instruction)
}
func (q *queue) EnsureDraft(_ context.Context, id int64, platform string) (bool, error) {
	return !q.down, q.record("draft %d %s", id, platform)
}

// env is a store on a fresh database and a Decider over it.
type env struct {
	st     *store.Store
	queue  *queue
	decide *decision.Decider
	n      int
}

func setup(t *testing.T) *env {
	t.Helper()
	st := storetest.New(t)
	q := &queue{}
	return &env{st: st, queue: q, decide: decision.New(st, q, "devil", slog.New(slog.NewTextHandler(io.Discard, nil)))}
}

// found records a new mention on platform, in drafting, replied to through route.
func (e *env) found(t *testing.T, platform string, route post.Route) int64 {
	t.Helper()
	e.n++
	id, _, err := e.st.UpsertFound(context.Background(), post.Post{Platform: platform, Source: post.SourceMention, ReplyRoute: route,
		OriginalPostID: fmt.Sprint(1000 + e.n), ConversationID: fmt.Sprint(1000 + e.n), OriginalPostText: "is monday a sin?",
		AuthorUsername: fmt.Sprintf("mortal%d", e.n), CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// pending is a drafted post awaiting review.
func (e *env) pending(t *testing.T, route post.Route) int64 {
	t.Helper()
	id := e.found(t, post.XPlatform, route)
	if err := e.st.SaveDraft(context.Background(), id, store.Draft{Response: "every day is a sin, mortal", Category: "sloth"}); err != nil {
		t.Fatal(err)
	}
	return id
}

// skipped is a post a guard skipped before drafting (draft version 0).
func (e *env) skipped(t *testing.T, platform string) int64 {
	t.Helper()
	id := e.found(t, platform, post.RouteAPI)
	if err := e.st.Skip(context.Background(), id, "own post"); err != nil {
		t.Fatal(err)
	}
	return id
}

// judged is a post whose draft the judge scored too low (draft version 1).
func (e *env) judged(t *testing.T) int64 {
	t.Helper()
	id := e.found(t, post.XPlatform, post.RouteAPI)
	if err := e.st.SkipDraft(context.Background(), id, store.Draft{Response: "meh", Category: "sloth",
		Review: &post.Review{Score: 1, Reason: "flat", By: "judge"}}, "second opinion: 1/5"); err != nil {
		t.Fatal(err)
	}
	return id
}

// awaiting is a post approved for hand-posting.
func (e *env) awaiting(t *testing.T) int64 {
	t.Helper()
	id := e.pending(t, post.RouteManual)
	p, err := e.decide.Approve(context.Background(), id, decision.Approval{By: post.ByWeb})
	if err != nil || p.Status != post.StatusAwaitingManual {
		t.Fatalf("approve for hand-posting: %s %v", p.Status, err)
	}
	return id
}

// posted is a hand-posted reply marked posted.
func (e *env) posted(t *testing.T) int64 {
	t.Helper()
	id := e.awaiting(t)
	if _, err := e.decide.MarkPosted(context.Background(), id, "", time.Now(), nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) post(t *testing.T, id int64) post.Post {
	t.Helper()
	p, err := e.st.Post(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *env) history(t *testing.T, id int64) []post.Decision {
	t.Helper()
	ds, err := e.st.Decisions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func ptr[T any](v T) *T { return &v }

// Draft anyway, mark posted and give up are decisions: each moves the
// post from its one status, on the draft version shown, and is kept in the
// history with its channel; a post elsewhere is a conflict, a stale
// version a *post.VersionError, an unknown post ErrNotFound, and none of
// them changes the post or its history.
func TestLifecycleDecisions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	draftAnyway := func(id int64, shown *int, by post.Channel) (post.Post, error) {
		return e.decide.DraftAnyway(ctx, id, shown, by)
	}
	markPosted := func(id int64, shown *int, by post.Channel) (post.Post, error) {
		return e.decide.MarkPosted(ctx, id, "1790000000000000001", time.Now(), shown, by)
	}
	giveUp := func(id int64, shown *int, by post.Channel) (post.Post, error) {
		return e.decide.GiveUp(ctx, id, "the thread is gone", shown, by)
	}
	var stateErr *post.StateError
	var versionErr *post.VersionError
	isState := func(have post.Status) func(error) bool {
		return func(err error) bool {
			return errors.As(err, &stateErr) && stateErr.Have == have && errors.Is(err, store.ErrConflict)
		}
	}
	isStale := func(err error) bool { return errors.As(err, &versionErr) && errors.Is(err, store.ErrConflict) }
	tests := []struct {
		name string
		post func(t *testing.T) int64
		// shown is the version decided on, from the post's current one; nil: none named.
		shown      func(current int) *int
		by         post.Channel
		do         func(id int64, shown *int, by post.Channel) (post.Post, error)
		wantStatus post.Status
		wantAction post.Action
		wantErr    func(error) bool
	}{
		{name: "draft anyway a post a guard skipped", post: func(t *testing.T) int64 { return e.skipped(t, post.XPlatform) },
			by: post.ByWeb, do: draftAnyway, wantStatus: post.StatusDrafting, wantAction: post.ActionDraftAnyway},
		{name: "draft anyway on the version shown", post: e.judged, shown: func(v int) *int { return ptr(v) },
			by: post.ByWeb, do: draftAnyway, wantStatus: post.StatusDrafting, wantAction: post.ActionDraftAnyway},
		{name: "draft anyway a bluesky post, the channel kept", post: func(t *testing.T) int64 { return e.skipped(t, post.BlueskyPlatform) },
			by: post.ByTelegram, do: draftAnyway, wantStatus: post.StatusDrafting, wantAction: post.ActionDraftAnyway},
		{name: "draft anyway a pending post", post: func(t *testing.T) int64 { return e.pending(t, post.RouteAPI) },
			by: post.ByWeb, do: draftAnyway, wantErr: isState(post.StatusPending)},
		{name: "draft anyway a post in drafting", post: func(t *testing.T) int64 { return e.found(t, post.XPlatform, post.RouteAPI) },
			by: post.ByWeb, do: draftAnyway, wantErr: isState(post.StatusDrafting)},
		{name: "draft anyway on a stale version", post: e.judged, shown: func(v int) *int { return ptr(v + 1) },
			by: post.ByWeb, do: draftAnyway, wantErr: isStale},
		{name: "draft anyway an unknown post", by: post.ByWeb, do: draftAnyway,
			wantErr: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},

		{name: "mark posted", post: e.awaiting, by: post.ByWeb, do: markPosted, wantStatus: post.StatusPosted, wantAction: post.ActionMarkPosted},
		{name: "mark posted on the version shown", post: e.awaiting, shown: func(v int) *int { return ptr(v) },
			by: post.ByWeb, do: markPosted, wantStatus: post.StatusPosted, wantAction: post.ActionMarkPosted},
		{name: "mark posted a pending post", post: func(t *testing.T) int64 { return e.pending(t, post.RouteManual) },
			by: post.ByWeb, do: markPosted, wantErr: isState(post.StatusPending)},
		{name: "mark posted twice", post: e.posted, by: post.ByWeb, do: markPosted, wantErr: isState(post.StatusPosted)},
		{name: "mark posted on a stale version", post: e.awaiting, shown: func(v int) *int { return ptr(v - 1) },
			by: post.ByWeb, do: markPosted, wantErr: isStale},
		{name: "mark posted an unknown post", by: post.ByWeb, do: markPosted,
			wantErr: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},

		{name: "give up", post: e.awaiting, by: post.ByWeb, do: giveUp, wantStatus: post.StatusRejected, wantAction: post.ActionGiveUp},
		{name: "give up on the version shown", post: e.awaiting, shown: func(v int) *int { return ptr(v) },
			by: post.ByWeb, do: giveUp, wantStatus: post.StatusRejected, wantAction: post.ActionGiveUp},
		{name: "give up a pending post", post: func(t *testing.T) int64 { return e.pending(t, post.RouteAPI) },
			by: post.ByWeb, do: giveUp, wantErr: isState(post.StatusPending)},
		{name: "give up a posted post", post: e.posted, by: post.ByWeb, do: giveUp, wantErr: isState(post.StatusPosted)},
		{name: "give up a skipped post", post: func(t *testing.T) int64 { return e.skipped(t, post.XPlatform) },
			by: post.ByWeb, do: giveUp, wantErr: isState(post.StatusSkipped)},
		{name: "give up on a stale version", post: e.awaiting, shown: func(v int) *int { return ptr(v + 7) },
			by: post.ByWeb, do: giveUp, wantErr: isStale},
		{name: "give up with a NUL in the reason", post: e.awaiting, by: post.ByWeb,
			do: func(id int64, shown *int, by post.Channel) (post.Post, error) {
				return e.decide.GiveUp(ctx, id, "gone\x00", shown, by)
			},
			wantErr: func(err error) bool {
				var te *post.TextError
				return errors.As(err, &te) && te.Field == "reason" && errors.Is(err, post.ErrInvalid)
			}},
		{name: "give up an unknown post", by: post.ByWeb, do: giveUp,
			wantErr: func(err error) bool { return errors.Is(err, store.ErrNotFound) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := int64(424242)
			var before post.Post
			var history []post.Decision
			if tt.post != nil {
				id = tt.post(t)
				before, history = e.post(t, id), e.history(t, id)
			}
			var shown *int
			if tt.shown != nil {
				shown = tt.shown(before.DraftVersion)
			}
			e.queue.calls = nil
			got, err := tt.do(id, shown, tt.by)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("err = %v, want the refusal", err)
				}
				if tt.post == nil {
					return
				}
				after := e.post(t, id)
				if after.Status != before.Status || after.DraftVersion != before.DraftVersion || !after.UpdatedAt.Equal(before.UpdatedAt) {
					t.Errorf("a refused decision changed the post: %s v%d -> %s v%d", before.Status, before.DraftVersion, after.Status, after.DraftVersion)
				}
				if n := len(e.history(t, id)); n != len(history) {
					t.Errorf("a refused decision is in the history: %d decisions, want %d", n, len(history))
				}
				if len(e.queue.calls) != 0 {
					t.Errorf("a refused decision queued %v", e.queue.calls)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tt.wantStatus || e.post(t, id).Status != tt.wantStatus {
				t.Fatalf("status %s, want %s", got.Status, tt.wantStatus)
			}
			after := e.history(t, id)
			if len(after) != len(history)+1 {
				t.Fatalf("history %+v, want one decision more than %d", after, len(history))
			}
			last := after[len(after)-1]
			if last.Action != tt.wantAction || last.By != tt.by || last.DraftVersion != before.DraftVersion {
				t.Errorf("decision %s by %s on v%d, want %s by %s on v%d", last.Action, last.By, last.DraftVersion, tt.wantAction, tt.by, before.DraftVersion)
			}
			wantCalls := 0
			if tt.wantAction == post.ActionDraftAnyway {
				// Drafted anyway, the post is handed to the workers, named with its platform.
				wantCalls = 1
				if want := fmt.Sprintf("draft %d %s", id, before.Platform); len(e.queue.calls) != 1 || e.queue.calls[0] != want {
					t.Errorf("queued %v, want [%s]", e.queue.calls, want)
				}
			}
			if len(e.queue.calls) != wantCalls {
				t.Errorf("queued %v, want %d calls", e.queue.calls, wantCalls)
			}
		})
	}
}

// A post drafted anyway while Redis is down is drafted anyway: the
// decision stands and reconciliation queues its draft later.
func TestDraftAnywayWithTheQueueDown(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := e.skipped(t, post.XPlatform)
	e.queue.down = true
	p, err := e.decide.DraftAnyway(context.Background(), id, nil, post.ByWeb)
	if err != nil || p.Status != post.StatusDrafting {
		t.Fatalf("draft anyway with the queue down: %s %v, want drafting", p.Status, err)
	}
	if h := e.history(t, id); len(h) != 1 || h[0].Action != post.ActionDraftAnyway {
		t.Errorf("history %+v, want the draft anyway", h)
	}
}

// A NUL in a text the administrator writes is refused before anything
// changes, by every decision that takes a text, naming the field.
func TestNULRefused(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	id := e.pending(t, post.RouteAPI)
	tests := []struct {
		name  string
		do    func() error
		field string
	}{
		{name: "approve with an edited response", field: "response", do: func() error {
			_, err := e.decide.Approve(ctx, id, decision.Approval{Edited: ptr("burn\x00"), By: post.ByWeb})
			return err
		}},
		{name: "edit", field: "response", do: func() error {
			_, err := e.decide.Edit(ctx, id, "\x00burn", nil, post.ByWeb)
			return err
		}},
		{name: "give up", field: "reason", do: func() error {
			_, err := e.decide.GiveUp(ctx, id, "\x00", nil, post.ByWeb)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var te *post.TextError
			if err := tt.do(); !errors.As(err, &te) || te.Field != tt.field {
				t.Fatalf("err = %v, want a *post.TextError on %s", err, tt.field)
			}
			if p := e.post(t, id); p.Status != post.StatusPending || p.ProposedResponse != "every day is a sin, mortal" {
				t.Errorf("the post changed: %s %q", p.Status, p.ProposedResponse)
			}
			if h := e.history(t, id); len(h) != 0 {
				t.Errorf("history %+v, want none", h)
			}
		})
	}
}
