package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// postColumns are the columns of postRow, selected or returned by name.
const postColumns = `id, platform, source, status, original_post_id, conversation_id,
	original_post_text, original_post_user, author_username, author_profile_image, media_url, created_at,
	category, likes_count, retweets_count, replies_count, reply_route, proposed_response,
	temperature, presence_penalty, frequency_penalty,
	approved_at, rejected_at, send_started_at, posted_at, response_post_id, error, updated_at, skip_reason, flags, guarded_at,
	in_reply_to_id, quoted_id, context_note, persona_version, review_score, review_reason, review_by, review_waived, draft_version, author_id, send_after,
	learned_cases, learned_lessons`

// postRow is a posts row as read by name through postColumns. It stays
// private to the store, so the domain's Post carries no storage tags and
// the nullable columns are resolved here.
type postRow struct {
	ID                 int64         `db:"id"`
	Platform           string        `db:"platform"`
	AuthorID           string        `db:"author_id"`
	Source             post.Source   `db:"source"`
	Status             post.Status   `db:"status"`
	OriginalPostID     *string       `db:"original_post_id"`
	ConversationID     *string       `db:"conversation_id"`
	OriginalPostText   string        `db:"original_post_text"`
	OriginalPostUser   string        `db:"original_post_user"`
	AuthorUsername     string        `db:"author_username"`
	AuthorProfileImage string        `db:"author_profile_image"`
	MediaURL           string        `db:"media_url"`
	CreatedAt          time.Time     `db:"created_at"`
	Category           post.Category `db:"category"`
	Likes              int           `db:"likes_count"`
	Retweets           int           `db:"retweets_count"`
	Replies            int           `db:"replies_count"`
	ReplyRoute         *string       `db:"reply_route"`
	ProposedResponse   string        `db:"proposed_response"`
	Temperature        float64       `db:"temperature"`
	PresencePenalty    float64       `db:"presence_penalty"`
	FrequencyPenalty   float64       `db:"frequency_penalty"`
	ApprovedAt         *time.Time    `db:"approved_at"`
	RejectedAt         *time.Time    `db:"rejected_at"`
	SendStartedAt      *time.Time    `db:"send_started_at"`
	PostedAt           *time.Time    `db:"posted_at"`
	ResponsePostID     *string       `db:"response_post_id"`
	Error              string        `db:"error"`
	UpdatedAt          time.Time     `db:"updated_at"`
	SkipReason         string        `db:"skip_reason"`
	Flags              []string      `db:"flags"`
	GuardedAt          *time.Time    `db:"guarded_at"`
	InReplyToID        string        `db:"in_reply_to_id"`
	QuotedID           string        `db:"quoted_id"`
	ContextNote        string        `db:"context_note"`
	PersonaVersion     *int          `db:"persona_version"`
	ReviewScore        *int          `db:"review_score"`
	ReviewReason       string        `db:"review_reason"`
	ReviewBy           string        `db:"review_by"`
	ReviewWaived       bool          `db:"review_waived"`
	DraftVersion       int           `db:"draft_version"`
	SendAfter          *time.Time    `db:"send_after"`
	LearnedCases       []int64       `db:"learned_cases"`
	LearnedLessons     []int64       `db:"learned_lessons"`
}

// post is the row as the domain sees it; a missing platform id is empty.
func (r postRow) post() post.Post {
	return post.Post{
		ID: r.ID, Platform: r.Platform, AuthorID: r.AuthorID, Source: r.Source, Status: r.Status,
		OriginalPostID: deref(r.OriginalPostID), ConversationID: deref(r.ConversationID),
		OriginalPostText: r.OriginalPostText, OriginalPostUser: r.OriginalPostUser, AuthorUsername: r.AuthorUsername,
		AuthorProfileImage: r.AuthorProfileImage, MediaURL: r.MediaURL, CreatedAt: r.CreatedAt,
		Category: r.Category, Likes: r.Likes, Retweets: r.Retweets, Replies: r.Replies,
		ReplyRoute: post.Route(deref(r.ReplyRoute)), ProposedResponse: r.ProposedResponse,
		Temperature: r.Temperature, PresencePenalty: r.PresencePenalty, FrequencyPenalty: r.FrequencyPenalty,
		ApprovedAt: r.ApprovedAt, RejectedAt: r.RejectedAt, SendStartedAt: r.SendStartedAt, PostedAt: r.PostedAt,
		ResponsePostID: deref(r.ResponsePostID), Error: r.Error, UpdatedAt: r.UpdatedAt,
		SkipReason: r.SkipReason, Flags: r.Flags, GuardedAt: r.GuardedAt,
		InReplyToID: r.InReplyToID, QuotedID: r.QuotedID, ContextNote: r.ContextNote,
		PersonaVersion: derefInt(r.PersonaVersion), Review: r.review(), ReviewWaived: r.ReviewWaived,
		DraftVersion: r.DraftVersion, SendAfter: r.SendAfter,
		LearnedFrom: post.LearnedFrom{Cases: r.LearnedCases, Lessons: r.LearnedLessons},
	}
}

