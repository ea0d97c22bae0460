package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/platform/sandbox"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/store/storetest"
)

var entries = []corpus.Entry{
	{Username: "m1", Name: "M One", Kind: "mention", Text: "@{persona} why mondays?", Lang: "en"},
	{Username: "m2", Name: "M Two", Kind: "mention", Text: "dear @{persona}, coffee", Lang: "fr"},
	{Username: "t1", Name: "T One", Kind: "topic", Text: "deadlines 🔥"},
	{Username: "g1", Name: "G One", Kind: "target", Text: "buy my course"},
}

// clock is a test time source that only moves when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newSandbox(t *testing.T) (*sandbox.Sandbox, *clock) {
	t.Helper()
	clk := &clock{t: time.Now()}
	sb, err := sandbox.New(storetest.New(t).Pool(), "devil", time.Minute, entries, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	return sb, clk
}

func TestNewRefusesBadCorpus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []corpus.Entry
		pace    time.Duration
	}{
		{name: "empty", entries: nil, pace: time.Second},
		{name: "bad kind", entries: []corpus.Entry{{Username: "a", Text: "b", Kind: "rant"}}, pace: time.Second},
		{name: "missing kind", entries: entries[:3], pace: time.Second},
		{name: "no pace", entries: entries, pace: 0},
		{name: "some conversation kinds", entries: talkEntries()[:len(entries)+1], pace: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := sandbox.New(nil, "devil", tt.pace, tt.entries, time.Now); err == nil {
				t.Error("New accepted it")
			}
		})
	}
}

func TestTimelinesGrowAtThePace(t *testing.T) {
	t.Parallel()
	sb, clk := newSandbox(t)
	ctx := context.Background()
	me, err := sb.Me(ctx)
	if err != nil || me.Username != "devil" {
		t.Fatalf("Me: %+v %v", me, err)
	}
	page, err := sb.Mentions(ctx, me.ID, platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	// The opening burst of 12 takes turns by kind: 4 mentions.
	if len(page.Posts) != 4 || page.NewestID == "" {
		t.Fatalf("opening mentions: %d, newest %q", len(page.Posts), page.NewestID)
	}
	for _, p := range page.Posts {
		if !strings.Contains(p.Text, "@devil") || strings.Contains(p.Text, "{persona}") {
			t.Errorf("mention text %q does not name the persona", p.Text)
		}
		// Each post is in its corpus entry's language.
		if want := map[string]string{"m1": "en", "m2": "fr"}[p.Author.Username]; p.Language != want {
			t.Errorf("mention by %s in %q, want %q", p.Author.Username, p.Language, want)
		}
	}
	again, err := sb.Mentions(ctx, me.ID, platform.Range{SinceID: page.NewestID})
	if err != nil || len(again.Posts) != 0 || again.NewestID != page.NewestID {
		t.Fatalf("nothing new yet: %d posts, newest %q", len(again.Posts), again.NewestID)
	}
	clk.add(3 * time.Minute)
	later, err := sb.Mentions(ctx, me.ID, platform.Range{SinceID: page.NewestID})
	if err != nil || len(later.Posts) != 1 {
		t.Fatalf("after three paces: %d new mentions, want 1 (%v)", len(later.Posts), err)
	}
	topics, err := sb.Search(ctx, "anything", platform.Range{})
	if err != nil || len(topics.Posts) != 5 {
		t.Fatalf("topic posts: %d (%v)", len(topics.Posts), err)
	}
	u, err := sb.UserByUsername(ctx, "G1")
	if err != nil {
		t.Fatal(err)
	}
	own, err := sb.UserPosts(ctx, u.ID, platform.Range{})
	if err != nil || len(own.Posts) != 5 || own.Posts[0].Author.Username != "g1" {
		t.Fatalf("target posts: %d (%v)", len(own.Posts), err)
	}
	if _, err := sb.UserByUsername(ctx, "nobody"); platform.Temporary(err) {
		t.Errorf("unknown user: %v, want a lasting refusal", err)
	}
	if _, err := sb.UserPosts(ctx, "garbage", platform.Range{}); platform.Temporary(err) {
		t.Errorf("bad user id: %v, want a lasting refusal", err)
	}
}

func TestPublishFindAndMetrics(t *testing.T) {
	t.Parallel()
	sb, clk := newSandbox(t)
	ctx := context.Background()
	page, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	target := page.Posts[0]
	if _, found, err := sb.FindPublished(ctx, "persona", target.ID, "x"); err != nil || found {
		t.Fatalf("found a reply before any: %v %v", found, err)
	}
	reply, err := sb.Publish(ctx, "burn 🔥", target.ID)
	if err != nil || reply.InReplyToID != target.ID || reply.ConversationID != target.ConversationID {
		t.Fatalf("Publish reply: %+v %v", reply, err)
	}
	got, found, err := sb.FindPublished(ctx, "persona", target.ID, "")
	if err != nil || !found || got.ID != reply.ID {
		t.Fatalf("FindPublished reply: %+v %v %v", got, found, err)
	}
	standalone, err := sb.Publish(ctx, "a thought from below", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, found, err := sb.FindPublished(ctx, "persona", "", "a thought from below"); err != nil || !found || got.ID != standalone.ID {
		t.Fatalf("FindPublished standalone: %+v %v %v", got, found, err)
	}
	refusals := []struct {
		name      string
		text      string
		inReplyTo string
		want      int
	}{
		{name: "duplicate", text: "a thought from below", want: 403},
		{name: "too long", text: strings.Repeat("x", 281), want: 400},
		{name: "empty", text: "", want: 400},
		{name: "reply to nothing", text: "hi", inReplyTo: "999999", want: 403},
		{name: "bad id", text: "hi", inReplyTo: "abc", want: 400},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sb.Publish(ctx, tt.text, tt.inReplyTo)
			var pe *platform.Error
			if !errors.As(err, &pe) || pe.Status != tt.want || platform.Temporary(err) {
				t.Errorf("Publish: %v, want a %d refusal", err, tt.want)
			}
		})
	}
	clk.add(10 * time.Minute)
	m, err := sb.Metrics(ctx, []string{reply.ID, target.ID, "999999", "junk"})
	if err != nil || len(m) != 2 {
		t.Fatalf("Metrics: %v %v", m, err)
	}
	if m[target.ID].Replies < 1 {
		t.Errorf("the answered post counts %d replies, want at least 1", m[target.ID].Replies)
	}
}

