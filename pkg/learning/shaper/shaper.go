// Package shaper finds what shapes a draft: the similar past cases given
// as examples and the lessons for its prompt (pkg/retrieval ranks them),
// and distils the lessons of new decisions with a writer. It lives apart
// from pkg/learning, the domain the web tier uses, because it speaks the
// writer's types, which the web tier never links.
package shaper

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"infernal/pkg/guard"
	"infernal/pkg/learning"
	"infernal/pkg/post"
	"infernal/pkg/retrieval"
	"infernal/pkg/settings"
	"infernal/pkg/writer"
)

// Store holds the cases and lessons; *store.Store is one.
type Store interface {
	// CaseCandidates returns the cases whose post matches one of terms or
	// resembles normalized.
	CaseCandidates(ctx context.Context, terms []string, normalized string) ([]learning.Candidate, error)
	// EnabledLessons returns the lessons that may go into a prompt.
	EnabledLessons(ctx context.Context) ([]learning.Lesson, error)
	// LessonsVersion returns a number that moves on whenever
	// EnabledLessons would return other lessons.
	LessonsVersion(ctx context.Context) (int64, error)
	// MarkLearnedUsed counts one more use of the cases and lessons.
	MarkLearnedUsed(ctx context.Context, l post.LearnedFrom) error
	// CasesToDistill returns cases waiting for their lesson, oldest first.
	CasesToDistill(ctx context.Context, limit int) ([]learning.Case, error)
	// MarkDistilled marks a case's lesson distilled.
	MarkDistilled(ctx context.Context, id int64) error
	// AddLesson stores a lesson, or raises a near-duplicate's count.
	AddLesson(ctx context.Context, text string, kind learning.LessonKind, source int64) (learning.Lesson, bool, error)
}

// Shaper finds what shapes a draft: the similar past cases given as
// examples and the lessons for its prompt, and distils the lessons of new
// decisions. Its zero value is not usable: set Store.
type Shaper struct {
	Store Store
	// Persona is the persona's handle, for the outbound check of examples.
	Persona string
	// Chars bounds the learned text of one prompt (LEARNING_PROMPT_CHARS);
	// 0 takes retrieval.DefaultChars.
	Chars int
	// Floor is the least similarity of an example; 0 takes retrieval.DefaultFloor.
	Floor float64
	// Embedder re-ranks the candidates by embeddings when set
	// (EMBEDDINGS_MODEL); a failure of it leaves the lexical ranking.
	Embedder retrieval.Embedder
	// Distiller writes the lessons of new decisions; nil distils none.
	Distiller writer.Distiller
	// Now is the clock of the recency boosts; nil is time.Now.
	Now func() time.Time
	Log *slog.Logger

	// mu guards the enabled lessons kept between drafts (the worker's
	// drafts run concurrently on one Shaper), read at lessonsVersion.
	mu             sync.Mutex
	lessons        []learning.Lesson
	lessonsVersion int64
}

// Shaping is what shapes one draft.
type Shaping struct {
	Examples []writer.Example
	Lessons  []writer.Lesson
	// Learned names them, by id, for the post and its history.
	Learned post.LearnedFrom
}

// Tunables of the shaping.
const (
	// autopilotWeight ranks a case autopilot approved, which nobody looked
	// at, below one a person approved.
	autopilotWeight = 0.8
	// importWeight ranks an imported reply just below a person's approval
	// made here.
	importWeight = 0.95
	// maxExamplePost is the longest post of an example, in characters.
	maxExamplePost = 280
	// lessonShare is the part of the budget the lessons may take.
	lessonShare = 3
)