// review is the row's judge's review, nil while unjudged.
func (r postRow) review() *post.Review {
	if r.ReviewScore == nil {
		return nil
	}
	return &post.Review{Score: *r.ReviewScore, Reason: r.ReviewReason, By: r.ReviewBy}
}

func derefInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// nullInt is n for a nullable column, NULL for zero.
func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// querier runs a query on the pool or inside a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryPost runs a query that yields at most one posts row of postColumns;
// pgx.ErrNoRows when it yields none.
func queryPost(ctx context.Context, q querier, sql string, args ...any) (post.Post, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return post.Post{}, err
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[postRow])
	if err != nil {
		return post.Post{}, err
	}
	return r.post(), nil
}

// queryPosts runs a query that yields posts rows of postColumns.
func queryPosts(ctx context.Context, q querier, sql string, args ...any) ([]post.Post, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[postRow])
	if err != nil {
		return nil, err
	}
	out := make([]post.Post, len(rs))
	for i, r := range rs {
		out[i] = r.post()
	}
	return out, nil
}

// from lists, as the guard of an UPDATE (status = ANY($n)), the statuses the
// domain lets a post move to status to from.
func from(to post.Status) []string {
	var out []string
	for _, s := range post.From(to) {
		out = append(out, string(s))
	}
	return out
}

// usual is the status a move to status to normally starts from, named when
// a post is found elsewhere.
func usual(to post.Status) post.Status {
	return post.From(to)[0]
}

// UpsertFound records a post found on a platform, in status drafting. A post
// seen before keeps its row and state; only its public metrics are refreshed.
// created tells whether the row is new. Until it is drafted it carries
// post.DefaultLLMParameter, the one source of that value (the schema's
// DEFAULT only backs it up).
func (s *Store) UpsertFound(ctx context.Context, p post.Post) (id int64, created bool, err error) {
	if p.OriginalPostID == "" || !p.Source.Valid() || p.Source == post.SourceProfile {
		return 0, false, fmt.Errorf("store: upsert post: %w: a found post needs an id and a mortal source", ErrInvalid)
	}
	err = s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_id, conversation_id, original_post_text, original_post_user,
			author_username, author_profile_image, media_url, created_at, likes_count, retweets_count, replies_count,
			temperature, presence_penalty, frequency_penalty, reply_route, in_reply_to_id, quoted_id, author_id)
		VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $14, $15, $16, $17, $18)
		ON CONFLICT (platform, original_post_id) DO UPDATE
			SET likes_count = excluded.likes_count, retweets_count = excluded.retweets_count,
			    replies_count = excluded.replies_count, updated_at = now()
		RETURNING id, (xmax = 0)`,
		p.Platform, p.Source, p.OriginalPostID, p.ConversationID, p.OriginalPostText, p.OriginalPostUser,
		p.AuthorUsername, p.AuthorProfileImage, p.MediaURL, p.CreatedAt, p.Likes, p.Retweets, p.Replies,
		post.DefaultLLMParameter, routeOf(p.ReplyRoute), p.InReplyToID, p.QuotedID, post.StorableText(p.AuthorID),
	).Scan(&id, &created)
	if err != nil {
		return 0, false, fmt.Errorf("store: upsert post: %w", err)
	}
	return id, created, nil
}

// routeOf is a found post's reply route as stored: the API's unless it is
// said to be manual.
func routeOf(r post.Route) string {
	if r == post.RouteManual {
		return string(post.RouteManual)
	}
	return string(post.RouteAPI)
}

// CreateProfileDraft makes a new profile post, in status drafting, to be
// written; until then it carries post.DefaultLLMParameter.
func (s *Store) CreateProfileDraft(ctx context.Context, platform, persona string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO posts (platform, source, original_post_user, author_username, temperature, presence_penalty, frequency_penalty)
		VALUES ($1, 'profile', $2, $2, $3, $3, $3) RETURNING id`, platform, persona, post.DefaultLLMParameter).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create profile draft: %w", err)
	}
	return id, nil
}

