package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// billedKinds records the kind of every call the X client bills.
type billedKinds struct {
	mu    sync.Mutex
	kinds []spend.Kind
}

func (b *billedKinds) Bill(_ context.Context, _ string, groups []spend.Resources) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kinds = append(b.kinds, groups[0].Kind)
}

func (b *billedKinds) last() spend.Kind {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.kinds) == 0 {
		return ""
	}
	return b.kinds[len(b.kinds)-1]
}

// Under X_REPLY_POLICY=open a reply to a post that summoned the persona (a
// mention, or a post naming it) is billed at the summoned price, as X bills
// it; a reply to any other post at the full price.
func TestSummonedReplyBilledAsSummonedUnderTheOpenPolicy(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"data":{"id":"1900000000000000099","text":"burn"}}`) // a hung-up client fails its send, reported there
	}))
	t.Cleanup(srv.Close)
	billed := &billedKinds{}
	c, err := x.New(x.Config{BaseURL: srv.URL, APIKey: "k", APISecret: "s", AccessToken: "t", AccessSecret: "ts", Meter: billed})
	if err != nil {
		t.Fatal(err)
	}
	s := &pipeline.Sender{Store: e.store, Platform: c, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
		Self: pipeline.NewSelf(c), Handle: "devil"}
	tests := []struct {
		name   string
		source post.Source
		text   string
		want   spend.Kind
	}{
		{name: "a mention", source: post.SourceMention, text: "@devil is coffee a sin?", want: spend.KindPostCreateSummoned},
		{name: "a conversation naming the persona", source: post.SourceConversation, text: "ask @Devil about mondays", want: spend.KindPostCreateSummoned},
		{name: "a conversation", source: post.SourceConversation, text: "mondays again", want: spend.KindPostCreate},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "x", Source: tt.source, ReplyRoute: post.RouteAPI,
				OriginalPostID: "18000000000000000" + string(rune('1'+i)), ConversationID: "c" + tt.name, OriginalPostText: tt.text,
				AuthorUsername: "mortal_" + string(rune('a'+i)), CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.SaveDraft(ctx, id, store.Draft{Response: "Filed under wrath.", Category: "wrath"}); err != nil {
				t.Fatal(err)
			}
			approve(t, e.store, e.queue, id)
			if err := s.SendPost(ctx, task(tasks.TypeSendPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Fatal(err)
			}
			if got := billed.last(); got != tt.want {
				t.Errorf("billed %q, want %q", got, tt.want)
			}
		})
	}
}
