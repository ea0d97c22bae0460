package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"infernal/pkg/decision"
	"infernal/pkg/guard"
	"infernal/pkg/learning"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/tasks"
)

// pageSize is the number of posts on one page of an admin list.
const pageSize = 10

// maxPage bounds page numbers so that offsets cannot overflow.
const maxPage = 100000

// errQueueDown marks work that could not be handed to Redis.
var errQueueDown = decision.ErrQueueDown

// listPaths names, under /api/posts, the admin list of each source; the list
// of tabs itself is post.Sources.
var listPaths = map[post.Source]string{
	post.SourceConversation: "pending",
	post.SourceMention:      "mentions",
	post.SourceProfile:      "profile",
	post.SourceTargeted:     "targeted",
}

type listResponse struct {
	Posts      []postView `json:"posts"`
	Pagination pagination `json:"pagination"`
}

type pagination struct {
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	Total      int `json:"total"`
	TotalPages int `json:"totalPages"`
}

// pageAndSort parses the page and sortBy parameters of an admin list.
func pageAndSort(r *http.Request) (int, post.Sort, error) {
	q := r.URL.Query()
	page, err := intParam(q.Get("page"), "page", 1, 1, maxPage)
	if err != nil {
		return 0, "", err
	}
	sort, err := post.ParseSort(q.Get("sortBy"))
	if err != nil {
		return 0, "", badRequest("%v", err)
	}
	return page, sort, nil
}

// platformParam parses the platform filter of an admin list: "" (absent)
// for every platform, else one of post.Platforms.
func platformParam(r *http.Request) (string, error) {
	p := r.URL.Query().Get("platform")
	if p != "" && !post.ValidPlatform(p) {
		return "", badRequest("platform must be one of %s", strings.Join(post.Platforms(), ", "))
	}
	return p, nil
}

// listPosts answers one page of the pending posts of source's tab, of
// every platform or of the one the platform parameter names.
func (s *Server) listPosts(source post.Source) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		page, sort, err := pageAndSort(r)
		if err != nil {
			return err
		}
		platform, err := platformParam(r)
		if err != nil {
			return err
		}
		posts, total, err := s.store.ListPendingOn(r.Context(), source, platform, sort, page, pageSize)
		if err != nil {
			return err
		}
		respondJSON(w, http.StatusOK, s.listOf(posts, page, total))
		return nil
	}
}

// intParam parses an integer query parameter within [min, max]; empty means def.
func intParam(raw, name string, def, min, max int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < min || n > max {
		return 0, badRequest("%s must be an integer from %d to %d", name, min, max)
	}
	return n, nil
}

// adminStats answers the dashboard's counts, of every platform or of the
// one the platform parameter names.
func (s *Server) adminStats(w http.ResponseWriter, r *http.Request) error {
	platform, err := platformParam(r)
	if err != nil {
		return err
	}
	a, err := s.store.AdminStatsOn(r.Context(), platform)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, adminStatsView{
		Pending: count{a.Pending}, Posted: count{a.Posted}, Rejected: count{a.Rejected}, Mentions: count{a.PendingMentions},
		Platforms: s.platformList(), MediaHosts: append([]string{}, s.mediaHosts...),
	})
	return nil
}

// postID reads the {id} of the path.
func postID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("post id must be a positive integer")
	}
	return id, nil
}

type approveRequest struct {
	// Response, when present, replaces the drafted text before approval.
	Response *string `json:"response"`
	// Override approves a text the outbound check flags ("approve anyway").
	Override bool `json:"override"`
	// DraftVersion is the draft version the administrator saw; absent
	// approves the current one.
	DraftVersion *int `json:"draft_version"`
}

// verdict is the administrator's decision on a post under review.
type verdict struct {
	// action is actionApprove or actionReject.
	action string
	// edited, when not nil, replaces the draft before approval.
	edited *string
	// override approves a flagged draft anyway.
	override bool
	// shown is the draft version the decision was made on; nil: the current.
	shown *int
	// by is the channel: post.ByWeb or post.ByBulk.
	by post.Channel
	// reason is a rejection's reason, "" for none.
	reason string
}