// Post returns one post by id.
func (s *Store) Post(ctx context.Context, id int64) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id)
	if err != nil {
		return post.Post{}, notFound(err, fmt.Sprintf("post %d", id))
	}
	return p, nil
}

// orderBy maps each list order to its SQL; every one ends on id so pages are stable.
var orderBy = map[post.Sort]string{
	post.SortDate:       "created_at DESC, id DESC",
	post.SortEngagement: "engagement_score DESC, id DESC",
	post.SortLikes:      "likes_count DESC, id DESC",
	post.SortRetweets:   "retweets_count DESC, id DESC",
	post.SortReplies:    "replies_count DESC, id DESC",
}

// ListPending returns one page (1-based) of the posts of a source that await
// the administrator, and how many there are in all: the pending ones, the
// failed ones, kept in view with their error to be fixed and approved
// again, or rejected, and the ones awaiting hand-posting, kept in view until
// they are posted or given up.
func (s *Store) ListPending(ctx context.Context, source post.Source, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	return s.ListPendingOn(ctx, source, "", sort, page, pageSize)
}

// ListPendingOn is ListPending of the posts of one platform (post.Platforms);
// "" is every platform, as ListPending.
func (s *Store) ListPendingOn(ctx context.Context, source post.Source, platform string, sort post.Sort, page, pageSize int) ([]post.Post, int, error) {
	order, ok := orderBy[sort]
	if !ok || !source.Valid() || !validFilter(platform) || page < 1 || pageSize < 1 {
		return nil, 0, fmt.Errorf("store: list pending: %w: source %q platform %q sort %q page %d", ErrInvalid, source, platform, sort, page)
	}
	count, args := queueCountSQL, []any{source}
	if platform != "" {
		count, args = queuePlatformCountSQL, []any{source, platform}
	}
	var total int
	if err := s.pool.QueryRow(ctx, count, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count pending: %w", err)
	}
	args = []any{source, pageSize, (page - 1) * pageSize}
	if platform != "" {
		args = append(args, platform)
	}
	posts, err := queryPosts(ctx, s.pool, queuePageSQL(order, platformCond(platform, 4)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list pending: %w", err)
	}
	return posts, total, nil
}

// queueCountSQL counts a source's review queue from post_counts.
const queueCountSQL = `SELECT coalesce(sum(n), 0) FROM post_counts WHERE source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')`

// queuePlatformCountSQL counts a source's review queue on platform $2 from
// platform_counts.
const queuePlatformCountSQL = `SELECT coalesce(sum(n), 0) FROM platform_counts
	WHERE platform = $2 AND source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')`

// queuePageSQL reads one page of a source's review queue in order: the
// page's ids first, from a partial queue index (posts_queue_*_idx), where
// the entries skipped by the offset are read from the index alone once the
// table is vacuumed, then the rows of those ids. cond (platformCond) keeps
// one platform's posts, checked on the rows the index walk finds.
func queuePageSQL(order, cond string) string {
	return `SELECT ` + postColumns + ` FROM posts WHERE id IN (
		SELECT id FROM posts WHERE source = $1 AND status IN ('pending', 'failed', 'awaiting_manual')` + cond + `
		ORDER BY ` + order + ` LIMIT $2 OFFSET $3)
	ORDER BY ` + order
}

// Draft is what the writer produced for a post.
type Draft struct {
	Response         string
	Category         post.Category
	Temperature      float64
	PresencePenalty  float64
	FrequencyPenalty float64
	// Flags are the outbound check's findings on Response (guard.Flag values).
	Flags []string
	// PersonaVersion is the persona version it was written in, zero for none.
	PersonaVersion int
	// Review is the judge's opinion of it, nil when there is none.
	Review *post.Review
	// Learned is what shaped it: the cases and lessons in its prompt.
	Learned post.LearnedFrom
}

// reviewColumns are a draft's review as the columns review_score,
// review_reason and review_by take it.
func (d Draft) reviewColumns() (score *int, reason, by string) {
	if d.Review == nil {
		return nil, "", ""
	}
	s := d.Review.Score
	return &s, d.Review.Reason, d.Review.By
}

// SaveDraft stores a draft, with its writer version, and makes the post
// pending. Only a post in drafting takes a draft; any other gets a
// *post.StateError (ErrConflict), so a redelivered draft task never
// overwrites what the administrator is reviewing.
func (s *Store) SaveDraft(ctx context.Context, id int64, d Draft) error {
	return s.saveDraft(ctx, id, d, post.StatusPending, "")
}

// SkipDraft stores a draft as SaveDraft does but skips the post with
// reason instead of making it pending: the judge found the draft below the
// administrator's minimum score. The draft stays in the post's history;
// "draft anyway" writes a new one. Only a post in drafting takes it.
func (s *Store) SkipDraft(ctx context.Context, id int64, d Draft, reason string) error {
	return s.saveDraft(ctx, id, d, post.StatusSkipped, reason)
}

// saveDraft stores d on post id, in drafting, and moves it to status with
// skipReason.
func (s *Store) saveDraft(ctx context.Context, id int64, d Draft, status post.Status, skipReason string) error {
	score, reason, by := d.reviewColumns()
	// One statement, so one round trip: the draft and its version are
	// written together or not at all. Guarded on drafting alone: a failed
	// post reaches pending only by a regenerated draft.
	tag, err := s.pool.Exec(ctx, `
		WITH saved AS (
			UPDATE posts SET status = $9, proposed_response = $2, category = $3,
				temperature = $4, presence_penalty = $5, frequency_penalty = $6,
				draft_attempts = draft_attempts + 1, error = '', flags = $8, skip_reason = $10,
				persona_version = $11, review_score = $12, review_reason = $13, review_by = $14,
				draft_version = draft_version + 1, updated_at = now(), drafted_at = coalesce(drafted_at, now()),
				learned_cases = $15, learned_lessons = $16
			WHERE id = $1 AND status = $7
			RETURNING id, proposed_response, learned_cases, learned_lessons)
		INSERT INTO post_versions (post_id, text, origin, learned_cases, learned_lessons)
		SELECT id, proposed_response, 'writer', learned_cases, learned_lessons FROM saved`,
		id, d.Response, d.Category, d.Temperature, d.PresencePenalty, d.FrequencyPenalty, post.StatusDrafting, nonNil(d.Flags),
		status, skipReason, nullInt(d.PersonaVersion), score, reason, by, nonNilIDs(d.Learned.Cases), nonNilIDs(d.Learned.Lessons))
	if err != nil {
		return fmt.Errorf("store: save draft %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "save draft", post.StatusDrafting)
	}
	return nil
}

// FailDraft marks a post that could not be drafted as failed, keeping why.
func (s *Store) FailDraft(ctx context.Context, id int64, reason string) error {
	return s.failFrom(ctx, id, "fail draft", post.StatusDrafting, reason)
}

// Approve moves a pending (or failed) post to approved, storing an edited
// response first when edited is not nil (as an admin version when it
// changes the text); a post whose reply the API may not
// send (post.RouteManual) moves to awaiting_manual instead, for hand-posting. The response must pass
// post.CheckResponseFor its platform (a *post.LengthError, ErrInvalid); a post in any other
// state gets a *post.StateError (ErrConflict).
func (s *Store) Approve(ctx context.Context, id int64, edited *string) (post.Post, error) {
	return s.ApproveWith(ctx, id, Approval{Edited: edited, By: post.ByWeb})
}

// ApproveCheck judges the text about to be approved while the post's row is
// locked: it returns the flags to store with it, or an error that refuses
// the approval (returned as it is).
type ApproveCheck func(p post.Post, text string) (flags []string, err error)

// Approval is one approval of a post under review.
type Approval struct {
	// Edited, when not nil, replaces the draft before approval.
	Edited *string
	// Check, when not nil, runs on the post and the text to be approved,
	// inside the transaction, so that the text judged is the text approved;
	// the flags it returns replace the post's.
	Check ApproveCheck
	// Shown is the draft version the administrator saw; nil approves the
	// current one. Another version is refused with a *post.VersionError.
	Shown *int
	// By is the channel the approval came through, kept in the history.
	By post.Channel
	// Detail is kept with the decision (the autopilot rule that matched).
	Detail map[string]any
	// Auto, when not nil, makes it an autopilot approval under its limits.
	Auto *Auto
}

// Auto are the limits of an autopilot approval, checked under the
// autopilot lock, so that two workers never both take the last one.
type Auto struct {
	// Grace is how long the post waits (send_after) before it may be sent.
	Grace time.Duration
	// MaxPerHour is the most autopilot approvals in any hour, cancelled ones included.
	MaxPerHour int
}

// ApproveWith carries out a: it moves a pending (or failed) post to
// approved, or to awaiting_manual for a hand-posted route, as Approve
// does, and records the decision; all under the post's row lock, so two
// approvals of one post approve it once (the second gets a
// *post.StateError).
func (s *Store) ApproveWith(ctx context.Context, id int64, a Approval) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "approve")
		if err != nil {
			return err
		}
		to := post.StatusApproved
		if p.ReplyRoute == post.RouteManual {
			to = post.StatusAwaitingManual
		}
		if !post.CanMove(p.Status, to) {
			return fmt.Errorf("store: approve post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: usual(to)})
		}
		if err := post.CheckShown(p, a.Shown); err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		var grace *float64
		if a.Auto != nil {
			if err := autoAllowed(ctx, tx, p, *a.Auto); err != nil {
				return fmt.Errorf("store: approve post %d: %w", id, err)
			}
			secs := a.Auto.Grace.Seconds()
			grace = &secs
		}
		text := p.ProposedResponse
		if a.Edited != nil {
			text = *a.Edited
		}
		if err := post.CheckResponseFor(p.Platform, text); err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		flags := nonNil(p.Flags)
		if a.Check != nil {
			if flags, err = a.Check(p, text); err != nil {
				return fmt.Errorf("store: approve post %d: %w", id, err)
			}
		}
		version := p.DraftVersion
		if text != p.ProposedResponse {
			if err := addVersion(ctx, tx, id, text, post.OriginAdmin, ""); err != nil {
				return err
			}
			version++
		}
		// The row is locked, so the guard holds; it is kept so that no update skips the table.
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = $4, proposed_response = $2, approved_at = now(), error = '', flags = $5,
				draft_version = $6, send_after = now() + make_interval(secs => $7), updated_at = now(),
				-- Edited: the administrator changed the text, now or in an edit saved before.
				edited = EXISTS (SELECT 1 FROM post_versions v WHERE v.post_id = $1 AND v.origin = 'admin')
			WHERE id = $1 AND status = ANY($3) RETURNING `+postColumns, id, text, from(to), to, nonNil(flags), version, grace)
		if err != nil {
			return fmt.Errorf("store: approve post %d: %w", id, err)
		}
		if err := recordCase(ctx, tx, id, text, false, a.By); err != nil {
			return err
		}
		return addDecision(ctx, tx, id, post.ActionApprove, a.By, version, a.Detail)
	})
	return out, err
}

// Reject moves a pending (or failed) post to rejected; any other state gets
// a *post.StateError (ErrConflict).
func (s *Store) Reject(ctx context.Context, id int64) (post.Post, error) {
	return s.RejectWith(ctx, id, nil, post.ByWeb)
}

// RejectWith rejects post id as Reject does, made on draft version shown
// (nil: the current one; another is a *post.VersionError) through channel
// by, and records the decision.
func (s *Store) RejectWith(ctx context.Context, id int64, shown *int, by post.Channel) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "reject")
		if err != nil {
			return err
		}
		if !post.CanMove(p.Status, post.StatusRejected) {
			return fmt.Errorf("store: reject post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: usual(post.StatusRejected)})
		}
		if err := post.CheckShown(p, shown); err != nil {
			return fmt.Errorf("store: reject post %d: %w", id, err)
		}
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = 'rejected', rejected_at = now(), updated_at = now()
			WHERE id = $1 RETURNING `+postColumns, id)
		if err != nil {
			return fmt.Errorf("store: reject post %d: %w", id, err)
		}
		if err := recordCase(ctx, tx, id, p.ProposedResponse, true, by); err != nil {
			return err
		}
		return addDecision(ctx, tx, id, post.ActionReject, by, p.DraftVersion, nil)
	})
	return out, err
}