func TestOldPostsAreForgotten(t *testing.T) {
	t.Parallel()
	sb, clk := newSandbox(t)
	ctx := context.Background()
	first, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil || len(first.Posts) == 0 {
		t.Fatalf("opening mentions: %v", err)
	}
	clk.add(15 * 24 * time.Hour)
	later, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	// After a long pause the world catches up by at most 20 posts, a third of them mentions.
	if len(later.Posts) != 7 {
		t.Errorf("%d mentions after two weeks, want the 7 of the catch-up", len(later.Posts))
	}
	for _, p := range later.Posts {
		for _, old := range first.Posts {
			if p.ID == old.ID {
				t.Errorf("post %s of two weeks ago is still there", p.ID)
			}
		}
	}
}

func TestPersonaReplies(t *testing.T) {
	t.Parallel()
	sb, _ := newSandbox(t)
	ctx := context.Background()
	page, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil || len(page.Posts) < 2 {
		t.Fatalf("opening mentions: %d (%v)", len(page.Posts), err)
	}
	answered, ignored := page.Posts[0], page.Posts[1]
	reply, err := sb.Publish(ctx, "burn 🔥", answered.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Publish(ctx, "a standalone thought", ""); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		want []string
	}{
		{name: "answered", id: answered.ID, want: []string{reply.ID}},
		{name: "not answered", id: ignored.ID},
		{name: "garbage id", id: "junk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sb.PersonaReplies(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range got {
				ids = append(ids, p.ID)
				if p.Author.ID != "persona" || p.InReplyToID != tt.id {
					t.Errorf("reply %+v is not the persona's answer to %s", p, tt.id)
				}
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Errorf("PersonaReplies(%s) = %v, want %v", tt.id, ids, tt.want)
			}
		})
	}
}

func TestReplyPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		policy   []sandbox.Option
		kind     string
		summons  bool
		wantSent bool
	}{
		{name: "summoned: a mention is answered", kind: "mention", summons: true, wantSent: true},
		{name: "summoned: a topic post is refused", kind: "topic", wantSent: false},
		{name: "summoned: a targeted post is refused", kind: "target", wantSent: false},
		{name: "open: a topic post is answered", policy: []sandbox.Option{sandbox.WithReplyPolicy(platform.ReplyOpen)}, kind: "topic", wantSent: true},
		{name: "open: a targeted post is answered", policy: []sandbox.Option{sandbox.WithReplyPolicy(platform.ReplyOpen)}, kind: "target", wantSent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			sb, err := sandbox.New(storetest.New(t).Pool(), "devil", time.Minute, entries, time.Now, tt.policy...)
			if err != nil {
				t.Fatal(err)
			}
			me, _ := sb.Me(ctx)
			var page platform.Page
			switch tt.kind {
			case "mention":
				page, err = sb.Mentions(ctx, me.ID, platform.Range{})
			case "topic":
				page, err = sb.Search(ctx, "q", platform.Range{})
			default:
				page, err = sb.UserPosts(ctx, "user:g1", platform.Range{})
			}
			if err != nil || len(page.Posts) == 0 {
				t.Fatalf("read %s: %v", tt.kind, err)
			}
			target := page.Posts[0]
			if got := target.Summons(me); got != tt.summons {
				t.Errorf("Summons = %v, want %v (mentions %+v)", got, tt.summons, target.Mentions)
			}
			_, err = sb.Publish(ctx, "burn", target.ID)
			if tt.wantSent && err != nil {
				t.Fatalf("Publish: %v", err)
			}
			if !tt.wantSent && platform.Classify(err) != platform.RefusalReplyNotAllowed {
				t.Fatalf("Publish: %v, want the reply-not-allowed refusal", err)
			}
		})
	}
}

// talkEntries is entries with the words of conversations: the world holds
// them only with every kind present.
func talkEntries() []corpus.Entry {
	return append(append([]corpus.Entry(nil), entries...),
		corpus.Entry{Username: "r1", Name: "R One", Kind: corpus.KindThread, Text: "same, but on a Monday"},
		corpus.Entry{Username: "r2", Name: "R Two", Kind: corpus.KindThread, Text: "hard disagree"},
		corpus.Entry{Username: "s1", Name: "S One", Kind: corpus.KindSummon, Text: "@{persona} thoughts?"},
		corpus.Entry{Username: "q1", Name: "Q One", Kind: corpus.KindQuote, Text: "framing this"},
	)
}

// newTalkingSandbox is a sandbox whose world holds conversations, on a
// fresh database, with the clock at start.
func newTalkingSandbox(t *testing.T, start time.Time) (*sandbox.Sandbox, *clock) {
	t.Helper()
	clk := &clock{t: start}
	sb, err := sandbox.New(storetest.New(t).Pool(), "devil", time.Minute, talkEntries(), clk.now)
	if err != nil {
		t.Fatal(err)
	}
	return sb, clk
}

// byID indexes the posts of pages, their Included ones among them.
func byID(pages ...platform.Page) map[string]platform.Post {
	out := map[string]platform.Post{}
	for _, pg := range pages {
		for _, list := range [][]platform.Post{pg.Posts, pg.Included} {
			for _, p := range list {
				out[p.ID] = p
			}
		}
	}
	return out
}

// depth counts the ancestors of p that the posts of known hold.
func depth(p platform.Post, known map[string]platform.Post) int {
	n := 0
	for p.InReplyToID != "" {
		parent, ok := known[p.InReplyToID]
		if !ok {
			break
		}
		n, p = n+1, parent
	}
	return n
}

