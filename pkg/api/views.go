package api

import (
	"slices"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
)

// postView is a post as the admin dashboard reads it.
type postView struct {
	ID     int64  `json:"id"`
	Source string `json:"source"`
	Status string `json:"status"`
	// Platform is where the post lives: "x", "bluesky", "mastodon" or "sandbox".
	Platform string `json:"platform"`
	// MaxLength is the response's limit there (post.Post.Limit): 280
	// weighted characters on X and the sandbox, 300 graphemes on Bluesky,
	// on Mastodon the server's limit when the draft was written less the
	// content warning the reply carries.
	MaxLength int `json:"max_length"`
	// URL is the original post's web page (post.Post.PageURL), "" when none.
	URL string `json:"url"`
	// ContentWarning is the warning its author put over the original post
	// (Mastodon's spoiler_text), "" when none.
	ContentWarning     string    `json:"content_warning"`
	OriginalPostID     string    `json:"original_post_id"`
	OriginalPostText   string    `json:"original_post_text"`
	OriginalPostUser   string    `json:"original_post_user"`
	AuthorUsername     string    `json:"author_username"`
	AuthorProfileImage string    `json:"author_profile_image"`
	CreatedAt          time.Time `json:"created_at"`
	Category           string    `json:"category"`
	MediaURL           string    `json:"media_url"`
	// Media are the post's images, at most 4, never null.
	Media []post.Media `json:"media"`
	// Link is the post's link card, null when none.
	Link             *post.Link `json:"link"`
	LikesCount       int        `json:"likes_count"`
	RetweetsCount    int        `json:"retweets_count"`
	RepliesCount     int        `json:"replies_count"`
	EngagementScore  int        `json:"engagement_score"`
	AgeSeconds       int64      `json:"age_seconds"`
	ProposedResponse string     `json:"proposed_response"`
	IsMention        bool       `json:"is_mention"`
	IsProfileTweet   bool       `json:"is_profile_tweet"`
	Temperature      float64    `json:"temperature"`
	PresencePenalty  float64    `json:"presence_penalty"`
	FrequencyPenalty float64    `json:"frequency_penalty"`
	PostedAt         *time.Time `json:"posted_at"`
	ResponsePostID   string     `json:"response_post_id"`
	Error            string     `json:"error"`
	// ReplyRoute is "api" or "manual" (posted by hand), null for a profile post.
	ReplyRoute *string `json:"reply_route"`
	// EstimatedCostUSD is what sending the response through the API costs.
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
	// ResponseHasLink flags a response whose link makes it the dearer post.
	ResponseHasLink bool `json:"response_has_link"`
	// IntentURL is X's web intent for hand-posting, set while awaiting_manual.
	IntentURL *string `json:"intent_url"`
	// Queued says why an approved post waits to be sent ("queued: cap",
	// guard.ReasonSendCap); null otherwise.
	Queued *string `json:"queued"`
	// Flags are the outbound check's findings on the draft (guard.Flag
	// values), never null.
	Flags []string `json:"flags"`
	// Reason says why the post is in the Skipped and failed view: the
	// guard that skipped it, or a failed post's error; "" otherwise.
	Reason string `json:"reason"`
	// PersonaVersion is the persona version the draft was written in; null
	// when none is known (drafted before personas were versioned).
	PersonaVersion *int `json:"persona_version"`
	// Review is the judge's second opinion on the draft; null while
	// unjudged or when the judge failed.
	Review *post.Review `json:"review"`
	// DraftVersion grows whenever the proposed response changes; a decision
	// sends the one it was made on.
	DraftVersion int `json:"draft_version"`
	// SendAfter is when an auto-approved post goes out: the end of its
	// grace window, in which POST /api/posts/{id}/cancel withdraws it;
	// null otherwise.
	SendAfter *time.Time `json:"send_after"`
	// LearnedFrom is what shaped the draft: the past cases given as
	// examples and the lessons in its prompt.
	LearnedFrom learnedFromView `json:"learned_from"`
	// GroundedIn are the knowledge chunks the draft's prompt held, best first.
	GroundedIn []post.Ground `json:"grounded_in"`
	// PlatformRunning is false for a post of a platform PLATFORM does not
	// name: shown, but no decision on it is taken and it is never sent.
	PlatformRunning bool `json:"platform_running"`
}

// view is viewPost with what the server knows: whether the post's
// platform is running.
func (s *Server) view(p post.Post, now time.Time) postView {
	v := viewPost(p, now, s.prices)
	v.PlatformRunning = slices.Contains(s.platforms, p.Platform)
	return v
}

// learnedFromView is a post.LearnedFrom as the API answers it.
type learnedFromView struct {
	Cases   []int64 `json:"cases"`
	Lessons []int64 `json:"lessons"`
}

func viewLearnedFrom(l post.LearnedFrom) learnedFromView {
	l = l.NonNil()
	return learnedFromView{Cases: l.Cases, Lessons: l.Lessons}
}

