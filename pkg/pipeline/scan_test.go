package pipeline_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/pipeline"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

func TestScansAreIdempotentAndSkipUnknownTargets(t *testing.T) {
	t.Parallel()
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

// burstTimeline is a timeline of posts with ids first, first+1, ... read
// newest first within a range, at most bound posts a read, as a bounded
// platform client reads it.
type burstTimeline struct {
	mu    sync.Mutex
	first int64
	n     int64
	bound int
	reads int
}

func (b *burstTimeline) add(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += n
}

func (b *burstTimeline) read(r platform.Range) (platform.Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	parse := func(s string, def int64) int64 {
		if s == "" {
			return def
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			panic(err)
		}
		return v
	}
	since, until := parse(r.SinceID, 0), parse(r.UntilID, b.first+b.n)
	var page platform.Page
	id := until - 1
	for ; id >= b.first && id > since && len(page.Posts) < b.bound; id-- {
		s := strconv.FormatInt(id, 10)
		page.Posts = append(page.Posts, platform.Post{ID: s, Text: "post " + s, Author: platform.User{ID: "mortal", Username: "mortal"}})
	}
	page.More = id >= b.first && id > since
	if n := len(page.Posts); n > 0 {
		page.NewestID, page.OldestID = page.Posts[0].ID, page.Posts[n-1].ID
	}
	return page, nil
}

// burstPlatform serves mentions and search from burst timelines and the rest
// from the sandbox.
type burstPlatform struct {
	platform.Platform
	mentions, search *burstTimeline
}

func (p *burstPlatform) Mentions(_ context.Context, _ string, r platform.Range) (platform.Page, error) {
	return p.mentions.read(r)
}

func (p *burstPlatform) Search(_ context.Context, _ string, r platform.Range) (platform.Page, error) {
	return p.search.read(r)
}

// budget allows n reads, then refuses.
type budget struct{ left atomic.Int32 }

func (b *budget) Allow(context.Context, string) bool { return b.left.Add(-1) >= 0 }

// A burst far beyond what one scan reads is read over the following scans,
// each post recorded once: mentions always, the search while the budget
// allows, the reads it refused counted and done later.
func TestBurstIsReadOverLaterScans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		scan        func(s *pipeline.Scanner) error
		timeline    func(p *burstPlatform) *burstTimeline
		burst       int64
		budget      int32
		cursor      string
		wantSkipped bool
	}{
		{name: "mentions", burst: 1_500, budget: 0, cursor: "mentions",
			scan: func(s *pipeline.Scanner) error {
				return s.ScanMentions(context.Background(), task(tasks.TypeScanMentions, struct{}{}))
			},
			timeline: func(p *burstPlatform) *burstTimeline { return p.mentions }},
		{name: "search within the budget", burst: 700, budget: 100, cursor: "search:x -is:retweet",
			scan: func(s *pipeline.Scanner) error {
				return s.ScanConversations(context.Background(), task(tasks.TypeScanConversations, struct{}{}))
			},
			timeline: func(p *burstPlatform) *burstTimeline { return p.search }},
		{name: "search beyond the budget", burst: 700, budget: 1, cursor: "search:x -is:retweet", wantSkipped: true,
			scan: func(s *pipeline.Scanner) error {
				return s.ScanConversations(context.Background(), task(tasks.TypeScanConversations, struct{}{}))
			},
			timeline: func(p *burstPlatform) *burstTimeline { return p.search }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			plat := &burstPlatform{Platform: e.plat,
				mentions: &burstTimeline{first: 1_000_000, n: 1, bound: 100},
				search:   &burstTimeline{first: 1_000_000, n: 1, bound: 100}}
			b := &budget{}
			b.left.Store(tt.budget)
			s := *e.pipe.Scanner
			s.Platform, s.Reads = plat, b
			tl := tt.timeline(plat)
			if err := tt.scan(&s); err != nil {
				t.Fatal(err)
			}
			tl.add(tt.burst)
			for i := range 20 {
				before := tl.reads
				if err := tt.scan(&s); err != nil {
					t.Fatal(err)
				}
				if n := tl.reads - before; n > 3 {
					t.Errorf("scan %d made %d reads, want at most 3", i, n)
				}
				if i == 3 {
					// However long the budget refused, it allows again.
					b.left.Store(100)
				}
			}
			ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 5_000)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := int64(len(ids)), tt.burst+1; got != want {
				t.Errorf("%d posts recorded, want %d", got, want)
			}
			gaps, err := e.store.Gaps(ctx, "sandbox", tt.cursor)
			if err != nil || len(gaps) != 0 {
				t.Errorf("gaps left open: %+v (%v)", gaps, err)
			}
			skips, err := e.store.AllScanSkips(ctx)
			if err != nil {
				t.Fatal(err)
			}
			skipped := len(skips) == 1 && skips[0].Name == tt.cursor && skips[0].SkippedReads > 0
			if skipped != tt.wantSkipped || (!tt.wantSkipped && len(skips) != 0) {
				t.Errorf("skips %+v, want skipped reads counted: %v", skips, tt.wantSkipped)
			}
		})
	}
}