// SaveEdit stores text as the administrator's edit of a pending (or
// failed) post's draft without approving it: a new admin version, the
// draft version one higher, the flags check returns (nil keeps the
// post's). It is made on draft version shown (nil: the current one); the
// text must pass post.CheckResponse. A post in any other state gets a
// *post.StateError.
func (s *Store) SaveEdit(ctx context.Context, id int64, text string, shown *int, check ApproveCheck, by post.Channel) (post.Post, error) {
	var out post.Post
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := lockPost(ctx, tx, id, "edit")
		if err != nil {
			return err
		}
		if post.InGrace(p) && text != p.ProposedResponse {
			// A changed text withdraws the auto-approval: the edit is the administrator's to approve.
			if p, err = withdraw(ctx, tx, p, by); err != nil {
				return err
			}
		}
		if !post.Regenerable(p.Status) {
			return fmt.Errorf("store: edit post %d: %w", id, &post.StateError{ID: id, Have: p.Status, Want: post.StatusPending})
		}
		if err := post.CheckShown(p, shown); err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		if err := post.CheckResponse(text); err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		flags := nonNil(p.Flags)
		if check != nil {
			if flags, err = check(p, text); err != nil {
				return fmt.Errorf("store: edit post %d: %w", id, err)
			}
		}
		if text == p.ProposedResponse {
			// Nothing changed: the draft and its version stay.
			out = p
			return nil
		}
		if err := addVersion(ctx, tx, id, text, post.OriginAdmin, ""); err != nil {
			return err
		}
		out, err = queryPost(ctx, tx, `
			UPDATE posts SET status = 'pending', proposed_response = $2, flags = $3, error = '',
				draft_version = draft_version + 1, updated_at = now()
			WHERE id = $1 RETURNING `+postColumns, id, text, nonNil(flags))
		if err != nil {
			return fmt.Errorf("store: edit post %d: %w", id, err)
		}
		return addDecision(ctx, tx, id, post.ActionEdit, by, p.DraftVersion, nil)
	})
	return out, err
}