func viewPost(p post.Post, now time.Time, prices spend.Prices) postView {
	v := basePostView(p, now)
	if p.ReplyRoute != "" {
		route := string(p.ReplyRoute)
		v.ReplyRoute = &route
	}
	// A mention is summoned; a reply to another post naming the persona is
	// too, but without the persona's handle here the estimate is the dearer.
	v.EstimatedCostUSD, v.ResponseHasLink = prices.SendCost(p.ReplyRoute, p.Source == post.SourceMention, p.ProposedResponse)
	if p.Status == post.StatusAwaitingManual {
		u := post.IntentURL(p.OriginalPostID, p.ProposedResponse)
		v.IntentURL = &u
	}
	if p.Status == post.StatusApproved && p.Error == guard.ReasonSendCap {
		// The worker notes the wait in the error column; it is no error.
		q := guard.ReasonSendCap
		v.Queued, v.Error = &q, ""
	}
	return v
}

func basePostView(p post.Post, now time.Time) postView {
	// Rows stored before the scan checked URLs may still hold any; the
	// dashboard renders these as an image and a link.
	httpOK := post.DescriptorOf(p.Platform).PlainHTTP
	p.AuthorProfileImage, p.MediaURL = post.SafeURL(p.AuthorProfileImage, httpOK), post.SafeURL(p.MediaURL, httpOK)
	return postView{
		ID: p.ID, Source: string(p.Source), Status: string(p.Status), Platform: p.Platform, MaxLength: p.Limit(),
		URL: p.PageURL(), ContentWarning: p.ContentWarning,
		OriginalPostID: p.OriginalPostID, OriginalPostText: p.OriginalPostText, OriginalPostUser: p.OriginalPostUser,
		AuthorUsername: p.AuthorUsername, AuthorProfileImage: p.AuthorProfileImage, CreatedAt: p.CreatedAt.UTC(),
		Category: string(p.Category), MediaURL: p.MediaURL,
		Media: post.SafeMedia(p.Media, httpOK), Link: post.SafeLink(p.Link, httpOK),
		LikesCount: p.Likes, RetweetsCount: p.Retweets, RepliesCount: p.Replies,
		EngagementScore: p.EngagementScore(), AgeSeconds: post.AgeSeconds(p.CreatedAt, now),
		ProposedResponse: p.ProposedResponse, IsMention: p.IsMention(), IsProfileTweet: p.IsProfile(),
		Temperature: p.Temperature, PresencePenalty: p.PresencePenalty, FrequencyPenalty: p.FrequencyPenalty,
		PostedAt: utc(p.PostedAt), ResponsePostID: p.ResponsePostID, Error: p.Error,
		Flags: append([]string{}, p.Flags...), Reason: reasonOf(p),
		PersonaVersion: personaVersion(p.PersonaVersion), Review: p.Review, DraftVersion: p.DraftVersion,
		SendAfter: utc(p.SendAfter), LearnedFrom: viewLearnedFrom(p.LearnedFrom), GroundedIn: p.LearnedFrom.NonNil().Facts,
	}
}

// personaVersion is a draft's persona version, nil for none (zero).
func personaVersion(v int) *int {
	if v == 0 {
		return nil
	}
	return &v
}

