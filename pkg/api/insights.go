package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"infernal/pkg/insights"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// insightsDays are the ranges GET /api/insights answers, in days.
const insightsDays = "7, 30 or 90"

// maxTZ bounds the tz parameter: IANA names are far shorter.
const maxTZ = 64

// unspecifiedReason names the skipped posts that carry no reason.
const unspecifiedReason = "unspecified"

// insightsRange is a validated GET /api/insights request.
type insightsRange struct {
	days   int
	source string
	tz     string
}

// parseInsightsRange reads days (7, 30 or 90; 7 when absent), source
// (mention, conversation or targeted; every one when absent) and tz (an
// IANA time zone; UTC when absent).
func parseInsightsRange(r *http.Request) (insightsRange, error) {
	q := r.URL.Query()
	out := insightsRange{days: 7, tz: "UTC"}
	switch days := q.Get("days"); {
	case days == "" && !q.Has("days"), days == "7":
	case days == "30":
		out.days = 30
	case days == "90":
		out.days = 90
	default:
		return insightsRange{}, badRequest("days must be %s", insightsDays)
	}
	if src := q.Get("source"); src != "" {
		s := post.Source(src)
		if !s.Valid() || s == post.SourceProfile {
			return insightsRange{}, badRequest("source must be mention, conversation or targeted")
		}
		out.source = src
	}
	if tz := q.Get("tz"); tz != "" {
		// "Local" is the server's zone, not a name the client can mean.
		if len(tz) > maxTZ || tz == "Local" || strings.ContainsAny(tz, "\x00 ") {
			return insightsRange{}, badRequest("tz must be an IANA time zone such as Europe/Paris")
		}
		if _, err := time.LoadLocation(tz); err != nil {
			return insightsRange{}, badRequest("tz must be an IANA time zone such as Europe/Paris")
		}
		out.tz = tz
	}
	return out, nil
}

type latencyView struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
	N   int64    `json:"n"`
}

type latenciesView struct {
	MentionToDraft   latencyView `json:"mention_to_draft"`
	DraftToDecision  latencyView `json:"draft_to_decision"`
	DecisionToPosted latencyView `json:"decision_to_posted"`
	MentionToPosted  latencyView `json:"mention_to_posted"`
}

type personaVersionView struct {
	Version  int   `json:"version"`
	Drafts   int64 `json:"drafts"`
	Approved int64 `json:"approved"`
	Rejected int64 `json:"rejected"`
	// ApprovalRate is approved / (approved + rejected), null before any decision.
	ApprovalRate *float64 `json:"approval_rate"`
	// EditRate is edited / approved, null before any approval.
	EditRate        *float64 `json:"edit_rate"`
	MeanReviewScore *float64 `json:"mean_review_score"`
	// Measured counts the posted replies with a 24-hour snapshot.
	Measured       int64    `json:"measured"`
	MeanEngagement *float64 `json:"mean_engagement"`
}

type judgeView struct {
	Score    int   `json:"score"`
	Drafts   int64 `json:"drafts"`
	Approved int64 `json:"approved"`
	Rejected int64 `json:"rejected"`
	// ApprovedShare is approved / (approved + rejected), null before any decision.
	ApprovedShare  *float64 `json:"approved_share"`
	Measured       int64    `json:"measured"`
	MeanEngagement *float64 `json:"mean_engagement"`
}

type heatmapView struct {
	TZ string `json:"tz"`
	// Seen and Engagement are indexed [weekday][hour], Monday first.
	Seen       [7][24]int64    `json:"seen"`
	Engagement [7][24]*float64 `json:"engagement"`
	Measured   [7][24]int64    `json:"measured"`
	Weekdays   [7]string       `json:"weekdays"`
	Hours      [24]int         `json:"hours"`
}

type dayView struct {
	Day      string  `json:"day"`
	Mentions int64   `json:"mentions"`
	Posted   int64   `json:"posted"`
	XUSD     float64 `json:"x_usd"`
	ModelUSD float64 `json:"model_usd"`
	// CostPerPost is (x_usd + model_usd) / posted, null on a day nothing was posted.
	CostPerPost *float64 `json:"cost_per_post"`
	Measured    int64    `json:"measured"`
	Likes       int64    `json:"likes"`
	Reposts     int64    `json:"reposts"`
	Replies     int64    `json:"replies"`
}

type gapView struct {
	Platform string     `json:"platform"`
	Reason   string     `json:"reason"`
	From     time.Time  `json:"from"`
	To       *time.Time `json:"to"`
}