// lockPost reads post id for update inside tx; an unknown id is ErrNotFound.
func lockPost(ctx context.Context, tx pgx.Tx, id int64, what string) (post.Post, error) {
	p, err := queryPost(ctx, tx, `SELECT `+postColumns+` FROM posts WHERE id = $1 FOR UPDATE`, id)
	if err != nil {
		return post.Post{}, notFound(err, fmt.Sprintf("%s post %d", what, id))
	}
	return p, nil
}

// BeginSend marks an approved post as being sent and returns it; started is
// the earlier mark, non-nil when a previous attempt may already have posted.
// A post that is not approved gets a *post.StateError (ErrConflict).
func (s *Store) BeginSend(ctx context.Context, id int64) (p post.Post, started *time.Time, err error) {
	// One statement, so one round trip: the subquery locks the row and reads
	// the earlier mark, the update sets it once; the post returned carries
	// the earlier mark, as the row was before.
	p, err = queryPost(ctx, s.pool, `
		UPDATE posts SET send_started_at = coalesce(old.prior_start, now()), updated_at = now()
		FROM (SELECT id AS old_id, send_started_at AS prior_start FROM posts WHERE id = $1 AND status = $2 FOR UPDATE) old
		WHERE posts.id = old.old_id AND (posts.send_after IS NULL OR posts.send_after <= now())
		RETURNING `+strings.Replace(postColumns, "send_started_at", "old.prior_start AS send_started_at", 1), id, post.StatusApproved)
	if errors.Is(err, pgx.ErrNoRows) {
		// Sending is no move of its own: it happens while the post stays approved.
		return post.Post{}, nil, s.stateError(ctx, id, "begin send", post.StatusApproved)
	}
	if err != nil {
		return post.Post{}, nil, fmt.Errorf("store: begin send %d: %w", id, err)
	}
	return p, p.SendStartedAt, nil
}

