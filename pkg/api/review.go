package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// maxBulk is the most posts one bulk action judges.
const maxBulk = 100

type versionView struct {
	Text   string `json:"text"`
	Origin string `json:"origin"`
	// Instruction is the reviewer's wish for a regenerated draft; "" otherwise.
	Instruction string    `json:"instruction"`
	At          time.Time `json:"at"`
	// LearnedFrom is what shaped this text.
	LearnedFrom learnedFromView `json:"learned_from"`
	// GroundedIn are the knowledge chunks this text's prompt held.
	GroundedIn []post.Ground `json:"grounded_in"`
}

type decisionView struct {
	Action string `json:"action"`
	// By is the channel: web, bulk, telegram or autopilot.
	By           string         `json:"by"`
	DraftVersion int            `json:"draft_version"`
	Detail       map[string]any `json:"detail"`
	At           time.Time      `json:"at"`
}

// timingView is when a post reached each step, for the card's latencies;
// null for a step not reached.
type timingView struct {
	// MentionAt is when the mortal posted.
	MentionAt time.Time `json:"mention_at"`
	// DraftedAt is when the first draft was written.
	DraftedAt *time.Time `json:"drafted_at"`
	// DecidedAt is when the draft was first approved or rejected.
	DecidedAt *time.Time `json:"decided_at"`
	// PostedAt is when the reply went out.
	PostedAt *time.Time `json:"posted_at"`
}

type historyResponse struct {
	Versions  []versionView  `json:"versions"`
	Decisions []decisionView `json:"decisions"`
	Timing    timingView     `json:"timing"`
	// Learned is what shaped the current draft, for the card's disclosure.
	Learned learnedView `json:"learned"`
	// Facts are the knowledge chunks the current draft's prompt held
	// (grounded_in), each with its text and its document's title; those
	// deleted since are left out.
	Facts []factView `json:"facts"`
}

// learnedView details what shaped a draft: each case still in the memory
// with its post and reply, each lesson still stored with its text.
type learnedView struct {
	Cases   []learnedCaseView   `json:"cases"`
	Lessons []learnedLessonView `json:"lessons"`
}

type learnedCaseView struct {
	ID          int64  `json:"id"`
	MentionText string `json:"mention_text"`
	FinalText   string `json:"final_text"`
}

type learnedLessonView struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// learned details l, the cases and lessons deleted since left out.
func (s *Server) learned(ctx context.Context, l post.LearnedFrom) (learnedView, error) {
	out := learnedView{Cases: []learnedCaseView{}, Lessons: []learnedLessonView{}}
	cases, err := s.store.CasesByID(ctx, l.Cases)
	if err != nil {
		return learnedView{}, err
	}
	for _, c := range cases {
		out.Cases = append(out.Cases, learnedCaseView{ID: c.ID, MentionText: c.Mention, FinalText: c.Final})
	}
	lessons, err := s.store.LessonsByID(ctx, l.Lessons)
	if err != nil {
		return learnedView{}, err
	}
	for _, ls := range lessons {
		out.Lessons = append(out.Lessons, learnedLessonView{ID: ls.ID, Text: ls.Text})
	}
	return out, nil
}