type insightsView struct {
	Days            int                  `json:"days"`
	From            time.Time            `json:"from"`
	To              time.Time            `json:"to"`
	Source          string               `json:"source"`
	TZ              string               `json:"tz"`
	Funnel          insights.Funnel      `json:"funnel"`
	Latency         latenciesView        `json:"latency"`
	PersonaVersions []personaVersionView `json:"persona_versions"`
	Judge           []judgeView          `json:"judge"`
	Heatmap         heatmapView          `json:"heatmap"`
	Daily           []dayView            `json:"daily"`
	Gaps            []gapView            `json:"gaps"`
	// Learning is whether the persona learns: the weekly decisions.
	Learning learningInsightsView `json:"learning"`
}

// learningInsightsView is the weekly learning series of a range.
type learningInsightsView struct {
	Weekly []insights.Week `json:"weekly"`
}

// isoWeekdays name ISO's weekdays 1 to 7.
func isoWeekdays() [7]string {
	return [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
}

// share is part / whole, nil when whole is zero.
func share(part, whole int64) *float64 {
	if whole <= 0 {
		return nil
	}
	v := float64(part) / float64(whole)
	return &v
}

// insightsAnswer answers GET /api/insights: the funnel, latencies, persona
// versions, the judge's calibration, the heatmap, the days and the metrics
// gaps of the posts the scans returned in the last days.
func (s *Server) insightsAnswer(w http.ResponseWriter, r *http.Request) error {
	rng, err := parseInsightsRange(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	now := s.now().UTC()
	key := store.InsightsKey{Days: rng.days, Source: rng.source, TZ: rng.tz}
	c, ok, err := s.store.CachedInsights(ctx, key, now.Add(-InsightsFresh))
	if err != nil {
		return err
	}
	if !ok {
		// Asked for the first time in a day, or the worker is behind: computed now.
		if c, err = s.store.ComputeInsights(ctx, key, now); err != nil {
			return err
		}
	}
	out := viewInsights(rng, c.From.UTC(), c.To.UTC(), c.Insights)
	// The weekly learning series is read for the request: a few rows a week.
	events, err := s.store.DecisionEvents(ctx, c.From, c.To, rng.source)
	if err != nil {
		return err
	}
	in := make([]insights.Event, len(events))
	for i, e := range events {
		in[i] = insights.Event(e)
	}
	loc, err := time.LoadLocation(rng.tz)
	if err != nil {
		return err
	}
	out.Learning = learningInsightsView{Weekly: insights.Weekly(in, c.From, c.To, loc)}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// InsightsFresh is how old the insights may be when answered from the
// cache: the worker computes them again at every metrics refresh
// (SCHEDULE_METRICS, every 10 minutes by default); older ones are computed
// for the request.
const InsightsFresh = 15 * time.Minute

// viewInsights shapes the store's figures as the API answers them.
func viewInsights(rng insightsRange, from, to time.Time, in store.Insights) insightsView {
	out := insightsView{Days: rng.days, From: from, To: to, Source: rng.source, TZ: rng.tz, Funnel: insights.NewFunnel(),
		PersonaVersions: []personaVersionView{}, Judge: []judgeView{}, Daily: []dayView{}, Gaps: []gapView{}}
	for _, f := range in.Fates {
		fate, reason := insights.FateOf(post.Status(f.Status), f.Reason, "", f.Approved)
		if fate == insights.FateSkipped && reason == "" {
			reason = unspecifiedReason
		}
		out.Funnel.Add(fate, reason, f.N, f.Edited, f.Autopilot)
	}
	pct := func(p store.Percentiles) latencyView { return latencyView(p) }
	out.Latency = latenciesView{MentionToDraft: pct(in.Latency.MentionToDraft), DraftToDecision: pct(in.Latency.DraftToDecision),
		DecisionToPosted: pct(in.Latency.DecisionToPosted), MentionToPosted: pct(in.Latency.MentionToPosted)}
	for _, v := range in.PersonaVersions {
		out.PersonaVersions = append(out.PersonaVersions, personaVersionView{Version: v.Version, Drafts: v.Drafts, Approved: v.Approved,
			Rejected: v.Rejected, ApprovalRate: share(v.Approved, v.Approved+v.Rejected), EditRate: share(v.Edited, v.Approved),
			MeanReviewScore: v.MeanReview, Measured: v.Measured, MeanEngagement: v.MeanEngagement})
	}
	// Every score has its row, drafted or not: a chart of 1 to 5 needs no gaps filled.
	byScore := map[int]store.ScoreFigures{}
	for _, j := range in.Judge {
		byScore[j.Score] = j
	}
	for score := 1; score <= post.MaxReviewScore; score++ {
		j := byScore[score]
		out.Judge = append(out.Judge, judgeView{Score: score, Drafts: j.Drafts, Approved: j.Approved, Rejected: j.Rejected,
			ApprovedShare: share(j.Approved, j.Approved+j.Rejected), Measured: j.Measured, MeanEngagement: j.MeanEngagement})
	}
	out.Heatmap = heatmapView{TZ: rng.tz, Weekdays: isoWeekdays()}
	for h := range out.Heatmap.Hours {
		out.Heatmap.Hours[h] = h
	}
	for _, h := range in.Hours {
		if h.Weekday < 1 || h.Weekday > 7 || h.Hour < 0 || h.Hour > 23 {
			continue
		}
		out.Heatmap.Seen[h.Weekday-1][h.Hour] = h.Seen
		out.Heatmap.Engagement[h.Weekday-1][h.Hour] = h.MeanEngagement
		out.Heatmap.Measured[h.Weekday-1][h.Hour] = h.Measured
	}
	for _, d := range in.Days {
		var cost *float64
		if d.Posted > 0 {
			c := (d.XUSD + d.ModelUSD) / float64(d.Posted)
			cost = &c
		}
		out.Daily = append(out.Daily, dayView{Day: d.Day, Mentions: d.Seen, Posted: d.Posted, XUSD: d.XUSD, ModelUSD: d.ModelUSD,
			CostPerPost: cost, Measured: d.Measured, Likes: d.Likes, Reposts: d.Retweets, Replies: d.Replies})
	}
	for _, g := range in.Gaps {
		out.Gaps = append(out.Gaps, gapView{Platform: g.Platform, Reason: g.Reason, From: g.StartedAt.UTC(), To: utc(g.EndedAt)})
	}
	return out
}

// seenView answers GET /api/mentions/lookup for a post a scan returned.
type seenView struct {
	Seen           bool      `json:"seen"`
	PlatformPostID string    `json:"platform_post_id"`
	Status         string    `json:"status"`
	Reason         string    `json:"reason"`
	SeenAt         time.Time `json:"seen_at"`
	// PostID is the post's row, null for a post dropped before recording.
	PostID *int64 `json:"post_id"`
}

// unseenView answers GET /api/mentions/lookup for a post no scan returned
// (or whose ledger entry was pruned): the last mentions scan and the newest
// post id it covered, null and "" before any.
type unseenView struct {
	Seen           bool       `json:"seen"`
	PlatformPostID string     `json:"platform_post_id"`
	LastScanAt     *time.Time `json:"last_scan_at"`
	NewestID       string     `json:"newest_id"`
}

// parseRef reads a post reference as the operator pastes it, with the
// platform it names: the first running platform of the table whose
// reference parser reads it (an id or X address is X's, the sandbox's
// when it runs without X; a Bluesky address or at:// URI Bluesky's).
func (s *Server) parseRef(q string) (platform, id string, ok bool) {
	for _, d := range post.Descriptors() {
		if !slices.Contains(s.platforms, d.Name) {
			continue
		}
		if id, ok := d.ParseRef(q); ok {
			return d.Name, id, true
		}
	}
	return "", "", false
}

// refForms is the error of a lookup's q that no running platform reads:
// what a reference may be, by the table's RefForm of each.
func (s *Server) refForms() string {
	var forms []string
	for _, d := range post.Descriptors() {
		if d.RefForm != "" && slices.Contains(s.platforms, d.Name) {
			forms = append(forms, "on "+d.Label+" ("+d.RefForm+")")
		}
	}
	if len(forms) == 0 {
		return "q must be a post's id"
	}
	return "q must be a post's id or its address " + strings.Join(forms, " or ")
}

// mentionsTimeline names the mentions scan's cursor and last run.
const mentionsTimeline = "mentions"

// lookupMention answers what became of the post q names: its id or its
// address on X, or its at:// URI or address on Bluesky.
func (s *Server) lookupMention(w http.ResponseWriter, r *http.Request) error {
	platform, id, ok := s.parseRef(r.URL.Query().Get("q"))
	if !ok {
		return badRequest("%s", s.refForms())
	}
	ctx := r.Context()
	f, err := s.store.LookupPost(ctx, platform, id)
	switch {
	case err == nil:
		out := seenView{Seen: true, PlatformPostID: id, Status: f.Status, Reason: f.Reason, SeenAt: f.SeenAt.UTC()}
		if f.PostID != 0 {
			out.PostID = &f.PostID
		}
		respondJSON(w, http.StatusOK, out)
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	out := unseenView{PlatformPostID: id}
	last, err := s.store.LastScanOf(ctx, platform, mentionsTimeline)
	switch {
	case err == nil:
		at := last.At.UTC()
		out.LastScanAt, out.NewestID = &at, last.NewestID
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}