// MarkPosted records that the response went out as responseID at postedAt,
// and appends the exchange to the public log in the same statement.
func (s *Store) MarkPosted(ctx context.Context, id int64, responseID string, postedAt time.Time) error {
	_, err := queryPost(ctx, s.pool, postAndLog(`
		UPDATE posts SET status = 'posted', response_post_id = $2, posted_at = $3, error = '', updated_at = now()
		WHERE id = $1 AND status = ANY($4) RETURNING *`), id, responseID, postedAt, from(post.StatusPosted))
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: mark posted %d: %w: not approved", id, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: mark posted %d: %w", id, err)
	}
	return nil
}

// ToManual moves an approved post whose reply X refused to the API to
// awaiting_manual, for hand-posting, keeping why.
func (s *Store) ToManual(ctx context.Context, id int64, reason string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE posts SET status = 'awaiting_manual', reply_route = 'manual', error = $2, updated_at = now()
		WHERE id = $1 AND status = $3`, id, reason, post.StatusApproved)
	if err != nil {
		return fmt.Errorf("store: to manual %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "to manual", post.StatusApproved)
	}
	return nil
}

// MarkManualPosted records that the hand-posted reply of a post awaiting it
// went out (responseID may be empty when the administrator does not know
// it), and appends the exchange to the public log; any other status gets a
// *post.StateError (ErrConflict).
func (s *Store) MarkManualPosted(ctx context.Context, id int64, responseID string, postedAt time.Time) (post.Post, error) {
	return s.markManual(ctx, id, responseID, "", postedAt)
}

// MarkHandPostedFound records the hand-posted reply of a post awaiting it,
// found on the platform as responseID with text: the text as posted
// replaces the draft (the administrator may have edited it on the
// platform's page), so the statistics and the public log show what was
// actually posted. Any other status gets a *post.StateError (ErrConflict).
func (s *Store) MarkHandPostedFound(ctx context.Context, id int64, responseID, text string, postedAt time.Time) (post.Post, error) {
	if responseID == "" || strings.TrimSpace(text) == "" {
		return post.Post{}, fmt.Errorf("store: mark hand-posted %d: %w: reply id and text are required", id, ErrInvalid)
	}
	return s.markManual(ctx, id, responseID, text, postedAt)
}

// markManual moves post id from awaiting_manual to posted as responseID,
// with text as its response when not empty, and files it in the public log.
func (s *Store) markManual(ctx context.Context, id int64, responseID, text string, postedAt time.Time) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, postAndLog(`
		UPDATE posts SET status = 'posted', response_post_id = nullif($2, ''), posted_at = $3, error = '',
			proposed_response = coalesce(nullif($5, ''), proposed_response), updated_at = now()
		WHERE id = $1 AND status = $4 RETURNING *`), id, responseID, postedAt, post.StatusAwaitingManual, text)
	if errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, s.stateError(ctx, id, "mark posted", post.StatusAwaitingManual)
	}
	if err != nil {
		return post.Post{}, fmt.Errorf("store: mark posted %d: %w", id, err)
	}
	return p, nil
}

// GiveUp moves a post awaiting hand-posting back to rejected, keeping why;
// any other status gets a *post.StateError (ErrConflict).
func (s *Store) GiveUp(ctx context.Context, id int64, reason string) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, `
		UPDATE posts SET status = 'rejected', rejected_at = now(), error = $2, updated_at = now()
		WHERE id = $1 AND status = $3 RETURNING `+postColumns, id, reason, post.StatusAwaitingManual)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return post.Post{}, fmt.Errorf("store: give up %d: %w", id, err)
	}
	return post.Post{}, s.stateError(ctx, id, "give up", post.StatusAwaitingManual)
}

// AwaitingManual returns up to limit posts of platform awaiting
// hand-posting, oldest approval first.
func (s *Store) AwaitingManual(ctx context.Context, platform string, limit int) ([]post.Post, error) {
	posts, err := queryPosts(ctx, s.pool, `SELECT `+postColumns+` FROM posts
		WHERE platform = $1 AND status = $2 ORDER BY approved_at NULLS FIRST, id LIMIT $3`, platform, post.StatusAwaitingManual, limit)
	if err != nil {
		return nil, fmt.Errorf("store: awaiting manual: %w", err)
	}
	return posts, nil
}

// FailSend marks an approved post as failed with the platform's message.
func (s *Store) FailSend(ctx context.Context, id int64, reason string) error {
	return s.failFrom(ctx, id, "fail send", post.StatusApproved, reason)
}

// NoteError keeps the latest transient error on a post without changing its state.
func (s *Store) NoteError(ctx context.Context, id int64, reason string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE posts SET error = $2, updated_at = now() WHERE id = $1`, id, reason); err != nil {
		return fmt.Errorf("store: note error %d: %w", id, err)
	}
	return nil
}

