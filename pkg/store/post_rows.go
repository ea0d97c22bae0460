package store

import (
	"context"
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
	media, link, learned_cases, learned_lessons, grounded_in, content_warning, web_url, max_length, language`

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
	Media              []post.Media  `db:"media"`
	Link               *post.Link    `db:"link"`
	LearnedCases       []int64       `db:"learned_cases"`
	LearnedLessons     []int64       `db:"learned_lessons"`
	GroundedIn         []post.Ground `db:"grounded_in"`
	ContentWarning     string        `db:"content_warning"`
	WebURL             string        `db:"web_url"`
	MaxLength          *int          `db:"max_length"`
	Language           string        `db:"language"`
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
		Media: nonNilMedia(r.Media), Link: r.Link, ContentWarning: r.ContentWarning, WebURL: r.WebURL, Language: r.Language,
		MaxLength:   derefInt(r.MaxLength),
		LearnedFrom: post.LearnedFrom{Cases: r.LearnedCases, Lessons: r.LearnedLessons, Facts: r.GroundedIn},
	}
}

// nonNilMedia is media, an empty list for none.
func nonNilMedia(media []post.Media) []post.Media {
	if media == nil {
		return []post.Media{}
	}
	return media
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