// A scan that finds another scan of the same timeline running skips it
// without reading; once that one is done, the next scan reads.
func TestScanSkipsWhileTheTimelineIsLeased(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	plat := &burstPlatform{Platform: e.plat, mentions: &burstTimeline{first: 1, n: 3, bound: 100}}
	s := *e.pipe.Scanner
	s.Platform = plat
	_, release, held, err := e.queue.Hold(ctx, "scan:sandbox:mentions")
	if err != nil || !held {
		t.Fatalf("hold: %v %v", held, err)
	}
	if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if plat.mentions.reads != 0 {
		t.Errorf("%d reads while another scan runs, want 0", plat.mentions.reads)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if plat.mentions.reads != 1 {
		t.Errorf("%d reads after the other scan ended, want 1", plat.mentions.reads)
	}
}

// A scan asks for drafts oldest first, the mentions' ahead of every other
// draft (QueueHigh), the conversations' in QueueDefault.
func TestScanQueuesDraftsOldestFirstMentionsAhead(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	plat := &burstPlatform{Platform: e.plat,
		mentions: &burstTimeline{first: 500, n: 40, bound: 100},
		search:   &burstTimeline{first: 900, n: 30, bound: 100}}
	s := *e.pipe.Scanner
	s.Platform = plat
	if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	if err := s.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		queue     string
		wantFirst int64
		want      int
	}{
		{name: "mentions", queue: tasks.QueueHigh, wantFirst: 500, want: 40},
		{name: "conversations", queue: tasks.QueueDefault, wantFirst: 900, want: 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pending, err := e.queue.Inspector().ListPendingTasks(tt.queue, asynq.PageSize(1000))
			if err != nil {
				t.Fatal(err)
			}
			if len(pending) != tt.want {
				t.Fatalf("%d drafts waiting in %s, want %d", len(pending), tt.queue, tt.want)
			}
			// The order the worker takes them in is the order of the original posts.
			prev := int64(0)
			for i, info := range pending {
				payload, err := tasks.DecodePost(asynq.NewTask(info.Type, info.Payload))
				if err != nil {
					t.Fatal(err)
				}
				p, err := e.store.Post(ctx, payload.PostID)
				if err != nil {
					t.Fatal(err)
				}
				orig, err := strconv.ParseInt(p.OriginalPostID, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 && orig != tt.wantFirst {
					t.Errorf("first draft is of post %d, want the oldest, %d", orig, tt.wantFirst)
				}
				if orig <= prev {
					t.Errorf("draft of post %d queued after post %d, want oldest first", orig, prev)
				}
				prev = orig
			}
		})
	}
}

// tooOld refuses, as recent search does for ids past its window, every read
// with an until_id.
type tooOld struct{ *burstTimeline }

func (t tooOld) read(r platform.Range) (platform.Page, error) {
	if r.UntilID != "" {
		return platform.Page{}, &platform.Error{Status: 400, Title: "Invalid Request", Detail: "'until_id' must be a tweet id created after the search window"}
	}
	return t.burstTimeline.read(r)
}

type tooOldPlatform struct {
	*burstPlatform
	search tooOld
}

func (p *tooOldPlatform) Search(_ context.Context, _ string, r platform.Range) (platform.Page, error) {
	return p.search.read(r)
}

// A gap the platform refuses to read for good is dropped, counted and
// logged, and scanning goes on.
func TestUnreadableGapIsDroppedAndCounted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	tl := &burstTimeline{first: 1_000, n: 1, bound: 100}
	plat := &tooOldPlatform{burstPlatform: &burstPlatform{Platform: e.plat}, search: tooOld{tl}}
	s := *e.pipe.Scanner
	s.Platform = plat
	scan := func() error { return s.ScanConversations(ctx, task(tasks.TypeScanConversations, struct{}{})) }
	if err := scan(); err != nil {
		t.Fatal(err)
	}
	tl.add(250)
	if err := scan(); err != nil {
		t.Fatalf("scan with an unreadable gap: %v", err)
	}
	gaps, err := e.store.Gaps(ctx, "sandbox", "search:x -is:retweet")
	if err != nil || len(gaps) != 0 {
		t.Errorf("gaps %+v (%v), want the unreadable one dropped", gaps, err)
	}
	skips, err := e.store.AllScanSkips(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 1 || skips[0].DroppedGaps != 1 || !strings.Contains(skips[0].LastReason, "until_id") {
		t.Errorf("skips %+v, want one dropped gap with the platform's reason", skips)
	}
	if cur, err := e.store.Cursor(ctx, "sandbox", "search:x -is:retweet"); err != nil || cur != "1250" {
		t.Errorf("cursor %q (%v), want the newest, 1250", cur, err)
	}
}