// rejectReason checks a rejection's optional reason, a 400 naming reason
// when it is too long.
func rejectReason(reason *string) (string, error) {
	if reason == nil {
		return "", nil
	}
	r, err := learning.CheckReason(*reason)
	if err != nil {
		return "", &settings.FieldError{Field: "reason", Problem: strings.TrimPrefix(err.Error(), learning.ErrInvalid.Error()+": ")}
	}
	return r, nil
}

// The actions of a verdict, as the bulk route names them.
const (
	actionApprove = "approve"
	actionReject  = "reject"
)

// judge carries out a verdict on post id through the decision package: the
// one path of the approve and reject routes, single or bulk, and of every
// other channel.
func (s *Server) judge(ctx context.Context, id int64, v verdict) (post.Post, error) {
	var p post.Post
	var err error
	if v.action == actionReject {
		p, err = s.decide.RejectFor(ctx, id, v.shown, v.by, v.reason)
	} else {
		p, err = s.decide.Approve(ctx, id, decision.Approval{Shown: v.shown, Edited: v.edited, Override: v.override, By: v.by})
	}
	if err != nil {
		return post.Post{}, err
	}
	s.public.invalidate()
	return p, nil
}

// checkShown refuses a draft_version below 1 in a request body.
func checkShown(v *int) error {
	if v != nil && *v < 1 {
		return badRequest("draft_version must be a positive integer")
	}
	return nil
}

// approve approves a pending (or failed) post, with an edited response when
// the body holds one, made on the draft version the body names.
func (s *Server) approve(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req approveRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	p, err := s.judge(r.Context(), id, verdict{action: actionApprove, edited: req.Response, override: req.Override, shown: req.DraftVersion, by: post.ByWeb})
	if err != nil {
		return err
	}
	v := s.view(p, s.now())
	if p.Status == post.StatusApproved && s.heldByCap(r.Context(), id) {
		q := guard.ReasonSendCap
		v.Queued = &q
	}
	respondJSON(w, http.StatusOK, v)
	return nil
}

type editRequest struct {
	// Response is the administrator's text for the draft.
	Response *string `json:"response"`
	// DraftVersion is the draft version the edit was made on; absent: the current.
	DraftVersion *int `json:"draft_version"`
}

// edit saves an edited draft of a pending (or failed) post without
// approving it: the draft version grows and the card shows the new text.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req editRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Response == nil {
		return badRequest("response is required")
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	p, err := s.decide.Edit(r.Context(), id, *req.Response, req.DraftVersion, post.ByWeb)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

// listSkipped answers one page of the posts the guards skipped, with
// their reasons, in the shape of the other admin lists, of every platform
// or of the one the platform parameter names.
func (s *Server) listSkipped(w http.ResponseWriter, r *http.Request) error {
	page, sort, err := pageAndSort(r)
	if err != nil {
		return err
	}
	platform, err := platformParam(r)
	if err != nil {
		return err
	}
	posts, total, err := s.store.ListSkippedOn(r.Context(), platform, sort, page, pageSize)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, s.listOf(posts, page, total))
	return nil
}