// Shape returns what shapes the draft of p under l: nothing when learning
// is off or p is no reply; else at most l.Examples approved or edited
// cases like p (retrieval.Select: above the floor, one per conversation,
// no near-identical replies, within the budget; never a case whose reply
// no longer passes the outbound check or p's platform's length) and at
// most l.Lessons enabled lessons that apply to p (see lessonScore).
func (s *Shaper) Shape(ctx context.Context, p post.Post, l settings.Learning) (Shaping, error) {
	if !l.Enabled || p.IsProfile() || (l.Examples == 0 && l.Lessons == 0) {
		return Shaping{}, nil
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	chars := s.Chars
	if chars <= 0 {
		chars = retrieval.DefaultChars
	}
	floor := s.Floor
	if floor <= 0 {
		floor = retrieval.DefaultFloor
	}
	terms := retrieval.Terms(p.OriginalPostText)
	cands, err := s.Store.CaseCandidates(ctx, terms, strings.Join(terms, " "))
	if err != nil {
		return Shaping{}, err
	}
	items := make([]retrieval.Item, len(cands))
	texts := make([]string, len(cands))
	for i, c := range cands {
		items[i] = item(c, p)
		items[i].Overlap = retrieval.Overlap(terms, c.Mention)
		texts[i] = c.Mention
	}
	if s.Embedder != nil && len(items) > 0 {
		if err := retrieval.Rerank(ctx, s.Embedder, p.OriginalPostText, items, texts); err != nil {
			s.log().WarnContext(ctx, "embeddings failed: examples ranked by text alone", "post_id", p.ID, "error", err)
		}
	}
	// How like p each case is, rejected ones too: what ranks the lessons.
	sims := make(map[int64]float64, len(items))
	for _, it := range items {
		sims[it.ID] = retrieval.Similarity(it)
	}

	var out Shaping
	used := 0
	if l.Lessons > 0 {
		lessons, err := s.enabledLessons(ctx)
		if err != nil {
			return Shaping{}, err
		}
		for _, ls := range pickLessons(lessons, sims, floor, l.Lessons, chars/lessonShare, now) {
			out.Lessons = append(out.Lessons, writer.Lesson{Text: ls.Text, Rejection: ls.Kind == learning.KindRejection})
			out.Learned.Lessons = append(out.Learned.Lessons, ls.ID)
			used += utf8.RuneCountInString(ls.Text)
		}
	}
	if l.Examples > 0 {
		byID := make(map[int64]learning.Candidate, len(cands))
		var usable []retrieval.Item
		for i, c := range cands {
			// Below the floor Select drops it anyway: the outbound check
			// (the costly part of a draft's retrieval) runs only on those
			// that may be chosen.
			if retrieval.Similarity(items[i]) < floor || !s.exampleFits(c, p) {
				continue
			}
			byID[c.ID] = c
			usable = append(usable, items[i])
		}
		chosen := retrieval.Select(usable, retrieval.Options{K: l.Examples, Floor: floor, Chars: chars - used, Now: now})
		for _, c := range chosen {
			cs := byID[c.ID]
			out.Examples = append(out.Examples, writer.Example{Post: clip(cs.Mention, maxExamplePost), Reply: cs.Final})
			out.Learned.Cases = append(out.Learned.Cases, c.ID)
		}
	}
	if err := s.Store.MarkLearnedUsed(ctx, out.Learned); err != nil {
		return Shaping{}, err
	}
	return out, nil
}

// enabledLessons returns the enabled lessons, read again only when the
// store's LessonsVersion has moved since they were last read.
func (s *Shaper) enabledLessons(ctx context.Context) ([]learning.Lesson, error) {
	v, err := s.Store.LessonsVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.lessonsVersion == v && v != 0 {
		lessons := s.lessons
		s.mu.Unlock()
		return lessons, nil
	}
	s.mu.Unlock()
	// Read after the version: a change in between moves the version on
	// again, so the next draft reads the lessons once more.
	lessons, err := s.Store.EnabledLessons(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lessons, s.lessonsVersion = lessons, v
	s.mu.Unlock()
	return lessons, nil
}

// item is c as retrieval ranks it against p.
func item(c learning.Candidate, p post.Post) retrieval.Item {
	it := retrieval.Item{
		ID: c.ID, Text: c.Final, Size: utf8.RuneCountInString(clip(c.Mention, maxExamplePost)) + utf8.RuneCountInString(c.Final),
		Key: c.ConversationKey, Trigram: c.Trigram, Rank: c.Rank, At: c.CreatedAt,
	}
	if c.Engagement != nil {
		it.Engagement = float64(*c.Engagement)
	}
	switch c.By {
	case string(post.ByAutopilot):
		it.Weight = autopilotWeight
	case learning.ByImport:
		it.Weight = importWeight
	}
	if c.PostID != 0 && c.PostID == p.ID {
		// A post is never its own example (a regenerated draft).
		it.Text = ""
	}
	return it
}

// exampleFits reports whether case c may be an example for p: approved or
// edited, its reply within p's limit (Post.Limit), and passing the
// outbound check as a reply to p now (no link, no foreign @mention).
func (s *Shaper) exampleFits(c learning.Candidate, p post.Post) bool {
	if c.Decision == learning.DecisionRejected || strings.TrimSpace(c.Final) == "" {
		return false
	}
	if post.CheckResponseFor(p.Platform, p.Limit(), c.Final) != nil {
		return false
	}
	return len(guard.ReplyFlags(c.Final, p.AuthorUsername, p.OriginalPostText, s.Persona)) == 0
}

// pickLessons returns at most k of lessons that apply to the post whose
// similar cases are sims, best first (lessonScore), within chars.
func pickLessons(lessons []learning.Lesson, sims map[int64]float64, floor float64, k, chars int, now time.Time) []learning.Lesson {
	type scored struct {
		learning.Lesson
		score float64
	}
	var cands []scored
	for _, l := range lessons {
		if sc, ok := lessonScore(l, sims, floor, now); ok {
			cands = append(cands, scored{l, sc})
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return int(a.ID - b.ID)
	})
	var out []learning.Lesson
	used := 0
	for _, c := range cands {
		if len(out) == k {
			break
		}
		n := utf8.RuneCountInString(c.Text)
		if chars > 0 && used+n > chars {
			continue
		}
		out = append(out, c.Lesson)
		used += n
	}
	return out
}

// lessonScore ranks lesson l for a post whose similar cases are sims, and
// says whether it applies at all: a manual lesson, or one confirmed by
// several decisions (count 2 or more), applies to every post; a lesson of
// one decision only where its source case resembles the post (at the
// floor), so that one edit teaches the posts like it and no other. The
// score adds the count (log-scaled), the best similarity of its source
// cases and a recency boost halved every 30 days.
func lessonScore(l learning.Lesson, sims map[int64]float64, floor float64, now time.Time) (float64, bool) {
	best := 0.0
	for _, id := range l.SourceCaseIDs {
		best = max(best, sims[id])
	}
	general := l.Kind == learning.KindManual || l.Count >= 2
	if !general && best < floor {
		return 0, false
	}
	recency := 0.0
	if !l.CreatedAt.IsZero() {
		recency = math.Exp2(-float64(max(now.Sub(l.CreatedAt), 0)) / float64(30*24*time.Hour))
	}
	return math.Log1p(float64(l.Count)) + 2*best + 0.3*recency, true
}

// MaxDistilPerRun is the most decisions one Distil call teaches from.
const MaxDistilPerRun = 20

// Distil writes the lessons of the decisions waiting for theirs (edits,
// rejections with a reason), at most MaxDistilPerRun, and returns how many
// lessons it added or confirmed. A lesson that is not a valid lesson text
// (learning.CheckLesson) is dropped; a failing distiller leaves the rest for the
// next run.
func (s *Shaper) Distil(ctx context.Context) (int, error) {
	if s.Distiller == nil {
		return 0, nil
	}
	cases, err := s.Store.CasesToDistill(ctx, MaxDistilPerRun)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cases {
		rejected := c.Decision == learning.DecisionRejected
		text, err := s.Distiller.Distill(ctx, writer.Edit{Post: c.Mention, Draft: c.Draft, Final: c.Final, Rejected: rejected, Reason: c.Reason,
			Language: c.Language})
		if err != nil {
			return n, fmt.Errorf("learning: distil case %d: %w", c.ID, err)
		}
		if text, err = learning.CheckLesson(text); err == nil {
			kind := learning.KindEdit
			if rejected {
				kind = learning.KindRejection
			}
			if _, _, err := s.Store.AddLesson(ctx, text, kind, c.ID); err != nil {
				return n, err
			}
			n++
		}
		if err := s.Store.MarkDistilled(ctx, c.ID); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (s *Shaper) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// clip is text at most n characters, cut with "…".
func clip(text string, n int) string {
	r := []rune(strings.TrimSpace(text))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