// history answers every version of a post's draft, oldest first.
func (s *Server) history(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	vs, err := s.store.History(r.Context(), id)
	if err != nil {
		return err
	}
	ds, err := s.store.Decisions(r.Context(), id)
	if err != nil {
		return err
	}
	p, err := s.store.Post(r.Context(), id)
	if err != nil {
		return err
	}
	out := historyResponse{Versions: []versionView{}, Decisions: []decisionView{}}
	for _, v := range vs {
		out.Versions = append(out.Versions, versionView{Text: v.Text, Origin: string(v.Origin), Instruction: v.Instruction, At: v.At.UTC(),
			LearnedFrom: viewLearnedFrom(v.LearnedFrom), GroundedIn: v.LearnedFrom.NonNil().Facts})
	}
	for _, d := range ds {
		detail := d.Detail
		if detail == nil {
			detail = map[string]any{}
		}
		out.Decisions = append(out.Decisions, decisionView{Action: string(d.Action), By: string(d.By), DraftVersion: d.DraftVersion, Detail: detail, At: d.At.UTC()})
		if out.Timing.DecidedAt == nil && (d.Action == post.ActionApprove || d.Action == post.ActionReject) {
			at := d.At.UTC()
			out.Timing.DecidedAt = &at
		}
	}
	out.Timing.MentionAt = p.CreatedAt.UTC()
	if len(vs) > 0 {
		at := vs[0].At.UTC()
		out.Timing.DraftedAt = &at
	}
	if p.PostedAt != nil {
		at := p.PostedAt.UTC()
		out.Timing.PostedAt = &at
	}
	if out.Learned, err = s.learned(r.Context(), p.LearnedFrom); err != nil {
		return err
	}
	if out.Facts, err = s.factsOf(r, p.LearnedFrom.Facts); err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

type regenerateRequest struct {
	// Instruction is the reviewer's one-line wish for the new draft.
	Instruction *string `json:"instruction"`
	// DraftVersion is the draft version the reviewer saw; absent: the current.
	DraftVersion *int `json:"draft_version"`
}

// regenerate asks the writer for a new draft of a pending or failed post,
// to an optional instruction, and waits a little for it: 200 with the post
// and its new draft when the worker wrote it in time, else 202 with the
// post as it is while the worker writes (the new draft then shows in the
// lists and the history). A post in any other status is a 409. A session
// with a preview or regenerate in flight, or 10 in the last minute, is
// answered 429 (see beginModelCall).
func (s *Server) regenerate(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req regenerateRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	instruction := ""
	if req.Instruction != nil {
		if instruction, err = post.CheckInstruction(*req.Instruction); err != nil {
			return &settings.FieldError{Field: "instruction", Problem: fmt.Sprintf("must be one line of at most %d characters, without control characters", post.MaxInstruction)}
		}
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	ctx := r.Context()
	release, err := s.beginModelCall(r)
	if err != nil {
		return err
	}
	defer release()
	before, err := s.store.LatestVersionID(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.decide.Regenerate(ctx, id, instruction, req.DraftVersion, post.ByWeb); err != nil {
		return err
	}
	// The worker writes a new version when it has redrafted the post.
	drafted, err := pollUntil(ctx, s.regenerateWait, func() (bool, error) {
		latest, err := s.store.LatestVersionID(ctx, id)
		return latest != before, err
	})
	if err != nil {
		return err
	}
	p, err := s.store.Post(ctx, id)
	if err != nil {
		return err
	}
	if !drafted {
		respondJSON(w, http.StatusAccepted, s.view(p, s.now()))
		return nil
	}
	s.public.invalidate()
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

// pollUntil asks done every 100 ms until it reports true (answering true),
// wait has passed (false) or ctx ends: the web tier's wait for a worker
// that answers through the database.
func pollUntil(ctx context.Context, wait time.Duration, done func() (bool, error)) (bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			return false, nil
		case <-tick.C:
			ok, err := done()
			if ok || err != nil {
				return ok, err
			}
		}
	}
}

type bulkRequest struct {
	// IDs are the posts to judge, 1 to maxBulk distinct positive ids; or Items.
	IDs []int64 `json:"ids"`
	// Items are the posts to judge, each with the draft version shown; in
	// place of IDs.
	Items []bulkItem `json:"items"`
	// Action is "approve" or "reject".
	Action string `json:"action"`
	// Override approves flagged drafts anyway.
	Override bool `json:"override"`
	// Reason is the reason of every rejection; only with action reject.
	Reason *string `json:"reason"`
}

// bulkItem is one post of a bulk decision and the draft version shown.
type bulkItem struct {
	ID           int64 `json:"id"`
	DraftVersion *int  `json:"draft_version"`
}

type bulkResult struct {
	ID int64 `json:"id"`
	OK bool  `json:"ok"`
	// Error says why this post was not judged; null when it was.
	Error *string `json:"error"`
	// Status is the HTTP status the single route would have answered.
	Status int `json:"status"`
	// Post is the post as it now is, when it was judged.
	Post *postView `json:"post,omitempty"`
	// DraftVersion is the post's current draft version, when the one shown
	// was stale (a 409).
	DraftVersion *int `json:"draft_version,omitempty"`
}

type bulkResponse struct {
	Results []bulkResult `json:"results"`
}

// bulk approves or rejects several posts, each through the same path as
// the single routes, and reports each result in the order of the ids.
func (s *Server) bulk(w http.ResponseWriter, r *http.Request) error {
	var req bulkRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	if req.Reason != nil && req.Action != actionReject {
		return &settings.FieldError{Field: "reason", Problem: "is only for action reject"}
	}
	reason, err := rejectReason(req.Reason)
	if err != nil {
		return err
	}
	items := req.Items
	if items == nil {
		for _, id := range req.IDs {
			items = append(items, bulkItem{ID: id})
		}
	}
	out := bulkResponse{Results: make([]bulkResult, 0, len(items))}
	for _, it := range items {
		v := verdict{action: req.Action, override: req.Override, shown: it.DraftVersion, by: post.ByBulk, reason: reason}
		p, err := s.judge(r.Context(), it.ID, v)
		if err != nil {
			status, msg := s.errorStatus(r, err)
			res := bulkResult{ID: it.ID, Error: &msg, Status: status}
			var stale *post.VersionError
			if errors.As(err, &stale) {
				res.DraftVersion = &stale.Have
			}
			out.Results = append(out.Results, res)
			continue
		}
		view := s.view(p, s.now())
		out.Results = append(out.Results, bulkResult{ID: it.ID, OK: true, Status: http.StatusOK, Post: &view})
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// validate refuses a bulk request whose action or ids are not usable,
// naming the field.
func (req bulkRequest) validate() error {
	if req.Action != actionApprove && req.Action != actionReject {
		return badRequest(`action must be "approve" or "reject"`)
	}
	if req.IDs != nil && req.Items != nil {
		return badRequest("give ids or items, not both")
	}
	if req.Items != nil {
		if len(req.Items) == 0 || len(req.Items) > maxBulk {
			return badRequest("items must hold 1 to %d posts", maxBulk)
		}
		seen := make(map[int64]bool, len(req.Items))
		for i, it := range req.Items {
			if it.ID <= 0 {
				return badRequest("items[%d].id must be a positive integer", i)
			}
			if it.DraftVersion != nil && *it.DraftVersion < 1 {
				return badRequest("items[%d].draft_version must be a positive integer", i)
			}
			if seen[it.ID] {
				return badRequest("items[%d] repeats post %d; items must be distinct", i, it.ID)
			}
			seen[it.ID] = true
		}
		return nil
	}
	if len(req.IDs) == 0 || len(req.IDs) > maxBulk {
		return badRequest("ids must hold 1 to %d post ids", maxBulk)
	}
	seen := make(map[int64]bool, len(req.IDs))
	for i, id := range req.IDs {
		if id <= 0 {
			return badRequest("ids[%d] must be a positive integer", i)
		}
		if seen[id] {
			return badRequest("ids[%d] repeats post %d; ids must be distinct", i, id)
		}
		seen[id] = true
	}
	return nil
}