func TestConversationsInTheOpeningBurst(t *testing.T) {
	t.Parallel()
	sb, _ := newTalkingSandbox(t, time.Now())
	ctx := context.Background()
	me, _ := sb.Me(ctx)
	mentions, err := sb.Mentions(ctx, me.ID, platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := sb.Search(ctx, "q", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	// The burst is two rounds of six: per round a mention and a thin
	// mention; a topic post, a reply and a quote.
	if len(mentions.Posts) != 4 || len(topics.Posts) != 6 {
		t.Fatalf("%d mentions and %d topic posts, want 4 and 6", len(mentions.Posts), len(topics.Posts))
	}
	included := byID(platform.Page{Posts: mentions.Included}, platform.Page{Posts: topics.Included})
	all := byID(mentions, topics)
	var replies, thin, quotes, deepest int
	for _, p := range append(append([]platform.Post(nil), mentions.Posts...), topics.Posts...) {
		if p.InReplyToID != "" {
			parent, ok := included[p.InReplyToID]
			if !ok {
				t.Errorf("post %s answers %s, which is not in Included", p.ID, p.InReplyToID)
				continue
			}
			if parent.ConversationID != p.ConversationID || parent.Author.ID == me.ID {
				t.Errorf("post %s answers %+v outside its conversation %s", p.ID, parent, p.ConversationID)
			}
			if d := depth(p, all); d > deepest {
				deepest = d
			}
			switch {
			case p.Summons(me):
				thin++
				if p.Text != "@devil thoughts?" {
					t.Errorf("thin mention %q", p.Text)
				}
			default:
				replies++
				if p.Author.ID == parent.Author.ID {
					t.Errorf("%s answers itself: %q", p.Author.Username, p.Text)
				}
			}
		}
		if p.QuotedID != "" {
			quotes++
			quoted, ok := included[p.QuotedID]
			if !ok {
				t.Errorf("post %s quotes %s, which is not in Included", p.ID, p.QuotedID)
				continue
			}
			if p.QuotedAuthorID != quoted.Author.ID || !strings.HasPrefix(p.QuotedAuthorID, "user:") {
				t.Errorf("quote %s: QuotedAuthorID %q, want %q", p.ID, p.QuotedAuthorID, quoted.Author.ID)
			}
		}
	}
	tests := []struct {
		name string
		got  int
		want int
	}{
		{name: "replies between mortals", got: replies, want: 2},
		{name: "thin mentions inside threads", got: thin, want: 2},
		{name: "quotes", got: quotes, want: 2},
		{name: "deepest thread", got: deepest, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%d, want %d", tt.got, tt.want)
			}
		})
	}
}