// listQueued answers one page of the approvals waiting for their first
// send, in the order the send caps serve them, each the caps hold as
// things stand noted guard.ReasonSendCap in queued; the send times are
// read once for the page. The platform parameter keeps one platform's
// approvals, with its own sends and approvals ahead (its caps are its
// own); without it every platform's are counted, an estimate never
// earlier than the caps allow.
func (s *Server) listQueued(w http.ResponseWriter, r *http.Request) error {
	page, err := intParam(r.URL.Query().Get("page"), "page", 1, 1, maxPage)
	if err != nil {
		return err
	}
	platform, err := platformParam(r)
	if err != nil {
		return err
	}
	set, err := s.store.Settings(r.Context())
	if err != nil {
		return err
	}
	caps := set.Caps.Send()
	q, err := s.store.ListQueuedOn(r.Context(), platform, page, pageSize, caps)
	if err != nil {
		return err
	}
	out := s.listOf(q.Posts, page, q.Total)
	for i := range out.Posts {
		out.Posts[i].Queued = nil
		ahead := q.Queue.Ahead + i
		if i < len(q.Aheads) {
			ahead = q.Aheads[i]
		}
		if _, ok := guard.SendTurn(q.Queue.Sent, ahead, q.Queue.Now, caps); !ok {
			held := guard.ReasonSendCap
			out.Posts[i].Queued = &held
		}
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// listOf is one page of an admin list.
func (s *Server) listOf(posts []post.Post, page, total int) listResponse {
	now := s.now()
	out := listResponse{Posts: []postView{}, Pagination: pagination{
		Page: page, PageSize: pageSize, Total: total, TotalPages: (total + pageSize - 1) / pageSize,
	}}
	for _, p := range posts {
		out.Posts = append(out.Posts, s.view(p, now))
	}
	return out
}

// draftAnyway overrides the guard that skipped a post, made on the draft
// version the body names (absent: the current one): it goes back to
// drafting, past the guards, and is handed to the workers to draft (if
// Redis is down, the reconcile task queues it later).
func (s *Server) draftAnyway(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req struct {
		// DraftVersion is the draft version the administrator saw.
		DraftVersion *int `json:"draft_version"`
	}
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	p, err := s.decide.DraftAnyway(r.Context(), id, req.DraftVersion, post.ByWeb)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

// heldByCap tells whether the send caps hold the approved post id as things
// stand, so the admin learns it at once; the worker decides for good, under
// its lock, when it sends. A failed look is logged and answers false: the
// approval itself is recorded.
func (s *Server) heldByCap(ctx context.Context, id int64) bool {
	set, err := s.store.Settings(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "send caps not checked at approval", "post_id", id, "error", err)
		return false
	}
	caps := set.Caps.Send()
	q, err := s.store.SendQueueOf(ctx, id, caps)
	if err != nil {
		s.log.WarnContext(ctx, "send caps not checked at approval", "post_id", id, "error", err)
		return false
	}
	_, ok := guard.SendTurn(q.Sent, q.Ahead, q.Now, caps)
	return !ok
}

// reject rejects a pending (or failed) post.
func (s *Server) reject(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req struct {
		// DraftVersion is the draft version the administrator saw.
		DraftVersion *int `json:"draft_version"`
		// Reason is why, kept with the case (optional).
		Reason *string `json:"reason"`
	}
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	reason, err := rejectReason(req.Reason)
	if err != nil {
		return err
	}
	p, err := s.judge(r.Context(), id, verdict{action: actionReject, shown: req.DraftVersion, by: post.ByWeb, reason: reason})
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

// cancel withdraws an auto-approval in its grace window: the post is
// pending again, its approval still counted toward the autopilot's hourly
// most. Once the send has started it is a 409 that says so; a post that is
// not auto-approved is a 409 too.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		return err
	}
	p, err := s.decide.Cancel(r.Context(), id, post.ByWeb)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

type markPostedRequest struct {
	// ResponsePostID is the hand-posted reply's id on the platform, when known.
	ResponsePostID *string `json:"response_post_id"`
	// DraftVersion is the draft version the administrator saw.
	DraftVersion *int `json:"draft_version"`
}

// maxPlatformID bounds a platform post id given by the admin (X's are up to 19 digits).
const maxPlatformID = 32

// markPosted records that the admin posted an awaiting_manual reply by
// hand, made on the draft version the body names (absent: the current one).
func (s *Server) markPosted(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req markPostedRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	responseID := ""
	if req.ResponsePostID != nil {
		responseID = *req.ResponsePostID
		if responseID == "" || len(responseID) > maxPlatformID || strings.Trim(responseID, "0123456789") != "" {
			return badRequest("response_post_id must be the reply's post id: 1 to %d digits", maxPlatformID)
		}
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	p, err := s.decide.MarkPosted(r.Context(), id, responseID, s.now(), req.DraftVersion, post.ByWeb)
	if err != nil {
		return err
	}
	s.public.invalidate()
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

type giveUpRequest struct {
	// Reason says why the reply was not posted; a default when absent.
	Reason *string `json:"reason"`
	// DraftVersion is the draft version the administrator saw.
	DraftVersion *int `json:"draft_version"`
}

// maxReason bounds the reason given when giving up.
const maxReason = 500

// giveUp moves an awaiting_manual post back to rejected, with a reason,
// made on the draft version the body names (absent: the current one).
func (s *Server) giveUp(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	var req giveUpRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	reason := "Given up: not posted by hand"
	if req.Reason != nil {
		reason = strings.TrimSpace(*req.Reason)
		if reason == "" || utf8.RuneCountInString(reason) > maxReason {
			return &settings.FieldError{Field: "reason", Problem: fmt.Sprintf("must be 1 to %d characters", maxReason)}
		}
	}
	if err := checkShown(req.DraftVersion); err != nil {
		return err
	}
	p, err := s.decide.GiveUp(r.Context(), id, reason, req.DraftVersion, post.ByWeb)
	if err != nil {
		return err
	}
	s.public.invalidate()
	respondJSON(w, http.StatusOK, s.view(p, s.now()))
	return nil
}

// runPlatformParam reads the platform a run by hand is for: one the persona
// answers on, or "" when none is named.
func (s *Server) runPlatformParam(r *http.Request) (string, error) {
	p := r.URL.Query().Get("platform")
	if p != "" && !slices.Contains(s.platforms, p) {
		return "", badRequest("platform must be one the persona answers on: %s", strings.Join(s.platforms, ", "))
	}
	return p, nil
}

// generateProfile asks for a new profile post, for the platform named
// (the first one by default), and waits a little for its draft: 201 with
// the post when it is ready, else 202 while a worker writes it.
func (s *Server) generateProfile(w http.ResponseWriter, r *http.Request) error {
	platform, err := s.runPlatformParam(r)
	if err != nil {
		return err
	}
	if platform == "" {
		platform = s.platform
	}
	ctx := r.Context()
	if err := s.queue.Ping(ctx); err != nil {
		return fmt.Errorf("generate profile: %w: %w", errQueueDown, err)
	}
	id, err := s.store.CreateProfileDraft(ctx, platform, s.handles.On(platform, s.personaHandle))
	if err != nil {
		return err
	}
	if err := s.queue.EnqueueDraft(ctx, id, platform); err != nil {
		// Nothing will draft it: take the row back so the refused request changes nothing.
		if derr := s.store.DeleteDraft(ctx, id); derr != nil {
			s.log.WarnContext(ctx, "could not remove an unqueued profile draft; reconcile will draft it", "post_id", id, "error", derr)
		}
		return fmt.Errorf("generate profile: %w: %w", errQueueDown, err)
	}
	var p post.Post
	drafted, err := pollUntil(ctx, s.generateWait, func() (bool, error) {
		var err error
		p, err = s.store.Post(ctx, id)
		return err == nil && p.Status != post.StatusDrafting, err
	})
	if err != nil {
		return err
	}
	switch {
	case !drafted:
		respondJSON(w, http.StatusAccepted, map[string]any{"status": "queued", "id": id})
	case p.Status == post.StatusFailed:
		return &Error{Status: http.StatusBadGateway, Message: "the writer could not draft a profile post: " + p.Error}
	default:
		respondJSON(w, http.StatusCreated, s.view(p, s.now()))
	}
	return nil
}

// generateTargeted runs a scan of the targeted accounts now, on the
// platform named or on every platform.
func (s *Server) generateTargeted(w http.ResponseWriter, r *http.Request) error {
	platform, err := s.runPlatformParam(r)
	if err != nil {
		return err
	}
	platforms := s.platforms
	if platform != "" {
		platforms = []string{platform}
	}
	for _, p := range platforms {
		if err := s.queue.EnqueuePeriodicOn(r.Context(), tasks.TypeScanTargeted, p); err != nil {
			return fmt.Errorf("generate targeted: %w: %w", errQueueDown, err)
		}
	}
	respondJSON(w, http.StatusAccepted, map[string]string{"status": "queued"})
	return nil
}

// platformList is the platforms configured, never null.
func (s *Server) platformList() []string {
	if len(s.platforms) == 0 {
		return []string{}
	}
	return s.platforms
}
