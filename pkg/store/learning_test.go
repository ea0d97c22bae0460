package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"infernal/pkg/learning"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// caseOf returns post id's case, failing when there is none.
func caseOf(t *testing.T, s *store.Store, id int64) learning.Case {
	t.Helper()
	cases, _, err := s.Cases(context.Background(), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.PostID == id {
			return c
		}
	}
	t.Fatalf("post %d has no case", id)
	return learning.Case{}
}

// Every decision on a draft becomes a case, by its channel: approved as
// written, edited (with the writer's draft and the final text), rejected
// (with a reason given after); a withdrawn auto-approval takes its case
// back, and a deleted case leaves the post as it was.
func TestDecisionsRecordCases(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	edited := "Hell keeps it short."
	tests := []struct {
		name     string
		decide   func(id int64) error
		decision learning.Decision
		by       string
		final    string
	}{
		{name: "approved", decision: learning.DecisionApproved, by: "web", final: "draft approved",
			decide: func(id int64) error {
				_, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb})
				return err
			}},
		{name: "edited in telegram", decision: learning.DecisionEdited, by: "telegram", final: edited,
			decide: func(id int64) error {
				_, err := s.ApproveWith(ctx, id, store.Approval{Edited: &edited, By: post.ByTelegram})
				return err
			}},
		{name: "rejected in bulk", decision: learning.DecisionRejected, by: "bulk", final: "draft rejected in bulk",
			decide: func(id int64) error {
				_, err := s.RejectWith(ctx, id, nil, post.ByBulk)
				return err
			}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			draft := "draft " + tt.name
			if tt.decision != learning.DecisionEdited {
				draft = tt.final
			}
			id := pending(t, s, fmt.Sprint("dec", i), post.SourceMention, draft)
			if err := tt.decide(id); err != nil {
				t.Fatal(err)
			}
			c := caseOf(t, s, id)
			if c.Decision != tt.decision || c.By != tt.by || c.Final != tt.final || c.Draft != draft || c.Mention == "" || c.Author != "mortal" ||
				c.Language != "pt-BR" {
				t.Fatalf("case = %+v; want %s by %s, final %q, draft %q", c, tt.decision, tt.by, tt.final, draft)
			}
		})
	}

	id := pending(t, s, "reason", post.SourceMention, "off the mark")
	if _, err := s.RejectWith(ctx, id, nil, post.ByTelegram); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCaseReason(ctx, id, "Too long"); err != nil {
		t.Fatal(err)
	}
	waiting, err := s.CasesToDistill(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var reasons, edits int
	for _, c := range waiting {
		switch c.Decision {
		case learning.DecisionRejected:
			reasons++
			if c.Reason != "Too long" {
				t.Fatalf("reason = %q", c.Reason)
			}
		case learning.DecisionEdited:
			edits++
		}
	}
	if reasons != 1 || edits != 1 {
		t.Fatalf("to distil: %d rejections with a reason, %d edits; want 1 and 1", reasons, edits)
	}

	auto := pending(t, s, "auto", post.SourceMention, "auto draft")
	if _, err := s.ApproveWith(ctx, auto, store.Approval{By: post.ByAutopilot, Auto: &store.Auto{Grace: time.Hour, MaxPerHour: 5}}); err != nil {
		t.Fatal(err)
	}
	if c := caseOf(t, s, auto); c.By != "autopilot" {
		t.Fatalf("autopilot case by %q", c.By)
	}
	if _, err := s.CancelAutoApproval(ctx, auto, post.ByWeb); err != nil {
		t.Fatal(err)
	}
	cases, total, err := s.Cases(ctx, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.PostID == auto {
			t.Fatal("a cancelled auto-approval keeps its case")
		}
	}
	if err := s.DeleteCase(ctx, cases[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, after, _ := s.Cases(ctx, "", 1); after != total-1 {
		t.Fatalf("after delete: %d cases, want %d", after, total-1)
	}
	if _, err := s.Post(ctx, cases[0].PostID); err != nil {
		t.Fatalf("the post of a deleted case: %v", err)
	}
	if err := s.DeleteCase(ctx, cases[0].ID); !isNotFound(err) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// An author blocked (by an opt-out or in the settings) leaves the memory.
func TestBlockedAuthorsCasesArePurged(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	id := pending(t, s, "p1", post.SourceMention, "a reply")
	if _, err := s.ApproveWith(ctx, id, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	other, _, err := s.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "p2", ConversationID: "c2",
		OriginalPostText: "another post", AuthorUsername: "stays", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDraft(ctx, other, store.Draft{Response: "another reply", Category: "wrath"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveWith(ctx, other, store.Approval{By: post.ByWeb}); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockAuthor(ctx, "sandbox", "mortal", "", "opted out", id); err != nil {
		t.Fatal(err)
	}
	cases, total, err := s.Cases(ctx, "", 1)
	if err != nil || total != 1 || cases[0].Author != "stays" {
		t.Fatalf("after the opt-out: %d cases (%v), want the other author's alone", total, err)
	}
	set, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.BlockedAuthors = append(set.BlockedAuthors, "stays")
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := s.Cases(ctx, "", 1); total != 0 {
		t.Fatalf("after blocking in the settings: %d cases, want 0", total)
	}
}

// A block purges the cases of its platforms alone: X's user 9 blocked
// keeps the case of Mastodon's account 9, and X's handle "erin" that of
// the Mastodon account whose acct is erin; a Mastodon block purges it.
func TestBlockedCasesPurgedOnTheirPlatform(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	for _, c := range []struct{ id, platform, author, authorID string }{
		{"m1", "mastodon", "erin", "9"}, {"x1", "x", "someone", "9"},
	} {
		p := found(c.id, post.SourceMention)
		p.Platform, p.AuthorUsername, p.AuthorID = c.platform, c.author, c.authorID
		row, _, err := s.UpsertFound(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveDraft(ctx, row, store.Draft{Response: "a reply", Category: "wrath"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApproveWith(ctx, row, store.Approval{By: post.ByWeb}); err != nil {
			t.Fatal(err)
		}
	}
	platforms := func() []string {
		t.Helper()
		cases, _, err := s.Cases(ctx, "", 1)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cases {
			out = append(out, c.Platform)
		}
		slices.Sort(out)
		return out
	}
	if err := s.PutSettings(ctx, settings.Settings{BlockedAuthors: []string{"9", "erin"}, Caps: settings.DefaultCaps()}); err != nil {
		t.Fatal(err)
	}
	if got := platforms(); !slices.Equal(got, []string{"mastodon"}) {
		t.Fatalf("after X's 9 and erin are blocked: cases of %q, want Mastodon's alone", got)
	}
	if err := s.BlockAuthor(ctx, "mastodon", "erin@mastodon.test", "9", "opt-out", 0); err != nil {
		t.Fatal(err)
	}
	if got := platforms(); len(got) != 0 {
		t.Fatalf("after the Mastodon author opted out: cases of %q, want none", got)
	}
}

// A near-duplicate lesson raises the count of the one stored, with its
// source; a different one is added; edits and deletes answer ErrNotFound
// for an unknown id.
func TestLessons(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	a, created, err := s.AddLesson(ctx, "Keep replies under about 120 characters", learning.KindEdit, 0)
	if err != nil || !created {
		t.Fatalf("first: %v %v", created, err)
	}
	b, created, err := s.AddLesson(ctx, "keep replies under about 110 characters", learning.KindEdit, 0)
	if err != nil || created || b.ID != a.ID || b.Count != 2 {
		t.Fatalf("near-duplicate: %+v created=%v %v", b, created, err)
	}
	c, created, err := s.AddLesson(ctx, "No emoji", learning.KindManual, 0)
	if err != nil || !created || c.ID == a.ID {
		t.Fatalf("different: %+v created=%v %v", c, created, err)
	}
	off := false
	if _, err := s.UpdateLesson(ctx, c.ID, nil, &off); err != nil {
		t.Fatal(err)
	}
	enabled, err := s.EnabledLessons(ctx)
	if err != nil || len(enabled) != 1 || enabled[0].ID != a.ID {
		t.Fatalf("enabled = %+v, %v", enabled, err)
	}
	if _, err := s.UpdateLesson(ctx, 999999, nil, &off); !isNotFound(err) {
		t.Fatalf("update unknown: %v", err)
	}
	if err := s.DeleteLesson(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteLesson(ctx, c.ID); !isNotFound(err) {
		t.Fatalf("delete twice: %v", err)
	}
}

// Imported cases are approved cases by import, each its own
// conversation, found by text search and trigram similarity; the learning
// settings round-trip, '{}' reading as the default.
func TestImportAndCandidates(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	n, err := s.ImportCases(ctx, []store.ImportedCase{
		{Platform: "x", Mention: "My sourdough starter died again", Reply: "Even hell's ovens mourn it.", Language: "en"},
		{Platform: "x", Mention: "Marathon training at dawn", Reply: "Sloth salutes you from bed."},
	})
	if err != nil || n != 2 {
		t.Fatalf("ImportCases = %d, %v", n, err)
	}
	cands, err := s.CaseCandidates(ctx, []string{"sourdough", "starter"}, "sourdough starter")
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].By != learning.ByImport || cands[0].Decision != learning.DecisionApproved || cands[0].Rank <= 0 {
		t.Fatalf("candidates = %+v", cands)
	}
	if got, _, err := s.Cases(ctx, "marathon", 1); err != nil || len(got) != 1 || got[0].Language != "" {
		t.Fatalf("search: %+v, %v", got, err)
	}
	if got, _, err := s.Cases(ctx, "sourdough", 1); err != nil || len(got) != 1 || got[0].Language != "en" {
		t.Fatalf("search: %+v, %v", got, err)
	}

	set, err := s.Settings(ctx)
	if err != nil || set.Learning != settings.DefaultLearning() {
		t.Fatalf("default learning = %+v, %v", set.Learning, err)
	}
	set.Learning = settings.Learning{Enabled: false, Examples: 0, Lessons: 2}
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Settings(ctx); err != nil || got.Learning != set.Learning {
		t.Fatalf("learning = %+v, %v; want %+v", got.Learning, err, set.Learning)
	}
}

// The lessons' version moves on with every change to what a prompt takes
// of the lessons, and not with a use counted (which every draft does).
func TestLessonsVersion(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	var id int64
	off := false
	text := "Never open with a question"
	steps := []struct {
		name  string
		do    func() error
		moves bool
	}{
		{"add", func() error {
			l, _, err := s.AddLesson(ctx, "No emoji", learning.KindManual, 0)
			id = l.ID
			return err
		}, true},
		{"confirm", func() error { _, _, err := s.AddLesson(ctx, "no emoji", learning.KindEdit, 0); return err }, true},
		{"use", func() error { return s.MarkLearnedUsed(ctx, post.LearnedFrom{Lessons: []int64{id}}) }, false},
		{"edit", func() error { _, err := s.UpdateLesson(ctx, id, &text, nil); return err }, true},
		{"disable", func() error { _, err := s.UpdateLesson(ctx, id, nil, &off); return err }, true},
		{"delete", func() error { return s.DeleteLesson(ctx, id) }, true},
	}
	before, err := s.LessonsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		after, err := s.LessonsVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if moved := after != before; moved != step.moves {
			t.Errorf("%s: version %d -> %d, moved %v, want %v", step.name, before, after, moved, step.moves)
		}
		before = after
	}
}