// failFrom moves post id from status was to failed, keeping reason, when
// the post is in was and the domain allows the move; else it reports why not.
func (s *Store) failFrom(ctx context.Context, id int64, what string, was post.Status, reason string) error {
	if !post.CanMove(was, post.StatusFailed) {
		return fmt.Errorf("store: %s %d: no move from %s to failed", what, id, was)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE posts SET status = 'failed', error = $2, updated_at = now() WHERE id = $1 AND status = $3`,
		id, reason, was)
	if err != nil {
		return fmt.Errorf("store: %s %d: %w", what, id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, what, was)
	}
	return nil
}

// stateError explains why an update guarded by status want touched nothing:
// no such post (ErrNotFound), or a post in another state (*post.StateError).
func (s *Store) stateError(ctx context.Context, id int64, what string, want post.Status) error {
	var have post.Status
	err := s.pool.QueryRow(ctx, `SELECT status FROM posts WHERE id = $1`, id).Scan(&have)
	if err != nil {
		return notFound(err, fmt.Sprintf("%s %d", what, id))
	}
	return fmt.Errorf("store: %s %d: %w", what, id, &post.StateError{ID: id, Have: have, Want: want})
}

// IDsInStatus returns the ids of posts in status whose last change is older
// than before, oldest first, at most limit of them.
func (s *Store) IDsInStatus(ctx context.Context, status post.Status, before time.Time, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM posts WHERE status = $1 AND updated_at < $2 ORDER BY updated_at LIMIT $3`,
		status, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: ids in status %s: %w", status, err)
	}
	return ids, nil
}

