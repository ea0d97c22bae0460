package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/writer"
)

// found stores a mortal's post as a scan does (status drafting) and returns its id.
func found(t *testing.T, st *store.Store, id, conversation, author, text string) int64 {
	t.Helper()
	row, _, err := st.UpsertFound(context.Background(), post.Post{Platform: "sandbox", Source: post.SourceMention,
		OriginalPostID: id, ConversationID: conversation, OriginalPostText: text, OriginalPostUser: author,
		AuthorUsername: author, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// draft runs the draft task of post id with d.
func draft(t *testing.T, d *pipeline.Drafter, id int64) post.Post {
	t.Helper()
	if err := d.DraftPost(context.Background(), task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
		t.Fatal(err)
	}
	p, err := d.Store.Post(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// putSettings stores s, normalised.
func putSettings(t *testing.T, st *store.Store, s settings.Settings) {
	t.Helper()
	s, err := s.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSettings(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// Each guard skips the post it applies to, before any model call, with its
// reason; the other posts are drafted.
func TestGuardsSkipBeforeDrafting(t *testing.T) {
	t.Parallel()
	e := setup(t)
	putSettings(t, e.store, settings.Settings{
		BlockedAuthors: []string{"spammer"}, BlockedPhrases: []string{"scam coin"},
		Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000},
	})
	w := &scriptWriter{}
	d := &pipeline.Drafter{Store: e.store, Writer: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	tests := []struct {
		name, author, text string
		want               string // the skip reason, "" for drafted
	}{
		{name: "plain mention", author: "mortal", text: "@devil is coffee a sin?"},
		{name: "own post", author: "devil", text: "@devil talking to myself", want: guard.ReasonOwnPost},
		{name: "own post, look-alike case", author: "DEVIL", text: "hi", want: guard.ReasonOwnPost},
		{name: "blocked author", author: "Spammer", text: "@devil hello", want: `blocked author: @spammer`},
		{name: "blocked author, full-width", author: "ｓｐａｍｍｅｒ", text: "@devil hello", want: `blocked author: @spammer`},
		{name: "blocked phrase", author: "a1", text: "@devil buy my scam coin", want: `blocked phrase: "scam coin"`},
		{name: "blocked phrase, Cyrillic look-alikes", author: "a2", text: "@devil buy my ѕсаm соіn now", want: `blocked phrase: "scam coin"`},
		{name: "blocked phrase, zero-width joiners", author: "a3", text: "@devil s\u200dc\u200da\u200dm coin", want: `blocked phrase: "scam coin"`},
		{name: "blocked phrase, full-width forms", author: "a4", text: "@devil ＳＣＡＭ ＣＯＩＮ!!", want: `blocked phrase: "scam coin"`},
		{name: "not the phrase: another word", author: "a5", text: "@devil scampi coins for dinner"},
		{name: "opt-out", author: "quiet", text: "@devil please leave me alone", want: `opt-out: "leave me alone"`},
		{name: "opt-out, other language", author: "callado", text: "@devil déjame en paz", want: `opt-out: "déjame en paz"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := w.count()
			p := draft(t, d, found(t, e.store, fmt.Sprintf("g%d", i), fmt.Sprintf("c%d", i), tt.author, tt.text))
			if tt.want == "" {
				if p.Status != post.StatusPending || p.GuardedAt == nil {
					t.Errorf("status %s (%q), guarded %v; want pending and guarded", p.Status, p.SkipReason, p.GuardedAt)
				}
				return
			}
			if p.Status != post.StatusSkipped || p.SkipReason != tt.want {
				t.Errorf("status %s reason %q, want skipped %q", p.Status, p.SkipReason, tt.want)
			}
			if w.count() != calls {
				t.Errorf("the writer was asked for a skipped post")
			}
		})
	}
	s, err := e.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.BlockedAuthors, "quiet") || !slices.Contains(s.BlockedAuthors, "callado") {
		t.Errorf("opt-outs not blocked: %v", s.BlockedAuthors)
	}
}

// A blocked author given by id is blocked under any handle, the reason
// naming the handle and the id; another account, even one that takes a
// blocked author's old handle, is not.
func TestBlockedAuthorByID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	putSettings(t, e.store, settings.Settings{BlockedAuthors: []string{"777"}, Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	d := e.pipe.Drafter
	tests := []struct {
		name, id, handle string
		want             string // the skip reason, "" for drafted
	}{
		{name: "the author by id", id: "777", handle: "Seven", want: "blocked author: @Seven (777)"},
		{name: "the author, renamed", id: "777", handle: "seven_again", want: "blocked author: @seven_again (777)"},
		{name: "another account", id: "778", handle: "Seven"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, _, err := e.store.UpsertFound(context.Background(), post.Post{Platform: "sandbox", Source: post.SourceMention,
				OriginalPostID: fmt.Sprintf("byid%d", i), ConversationID: fmt.Sprintf("cbyid%d", i), OriginalPostText: "@devil hello",
				OriginalPostUser: tt.handle, AuthorUsername: tt.handle, AuthorID: tt.id, CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			p := draft(t, d, row)
			if tt.want == "" {
				if p.Status != post.StatusPending {
					t.Errorf("status %s (%q), want pending", p.Status, p.SkipReason)
				}
				return
			}
			if p.Status != post.StatusSkipped || p.SkipReason != tt.want {
				t.Errorf("status %s reason %q, want skipped %q", p.Status, p.SkipReason, tt.want)
			}
		})
	}
}

// An author who opts out is blocked at once with the post as the reason:
// no later post of theirs is answered, in any conversation.
func TestOptOutStopsLaterReplies(t *testing.T) {
	t.Parallel()
	e := setup(t)
	putSettings(t, e.store, settings.Settings{Caps: settings.Caps{PerConversation: 1000, PerAuthorPerDay: 1000}})
	d := e.pipe.Drafter
	if p := draft(t, d, found(t, e.store, "1", "c1", "Grumpy", "@devil what is hell like")); p.Status != post.StatusPending {
		t.Fatalf("first post: %s", p.Status)
	}
	stop := found(t, e.store, "2", "c1", "Grumpy", "@devil STOP replying to me")
	if p := draft(t, d, stop); p.Status != post.StatusSkipped || !strings.HasPrefix(p.SkipReason, guard.ReasonOptOut) {
		t.Fatalf("opt-out: %s %q", p.Status, p.SkipReason)
	}
	var reason string
	var postID int64
	if err := e.store.Pool().QueryRow(context.Background(), `SELECT reason, post_id FROM blocked_authors WHERE username = 'grumpy'`).
		Scan(&reason, &postID); err != nil || postID != stop || !strings.Contains(reason, "stop replying") {
		t.Fatalf("blocked: %q post %d, %v; want the opt-out post %d", reason, postID, err, stop)
	}
	for i, text := range []string{"@devil ok I am back, what about mondays", "@devil hello again"} {
		p := draft(t, d, found(t, e.store, fmt.Sprintf("later%d", i), fmt.Sprintf("other%d", i), "grumpy", text))
		if p.Status != post.StatusSkipped || p.SkipReason != "blocked author: @grumpy" {
			t.Errorf("later post %d: %s %q, want skipped as blocked", i, p.Status, p.SkipReason)
		}
	}
}

// Two bots mentioning each other in one conversation get one persona reply,
// then every further post of the conversation is skipped at the cap; an
// author gets at most three replies a day across conversations. Drafted
// at once by many workers, a conversation still passes the cap once.
func TestReplyCaps(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	d := e.pipe.Drafter
	// The other bot answers every persona reply in the same thread.
	for i := range 5 {
		p := draft(t, d, found(t, e.store, fmt.Sprintf("bot%d", i), "loop", "otherbot", fmt.Sprintf("@devil reply number %d, demon", i)))
		want := post.StatusSkipped
		if i == 0 {
			want = post.StatusPending
		}
		if p.Status != want {
			t.Fatalf("bot post %d: %s %q, want %s", i, p.Status, p.SkipReason, want)
		}
		if i == 0 {
			approve(t, e.store, e.queue, p.ID)
		} else if p.SkipReason != "cap: conversation (1 of 1)" {
			t.Errorf("bot post %d reason %q", i, p.SkipReason)
		}
	}
	for i := range 4 {
		p := draft(t, d, found(t, e.store, fmt.Sprintf("chatty%d", i), fmt.Sprintf("chat%d", i), "Chatty", fmt.Sprintf("@devil question %d about sin", i)))
		if i < 3 && p.Status != post.StatusPending {
			t.Errorf("chatty post %d: %s %q", i, p.Status, p.SkipReason)
		}
		if i == 3 && (p.Status != post.StatusSkipped || p.SkipReason != "cap: author (3 of 3 today)") {
			t.Errorf("fourth chatty post: %s %q, want the author cap", p.Status, p.SkipReason)
		}
	}
	// A rejected reply no longer counts: the conversation may be answered again.
	if _, err := decider(e.store, e.queue).Reject(ctx, draft(t, d, found(t, e.store, "r1", "rejected-conv", "r", "@devil one")).ID, nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if p := draft(t, d, found(t, e.store, "r2", "rejected-conv", "r", "@devil two")); p.Status != post.StatusPending {
		t.Errorf("after a rejected reply: %s %q", p.Status, p.SkipReason)
	}

	var ids []int64
	for i := range 12 {
		ids = append(ids, found(t, e.store, fmt.Sprintf("race%d", i), "race", fmt.Sprintf("racer%d", i), "@devil race"))
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if err := d.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: id})); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	passed := 0
	for _, id := range ids {
		p, err := e.store.Post(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status == post.StatusPending {
			passed++
		}
	}
	if passed != 1 {
		t.Errorf("%d of %d concurrent posts of one conversation drafted, want 1", passed, len(ids))
	}
}

// The same mention delivered twice (found by two scans, its draft task run
// twice at once) is one post with one draft.
func TestSameMentionTwiceGivesOnePost(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a := found(t, e.store, "twice", "twice", "mortal", "@devil hello there")
	b := found(t, e.store, "twice", "twice", "mortal", "@devil hello there")
	if a != b {
		t.Fatalf("two rows %d and %d for one mention", a, b)
	}
	w := &scriptWriter{}
	d := &pipeline.Drafter{Store: e.store, Writer: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := d.DraftPost(ctx, task(tasks.TypeDraftPost, tasks.PostPayload{PostID: a})); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var n, pending int
	if err := e.store.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'pending') FROM posts`).Scan(&n, &pending); err != nil {
		t.Fatal(err)
	}
	if n != 1 || pending != 1 {
		t.Errorf("%d posts, %d pending; want one pending post", n, pending)
	}
}

// scriptWriter answers each request with the first of texts not yet used
// for the same post (the last one over and over once they run out), or an
// in-character line naming the post; it records the Avoid of each request.
type scriptWriter struct {
	texts []string
	mu    sync.Mutex
	calls int
	used  map[string]int
	avoid []string
}

func (w *scriptWriter) Name() string { return "script" }

func (w *scriptWriter) Write(_ context.Context, req writer.Request) (writer.Draft, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	w.avoid = append(w.avoid, req.Avoid)
	text := "The furnace files your post " + fmt.Sprint(w.calls) + " under sloth."
	if len(w.texts) > 0 {
		if w.used == nil {
			w.used = map[string]int{}
		}
		i := min(w.used[req.PostText], len(w.texts)-1)
		w.used[req.PostText]++
		text = w.texts[i]
	}
	return writer.Draft{Text: text, Category: "sloth", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}, nil
}

func (w *scriptWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls
}

// A draft too like a recent persona post is redrafted once, asked to
// avoid that post; a redraft that still repeats it is kept and flagged.
func TestNearDuplicateRedraftedThenFlagged(t *testing.T) {
	t.Parallel()
	const line = "Monday is hell's own invention, and I am still proud of the paperwork it took to file it."
	tests := []struct {
		name      string
		texts     []string
		wantText  string
		wantFlags []string
	}{
		{name: "redraft differs", texts: []string{line, "Coffee? The only potion mortals brew better than we do."},
			wantText: "Coffee? The only potion mortals brew better than we do.", wantFlags: []string{}},
		{name: "redraft still repeats", texts: []string{line, line + " Again."},
			wantText: line + " Again.", wantFlags: []string{string(guard.FlagNearDuplicate)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			storetest.UncapReplies(t, e.store)
			first := &pipeline.Drafter{Store: e.store, Writer: &scriptWriter{texts: []string{line}}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
			if p := draft(t, first, found(t, e.store, "first", "c1", "a", "@devil mondays")); p.ProposedResponse != line {
				t.Fatalf("first draft %q", p.ProposedResponse)
			}
			w := &scriptWriter{texts: tt.texts}
			d := &pipeline.Drafter{Store: e.store, Writer: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
			p := draft(t, d, found(t, e.store, "second", "c2", "b", "@devil mondays again"))
			if p.Status != post.StatusPending || p.ProposedResponse != tt.wantText || !slices.Equal(p.Flags, tt.wantFlags) {
				t.Errorf("got %s %q %v, want pending %q %v", p.Status, p.ProposedResponse, p.Flags, tt.wantText, tt.wantFlags)
			}
			if !slices.Equal(w.avoid, []string{"", line}) {
				t.Errorf("requests avoided %q, want the redraft to avoid the earlier post", w.avoid)
			}
		})
	}
}

// With the offline writer of the sandbox, two mortals posting the same
// words get different drafts: the second is redrafted, not flagged.
func TestOfflineWriterRedraftsANearDuplicate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	storetest.UncapReplies(t, e.store)
	a := draft(t, e.pipe.Drafter, found(t, e.store, "x1", "c1", "twin", "@devil my cat knocked my coffee over again"))
	b := draft(t, e.pipe.Drafter, found(t, e.store, "x2", "c2", "twin", "@devil my cat knocked my coffee over again"))
	if a.Status != post.StatusPending || b.Status != post.StatusPending {
		t.Fatalf("statuses %s %s", a.Status, b.Status)
	}
	if s := guard.Similarity(a.ProposedResponse, b.ProposedResponse); s >= guard.DefaultNearDuplicateThreshold || len(b.Flags) != 0 {
		t.Errorf("second draft %q (flags %v) is %.2f like the first %q", b.ProposedResponse, b.Flags, s, a.ProposedResponse)
	}
}

// The outbound check flags each listed case on the stored draft.
func TestOutboundCheckFlagsDrafts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{name: "clean", text: "Your Monday is already filed under sloth, @mortal.", want: []string{}},
		{name: "the author and a mortal of the post may be named", text: "@mortal, tell @friend the furnace is warm.", want: []string{}},
		{name: "the persona may be named", text: "Signed, @devil.", want: []string{}},
		{name: "link", text: "Read the terms at https://example.com/hell before you sin.", want: []string{"link"}},
		{name: "bare domain link", text: "Complaints go to hell.example.com, mortal.", want: []string{"link"}},
		{name: "foreign mention", text: "Ask @someoneelse, they owe me a soul.", want: []string{"foreign_mention"}},
		{name: "placeholder braces", text: "Dear {persona}, your sin is noted.", want: []string{"placeholder"}},
		{name: "placeholder brackets", text: "Dear [name], your sin is noted.", want: []string{"placeholder"}},
		{name: "placeholder angle", text: "Re: <post> — filed under wrath.", want: []string{"placeholder"}},
		{name: "secret", text: "My key is sk-proj-AbCdEf0123456789GhIjKlMn, keep it.", want: []string{"secret"}},
		{name: "several", text: "Hey @stranger see https://example.com/a {persona}", want: []string{"link", "foreign_mention", "placeholder"}},
	}
	e := setup(t)
	storetest.UncapReplies(t, e.store)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &pipeline.Drafter{Store: e.store, Writer: &scriptWriter{texts: []string{tt.text}},
				Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
			// The near-duplicate guard compares with drafts of the last week; each case stands alone.
			if _, err := e.store.Pool().Exec(context.Background(), `UPDATE posts SET updated_at = now() - interval '8 days'`); err != nil {
				t.Fatal(err)
			}
			p := draft(t, d, found(t, e.store, fmt.Sprint("o", i), fmt.Sprint("oc", i), "mortal", "@devil hi, and @friend says hi"))
			if p.Status != post.StatusPending || !slices.Equal(p.Flags, tt.want) {
				t.Errorf("%s flags %v, want %v", p.Status, p.Flags, tt.want)
			}
		})
	}
}
