package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// On a generated history of 50,000 posts and 10,000 log threads, vacuumed
// and analyzed as a lived-in database is, PostgreSQL reads every admin
// view and public page through indexes: no plan scans posts or the log
// whole. (The planner is left free: a plan that only an index can give is
// what it picks on such data, and a seq scan here is what the million-post
// database would suffer.)
func TestReadsUseIndexes(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := storetest.Generate(ctx, s.Pool(), 50000, 10000); err != nil {
		t.Fatal(err)
	}
	plans, err := s.QueryPlans(ctx, 10, 15)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) < 50 {
		t.Fatalf("%d plans, want every list, order and page", len(plans))
	}
	for _, p := range plans {
		t.Logf("%s: %s", p.Name, p.Shape)
		for _, table := range p.SeqScans {
			if table == "posts" || table == "log_threads" || table == "log_messages" {
				t.Errorf("%s scans %s whole: %s", p.Name, table, p.Shape)
			}
		}
	}
	// The generated history has every status, so the checks above saw real queues.
	a, err := s.AdminStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pending == 0 || a.Posted == 0 || a.Rejected == 0 {
		t.Errorf("generated history lacks a status: %+v", a)
	}
	_, total, err := s.ListPending(ctx, post.SourceMention, post.SortLikes, 1, 10)
	if err != nil || total < 100 {
		t.Errorf("mention queue: %d posts, %v", total, err)
	}
}

// The counts the triggers keep match a recount of the posts after every
// kind of change: new posts, drafts, approvals, sends, failures, rejects
// and deletions.
func TestCountsMatchRecount(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		var drift int
		err := s.Pool().QueryRow(ctx, `
			SELECT count(*) FROM (
				SELECT source, status, category, count(*) AS n FROM posts GROUP BY 1, 2, 3
			) r FULL JOIN (SELECT * FROM post_counts WHERE n <> 0) c USING (source, status, category)
			WHERE r.n IS DISTINCT FROM c.n`).Scan(&drift)
		if err != nil {
			t.Fatal(err)
		}
		if drift != 0 {
			t.Errorf("after %s: %d keys differ from a recount", step, drift)
		}
		a, err := s.AdminStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want store.AdminStats
		err = s.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'posted'),
			count(*) FILTER (WHERE status = 'rejected'), count(*) FILTER (WHERE status = 'pending' AND source = 'mention') FROM posts`).
			Scan(&want.Pending, &want.Posted, &want.Rejected, &want.PendingMentions)
		if err != nil {
			t.Fatal(err)
		}
		if a != want {
			t.Errorf("after %s: AdminStats %+v, recount %+v", step, a, want)
		}
	}
	var ids []int64
	for i, src := range []post.Source{post.SourceMention, post.SourceMention, post.SourceConversation, post.SourceTargeted, post.SourceMention} {
		id, _, err := s.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: src, OriginalPostID: "o" + string(rune('a'+i)),
			OriginalPostText: "hello", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	profile, err := s.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	check("inserts")
	for _, id := range append(ids[:4:4], profile) {
		if err := s.SaveDraft(ctx, id, store.Draft{Response: "burn", Category: post.Category("wrath")}); err != nil {
			t.Fatal(err)
		}
	}
	check("drafts")
	if err := s.FailDraft(ctx, ids[4], "refused"); err != nil {
		t.Fatal(err)
	}
	check("a failed draft")
	if _, err := s.ApproveWith(ctx, ids[0], store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BeginSend(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkPosted(ctx, ids[0], "r1", time.Now()); err != nil {
		t.Fatal(err)
	}
	check("a post")
	if _, err := s.ApproveWith(ctx, ids[1], store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if err := s.FailSend(ctx, ids[1], "refused"); err != nil {
		t.Fatal(err)
	}
	check("a failed send")
	if _, err := s.RejectWith(ctx, ids[2], nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RejectWith(ctx, ids[1], nil, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	check("rejects")
	extra, err := s.CreateProfileDraft(ctx, "sandbox", "devil")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDraft(ctx, extra); err != nil {
		t.Fatal(err)
	}
	check("a deleted draft")
	if err := s.SetResponseMetrics(ctx, map[int64]store.Metrics{ids[0]: {Likes: 9}}); err != nil {
		t.Fatal(err)
	}
	check("a metrics refresh")
}