// reasonOf is why p is in the Skipped and failed view: its skip reason, or
// its error when it failed.
func reasonOf(p post.Post) string {
	if p.Status == post.StatusFailed {
		return p.Error
	}
	return p.SkipReason
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// latestView is the featured latest response: what was posted, and to whom.
type latestView struct {
	ID               int64      `json:"id"`
	ProposedResponse string     `json:"proposed_response"`
	OriginalPostText string     `json:"original_post_text"`
	OriginalPostUser string     `json:"original_post_user"`
	AuthorUsername   string     `json:"author_username"`
	Category         string     `json:"category"`
	IsMention        bool       `json:"is_mention"`
	IsProfileTweet   bool       `json:"is_profile_tweet"`
	PostedAt         *time.Time `json:"posted_at"`
}

type threadView struct {
	ID              int64         `json:"id"`
	Type            string        `json:"type"`
	LatestTimestamp time.Time     `json:"latestTimestamp"`
	Messages        []messageView `json:"messages"`
}

type messageView struct {
	ID               int64     `json:"id"`
	OriginalPostID   string    `json:"original_post_id"`
	OriginalPostText string    `json:"original_post_text"`
	OriginalPostUser string    `json:"original_post_user"`
	AuthorUsername   string    `json:"author_username"`
	ProposedResponse string    `json:"proposed_response"`
	Category         string    `json:"category"`
	Timestamp        time.Time `json:"timestamp"`
	Temperature      float64   `json:"temperature"`
	PresencePenalty  float64   `json:"presence_penalty"`
	FrequencyPenalty float64   `json:"frequency_penalty"`
}

func viewThread(t store.Thread) threadView {
	v := threadView{ID: t.ID, Type: t.Type, LatestTimestamp: t.LatestTimestamp.UTC(), Messages: []messageView{}}
	for _, m := range t.Messages {
		v.Messages = append(v.Messages, messageView{
			ID: m.PostID, OriginalPostID: m.OriginalPostID, OriginalPostText: m.OriginalPostText,
			OriginalPostUser: m.OriginalPostUser, AuthorUsername: m.AuthorUsername, ProposedResponse: m.Response,
			Category: string(m.Category), Timestamp: m.Timestamp.UTC(),
			Temperature: m.Temperature, PresencePenalty: m.PresencePenalty, FrequencyPenalty: m.FrequencyPenalty,
		})
	}
	return v
}

type count struct {
	Count int `json:"count"`
}

type adminStatsView struct {
	Pending  count `json:"pending"`
	Posted   count `json:"posted"`
	Rejected count `json:"rejected"`
	Mentions count `json:"mentions"`
	// Platforms are the platforms configured, in order: the admin offers
	// its platform filter when there are several.
	Platforms []string `json:"platforms"`
	// MediaHosts are the hosts the admin loads images from (MEDIA_HOSTS,
	// host or host:port): a card shows an image from any other as a link.
	MediaHosts []string `json:"media_hosts"`
}

type postedCategoryView struct {
	Category string `json:"category"`
	Count    int    `json:"count"`
	Last24h  int    `json:"last_24h"`
}

type pendingCategoryView struct {
	Category string `json:"category"`
	Count    int    `json:"count"`
}

type engagementView struct {
	Total     int        `json:"total"`
	Likes     int        `json:"likes"`
	Retweets  int        `json:"retweets"`
	Replies   int        `json:"replies"`
	Timestamp *time.Time `json:"timestamp,omitempty"`
}

type homeStatsView struct {
	PostedSins  int     `json:"posted_sins"`
	PendingSins int     `json:"pending_sins"`
	SuccessRate float64 `json:"success_rate"`
	Categories  struct {
		Posted  []postedCategoryView  `json:"posted"`
		Pending []pendingCategoryView `json:"pending"`
	} `json:"categories"`
	Engagement         engagementView         `json:"engagement"`
	MortalInteractions mortalInteractionsView `json:"mortal_interactions"`
	// ByPlatform breaks the counters down by platform, for each platform
	// that has posts; the fields above count every platform.
	ByPlatform map[string]platformStatsView `json:"by_platform"`
}

type mortalInteractionsView struct {
	TotalMentions int `json:"total_mentions"`
	TotalReplies  int `json:"total_replies"`
	Mentions24h   int `json:"mentions_24h"`
	Replies24h    int `json:"replies_24h"`
}

// platformStatsView is the public counters of one platform's posts.
type platformStatsView struct {
	PostedSins         int                    `json:"posted_sins"`
	PendingSins        int                    `json:"pending_sins"`
	SuccessRate        float64                `json:"success_rate"`
	MortalInteractions mortalInteractionsView `json:"mortal_interactions"`
}

func viewHomeStats(h store.HomeStats) homeStatsView {
	var v homeStatsView
	v.PostedSins, v.PendingSins = h.Posted, h.Pending
	v.SuccessRate = post.SuccessRate(h.Posted, h.Rejected)
	v.Categories.Posted = []postedCategoryView{}
	for _, c := range h.PostedCategories {
		v.Categories.Posted = append(v.Categories.Posted, postedCategoryView{Category: string(c.Category), Count: c.Count, Last24h: c.Last24h})
	}
	v.Categories.Pending = []pendingCategoryView{}
	for _, c := range h.PendingCategories {
		v.Categories.Pending = append(v.Categories.Pending, pendingCategoryView{Category: string(c.Category), Count: c.Count})
	}
	e := h.Engagement
	v.Engagement = engagementView{Total: e.Likes + e.Retweets + e.Replies, Likes: e.Likes, Retweets: e.Retweets, Replies: e.Replies, Timestamp: utc(e.WindowStart)}
	v.MortalInteractions = mortalInteractionsView{TotalMentions: h.TotalMentions, TotalReplies: h.TotalReplies,
		Mentions24h: h.Mentions24h, Replies24h: h.Replies24h}
	v.ByPlatform = make(map[string]platformStatsView, len(h.ByPlatform))
	for p, c := range h.ByPlatform {
		v.ByPlatform[p] = platformStatsView{PostedSins: c.Posted, PendingSins: c.Pending, SuccessRate: post.SuccessRate(c.Posted, c.Rejected),
			MortalInteractions: mortalInteractionsView{TotalMentions: c.TotalMentions, TotalReplies: c.TotalReplies,
				Mentions24h: c.Mentions24h, Replies24h: c.Replies24h}}
	}
	return v
}