func TestQuoteOfThePersonaSummonsIt(t *testing.T) {
	t.Parallel()
	sb, clk := newTalkingSandbox(t, time.Now())
	ctx := context.Background()
	me, _ := sb.Me(ctx)
	first, err := sb.Mentions(ctx, me.ID, platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	var thin platform.Post
	for _, p := range first.Posts {
		if p.InReplyToID != "" {
			thin = p
		}
	}
	if thin.ID == "" {
		t.Fatalf("no thin mention inside a thread among %+v", first.Posts)
	}
	reply, err := sb.Publish(ctx, "the furnace settles it 🔥", thin.ID)
	if err != nil {
		t.Fatalf("Publish to a thin mention: %v", err)
	}
	// The next round's quote, at its sixth turn, quotes the persona's reply.
	clk.add(6 * time.Minute)
	later, err := sb.Mentions(ctx, me.ID, platform.Range{SinceID: first.NewestID})
	if err != nil {
		t.Fatal(err)
	}
	var quote platform.Post
	for _, p := range later.Posts {
		if p.QuotedID != "" {
			quote = p
		}
	}
	if quote.QuotedID != reply.ID || quote.QuotedAuthorID != me.ID || !quote.Summons(me) {
		t.Fatalf("quote %+v, want one of the persona's reply %s that summons it", quote, reply.ID)
	}
	if strings.Contains(quote.Text, "@devil") {
		t.Errorf("the quote %q mentions the persona; it should summon it by quoting alone", quote.Text)
	}
	if q, ok := byID(later)[reply.ID]; !ok || q.Author.ID != me.ID {
		t.Errorf("the quoted reply is not in Included: %+v", later.Included)
	}
	if _, err := sb.Publish(ctx, "quoting me costs extra", quote.ID); err != nil {
		t.Errorf("Publish to a quote of the persona: %v", err)
	}
	// Quoted once: the round after quotes a mortal post again.
	clk.add(12 * time.Minute)
	again, err := sb.Mentions(ctx, me.ID, platform.Range{SinceID: later.NewestID})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range again.Posts {
		if p.QuotedID == reply.ID {
			t.Errorf("the persona's reply is quoted twice: %+v", p)
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	sb, _ := newTalkingSandbox(t, time.Now())
	ctx := context.Background()
	topics, err := sb.Search(ctx, "q", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	var quote, plain platform.Post
	for _, p := range topics.Posts {
		switch {
		case p.QuotedID != "":
			quote = p
		case p.InReplyToID == "":
			plain = p
		}
	}
	if quote.ID == "" || plain.ID == "" {
		t.Fatalf("no quote or no standalone post among %+v", topics.Posts)
	}
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{name: "known ids", ids: []string{quote.ID, plain.ID}, want: []string{plain.ID, quote.ID}},
		{name: "unknown ids are omitted", ids: []string{"999999", quote.ID, "junk", ""}, want: []string{quote.ID}},
		{name: "none", ids: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sb.Lookup(ctx, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range got {
				ids = append(ids, p.ID)
				if p.ID == quote.ID && (p.QuotedID != quote.QuotedID || p.QuotedAuthorID != quote.QuotedAuthorID || p.QuotedAuthorID == "") {
					t.Errorf("looked up quote %+v, read as %+v", p, quote)
				}
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Lookup(%v) = %v, want %v", tt.ids, ids, tt.want)
			}
		})
	}
}

// shape is a post as the world made it, without the ids of its database:
// who wrote what, answering and quoting which text.
type shape struct {
	Author, Text, Parent, Quoted string
}

// shapes reads the mentions and topic posts of sb as shapes, oldest first.
func shapes(t *testing.T, sb *sandbox.Sandbox) []shape {
	t.Helper()
	ctx := context.Background()
	mentions, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := sb.Search(ctx, "q", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	known := byID(mentions, topics)
	var out []shape
	for _, pg := range []platform.Page{mentions, topics} {
		for i := len(pg.Posts) - 1; i >= 0; i-- {
			p := pg.Posts[i]
			out = append(out, shape{Author: p.Author.Username, Text: p.Text, Parent: known[p.InReplyToID].Text, Quoted: known[p.QuotedID].Text})
		}
	}
	return out
}

func TestConversationsAreDeterministic(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	a, clkA := newTalkingSandbox(t, start)
	b, clkB := newTalkingSandbox(t, start)
	tests := []struct {
		name  string
		after time.Duration
	}{
		{name: "opening burst"},
		{name: "after a quarter of an hour", after: 15 * time.Minute},
		{name: "after a catch-up", after: 3 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clkA.add(tt.after)
			clkB.add(tt.after)
			got, want := shapes(t, a), shapes(t, b)
			if len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("two worlds on the same clock differ:\n%v\n%v", got, want)
			}
		})
	}
}

func TestConversationsAfterAForgettingPause(t *testing.T) {
	t.Parallel()
	sb, clk := newTalkingSandbox(t, time.Now())
	ctx := context.Background()
	if _, err := sb.Search(ctx, "q", platform.Range{}); err != nil {
		t.Fatal(err)
	}
	// Two weeks on, the posts the catch-up's first turns would answer or
	// quote are forgotten: those turns make standalone posts instead.
	clk.add(15 * 24 * time.Hour)
	mentions, err := sb.Mentions(ctx, "persona", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := sb.Search(ctx, "q", platform.Range{})
	if err != nil {
		t.Fatal(err)
	}
	known := byID(mentions, topics)
	answering := 0
	for _, p := range append(mentions.Posts, topics.Posts...) {
		for _, ref := range []string{p.InReplyToID, p.QuotedID} {
			if ref == "" {
				continue
			}
			answering++
			if _, ok := known[ref]; !ok {
				t.Errorf("post %s (%q) refers to %s, which the world forgot", p.ID, p.Text, ref)
			}
		}
	}
	if answering == 0 {
		t.Error("the catch-up made no conversation at all")
	}
}