// PostedSince returns the platform ids of the persona's responses posted at
// or after since, with the row ids they belong to.
func (s *Store) PostedSince(ctx context.Context, platform string, since time.Time) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT response_post_id, id FROM posts
		WHERE platform = $1 AND status = 'posted' AND posted_at >= $2 AND response_post_id IS NOT NULL`, platform, since)
	if err != nil {
		return nil, fmt.Errorf("store: posted since: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var rid string
		var id int64
		if err := rows.Scan(&rid, &id); err != nil {
			return nil, fmt.Errorf("store: posted since: %w", err)
		}
		out[rid] = id
	}
	return out, rows.Err()
}

// Metrics are public counters of a response.
type Metrics struct {
	Likes, Retweets, Replies int
}

// SetResponseMetrics stores the latest public counters of posted responses, by row id.
func (s *Store) SetResponseMetrics(ctx context.Context, metrics map[int64]Metrics) error {
	batch := &pgx.Batch{}
	for id, m := range metrics {
		batch.Queue(`UPDATE posts SET response_likes = $2, response_retweets = $3, response_replies = $4 WHERE id = $1`,
			id, m.Likes, m.Retweets, m.Replies)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: set response metrics: %w", err)
	}
	return nil
}

// DeleteDraft removes a post still in drafting, when the work to draft it
// could not even be queued; a post in any other state is kept (ErrConflict).
func (s *Store) DeleteDraft(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM posts WHERE id = $1 AND status = $2`, id, post.StatusDrafting)
	if err != nil {
		return fmt.Errorf("store: delete draft %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return s.stateError(ctx, id, "delete draft", post.StatusDrafting)
	}
	return nil
}

// SendKey returns the key the send of post id writes under: the one an
// earlier attempt stored, or else candidate, stored now, before the
// platform is called, so that every attempt of the send uses the same key.
func (s *Store) SendKey(ctx context.Context, id int64, candidate string) (string, error) {
	if candidate == "" {
		return "", fmt.Errorf("store: send key of post %d: %w: empty key", id, ErrInvalid)
	}
	var key string
	err := s.pool.QueryRow(ctx, `UPDATE posts SET send_key = COALESCE(send_key, $2) WHERE id = $1 RETURNING send_key`, id, candidate).Scan(&key)
	if err != nil {
		return "", notFound(err, fmt.Sprintf("send key of post %d", id))
	}
	return key, nil
}

// PostPlatform returns the platform post id was found on (or is to be
// posted to): which of the worker's platforms works on it.
func (s *Store) PostPlatform(ctx context.Context, id int64) (string, error) {
	var name string
	if err := s.pool.QueryRow(ctx, `SELECT platform FROM posts WHERE id = $1`, id).Scan(&name); err != nil {
		return "", notFound(err, fmt.Sprintf("post %d platform", id))
	}
	return name, nil
}

// nonNilIDs returns ids, or an empty list for nil, which pgx would store as NULL.
func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
