package api

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/spend"
	"infernal/pkg/store"
)

type periodSpend struct {
	XUSD     float64 `json:"x_usd"`
	ModelUSD float64 `json:"model_usd"`
}

type budgetView struct {
	// DailyUSD and MonthlyUSD are the X ceilings, null when none.
	DailyUSD        *float64 `json:"daily_usd"`
	MonthlyUSD      *float64 `json:"monthly_usd"`
	ModelDailyUSD   *float64 `json:"model_daily_usd"`
	ModelMonthlyUSD *float64 `json:"model_monthly_usd"`
}

type endpointSpendView struct {
	// Platform is the platform billed: X, the only one with a per-call fee.
	Platform  string  `json:"platform"`
	Endpoint  string  `json:"endpoint"`
	Calls     int     `json:"calls"`
	Resources int     `json:"resources"`
	USD       float64 `json:"usd"`
}

type modelSpendView struct {
	Model            string  `json:"model"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	USD              float64 `json:"usd"`
}

type windowView struct {
	// Platform is the platform whose window it is (windowPlatform), ""
	// for the model provider's.
	Platform  string    `json:"platform"`
	Endpoint  string    `json:"endpoint"`
	Limit     int       `json:"limit"`
	Remaining int       `json:"remaining"`
	ResetAt   time.Time `json:"reset_at"`
	Open      bool      `json:"open"`
}

// pauseView is a pause of scanning and sending.
type pauseView struct {
	// Platform names the platform paused, "" for every platform.
	Platform string     `json:"platform"`
	Reason   string     `json:"reason"`
	Since    time.Time  `json:"since"`
	Until    *time.Time `json:"until"`
}

// backlogView is what the scans of one timeline left for later (open gaps,
// reads put off for the budget) or gave up (gaps the platform refused).
// timelinePauseView is a pause of one timeline's scans.
type timelinePauseView struct {
	Platform string    `json:"platform"`
	Timeline string    `json:"timeline"`
	Reason   string    `json:"reason"`
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
}

type backlogView struct {
	Platform     string `json:"platform"`
	Timeline     string `json:"timeline"`
	OpenGaps     int    `json:"open_gaps"`
	SkippedReads int64  `json:"skipped_reads"`
	DroppedGaps  int64  `json:"dropped_gaps"`
	LastReason   string `json:"last_reason"`
}

type spendView struct {
	Today         periodSpend         `json:"today"`
	Month         periodSpend         `json:"month"`
	ProjectionUSD float64             `json:"projection_usd"`
	Budget        budgetView          `json:"budget"`
	ByEndpoint    []endpointSpendView `json:"by_endpoint"`
	ByModel       []modelSpendView    `json:"by_model"`
	Windows       []windowView        `json:"windows"`
	// Paused is the pause of every platform when there is one, else the
	// first platform's (Pauses[0]); null when none.
	Paused *pauseView `json:"paused"`
	// Pauses are all the pauses in force, the every-platform one first,
	// then by platform.
	Pauses []pauseView `json:"pauses"`
	// TimelinePauses are the timelines whose scans are paused (the
	// platform rejects their request), each until it lapses.
	TimelinePauses []timelinePauseView `json:"timeline_pauses"`
	Backlog        []backlogView       `json:"backlog"`
	Sends          sendsView           `json:"sends"`
	Drafts         draftsView          `json:"drafts"`
	// ByPlatform is the spend and the rate-limit windows of each platform:
	// the ones configured, in order, then any other the ledger or the
	// windows name.
	ByPlatform []platformSpendView `json:"by_platform"`
	// ModelVision says whether drafts send images to the model, and which
	// models were found to take none.
	ModelVision modelVisionView `json:"model_vision"`
}

// modelVisionView is MODEL_VISION and what it found.
type modelVisionView struct {
	// Mode is MODEL_VISION: "true", "false" or "auto".
	Mode string `json:"mode"`
	// WithoutImages are the models that refused images under auto, by
	// name: drafts for them go without images (their descriptions stay in
	// the prompt) since then.
	WithoutImages []modelWithoutImagesView `json:"without_images"`
}

// modelWithoutImagesView is a model found to take no image input.
type modelWithoutImagesView struct {
	Model string `json:"model"`
	// Since is when it refused images first; null when unknown.
	Since *time.Time `json:"since"`
}

// visionView is how drafts send images, and the models found to take none.
func (s *Server) visionView(ctx context.Context) (modelVisionView, error) {
	out := modelVisionView{Mode: s.modelVision, WithoutImages: []modelWithoutImagesView{}}
	if out.Mode == "" {
		out.Mode = "auto"
	}
	if s.blind == nil {
		return out, nil
	}
	models, err := s.blind.ModelsWithoutImages(ctx)
	if err != nil {
		return out, err
	}
	for _, name := range slices.Sorted(maps.Keys(models)) {
		v := modelWithoutImagesView{Model: name}
		if at := models[name]; !at.IsZero() {
			u := at.UTC()
			v.Since = &u
		}
		out.WithoutImages = append(out.WithoutImages, v)
	}
	return out, nil
}

// platformSpendView is what one platform cost (Bluesky has no per-call
// fee: 0) and how its rate-limit windows stand.
type platformSpendView struct {
	Platform string  `json:"platform"`
	TodayUSD float64 `json:"today_usd"`
	MonthUSD float64 `json:"month_usd"`
	// Calls counts the month's billed calls.
	Calls int `json:"calls"`
	// Windows and WindowsClosed count the platform's windows known and
	// those closed now.
	Windows       int `json:"windows"`
	WindowsClosed int `json:"windows_closed"`
}

// modelWindowPrefix starts the names of the model provider's windows in
// pkg/ratelimit; a platform's are its descriptor's (Descriptor.OwnsWindow).
const modelWindowPrefix = "model "

// windowPlatform is the platform a rate-limit window belongs to, "" for
// the model provider's; a window no descriptor owns is the billed
// platform's (X's), whose windows are named by its API's paths.
func windowPlatform(endpoint string) string {
	if strings.HasPrefix(endpoint, modelWindowPrefix) {
		return ""
	}
	for _, d := range post.Descriptors() {
		if d.OwnsWindow(endpoint) {
			return d.Name
		}
	}
	return post.Billed()
}

// byPlatform sums out's ledger lines and windows by platform, over the
// platforms configured and any other they name; spent is X's (the ledger
// holds X's calls alone).
func (s *Server) byPlatform(out spendView, spent spend.Spent) []platformSpendView {
	lines := []platformSpendView{}
	at := map[string]int{}
	line := func(p string) *platformSpendView {
		i, ok := at[p]
		if !ok {
			i = len(lines)
			at[p] = i
			lines = append(lines, platformSpendView{Platform: p})
		}
		return &lines[i]
	}
	for _, p := range s.platforms {
		line(p)
	}
	if len(out.ByEndpoint) > 0 || spent.Month.XUSD > 0 {
		x := line(post.Billed())
		x.TodayUSD, x.MonthUSD = spent.Today.XUSD, spent.Month.XUSD
		for _, e := range out.ByEndpoint {
			x.Calls += e.Calls
		}
	}
	for _, w := range out.Windows {
		if w.Platform == "" {
			continue
		}
		l := line(w.Platform)
		l.Windows++
		if !w.Open {
			l.WindowsClosed++
		}
	}
	return lines
}

// draftsView is how drafting stands: the first drafts of the last hour
// against caps.drafts_per_hour, the posts waiting for their draft, and why
// they wait ("" while they are simply being drafted).
type draftsView struct {
	LastHour int    `json:"last_hour"`
	PerHour  int    `json:"per_hour"`
	Waiting  int    `json:"waiting"`
	Reason   string `json:"reason"`
}

// draftsWaitCap is draftsView.Reason when the hour's cap holds drafts back;
// a spent model budget is named in its own words.
const draftsWaitCap = "the hour's draft cap (caps.drafts_per_hour) is reached"

// sendsView is how the send caps stand: the sends of the last 3 and 24
// hours against their caps, and the approvals they hold.
type sendsView struct {
	Last3Hours   int `json:"last_3h"`
	Last24h      int `json:"last_24h"`
	CapPer3Hours int `json:"cap_3h"`
	CapPerDay    int `json:"cap_24h"`
	Queued       int `json:"queued"`
}

// ceiling is a budget as the API shows it: null when there is none.
func ceiling(usd float64) *float64 {
	if usd <= 0 {
		return nil
	}
	return &usd
}

// spend answers what the persona costs: today, this month (by endpoint and
// by model), the projection to the month's end, the ceilings, the shared
// rate-limit windows, the pauses (of a platform, of every platform, of a
// timeline), and how the send caps stand.
func (s *Server) spend(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	now := s.now()
	spent, err := spend.SpentAt(ctx, s.store, now)
	if err != nil {
		return err
	}
	mtd := spent.Month
	out := spendView{
		Today:         periodSpend{XUSD: spent.Today.XUSD, ModelUSD: spent.Today.ModelUSD},
		Month:         periodSpend{XUSD: mtd.XUSD, ModelUSD: mtd.ModelUSD},
		ProjectionUSD: spent.Projection(now),
		Budget: budgetView{DailyUSD: ceiling(s.budgets.XDaily), MonthlyUSD: ceiling(s.budgets.XMonthly),
			ModelDailyUSD: ceiling(s.budgets.ModelDaily), ModelMonthlyUSD: ceiling(s.budgets.ModelMonthly)},
		ByEndpoint: []endpointSpendView{}, ByModel: []modelSpendView{}, Windows: []windowView{}, Backlog: []backlogView{},
	}
	skips, err := s.store.AllScanSkips(ctx)
	if err != nil {
		return err
	}
	for _, k := range skips {
		out.Backlog = append(out.Backlog, backlogView{Platform: k.Platform, Timeline: k.Name, OpenGaps: k.OpenGaps,
			SkippedReads: k.SkippedReads, DroppedGaps: k.DroppedGaps, LastReason: k.LastReason})
	}
	for _, e := range mtd.ByEndpoint {
		out.ByEndpoint = append(out.ByEndpoint, endpointSpendView{Platform: post.Billed(), Endpoint: e.Endpoint,
			Calls: e.Calls, Resources: e.Resources, USD: e.USD})
	}
	for _, m := range mtd.ByModel {
		out.ByModel = append(out.ByModel, modelSpendView(m))
	}
	if s.windows != nil {
		ws, err := s.windows.Windows(ctx)
		if err != nil {
			return err
		}
		for _, wd := range ws {
			out.Windows = append(out.Windows, windowView{Platform: windowPlatform(wd.Endpoint), Endpoint: wd.Endpoint, Limit: wd.Limit, Remaining: wd.Remaining,
				ResetAt: wd.ResetAt, Open: wd.Open(s.windows.Margin(), now)})
		}
	}
	pauses, err := s.store.ActivePauses(ctx, now)
	if err != nil {
		return err
	}
	out.Pauses = make([]pauseView, 0, len(pauses))
	for _, p := range pauses {
		out.Pauses = append(out.Pauses, pauseView{Platform: p.Platform, Reason: p.Reason, Since: p.Since.UTC(), Until: utc(p.Until)})
	}
	if len(out.Pauses) > 0 {
		out.Paused = &out.Pauses[0]
	}
	timelines, err := s.store.TimelinePauses(ctx, now)
	if err != nil {
		return err
	}
	out.TimelinePauses = make([]timelinePauseView, 0, len(timelines))
	for _, tp := range timelines {
		out.TimelinePauses = append(out.TimelinePauses, timelinePauseView{Platform: tp.Platform, Timeline: tp.Timeline,
			Reason: tp.Reason, Since: tp.Since.UTC(), Until: tp.Until.UTC()})
	}
	sends, err := s.store.SendCounts(ctx)
	if err != nil {
		return err
	}
	set, err := s.store.Settings(ctx)
	if err != nil {
		return err
	}
	out.Sends = sendsView{Last3Hours: sends.Last3Hours, Last24h: sends.Last24h, Queued: sends.Queued,
		CapPer3Hours: set.Caps.SendsPer3Hours, CapPerDay: set.Caps.SendsPerDay}
	drafted, waiting, err := s.store.DraftCounts(ctx, now.Add(-time.Hour))
	if err != nil {
		return err
	}
	out.Drafts = draftsView{LastHour: drafted, PerHour: set.Caps.DraftsPerHour, Waiting: waiting}
	switch {
	case waiting == 0:
	case drafted >= set.Caps.DraftsPerHour:
		out.Drafts.Reason = draftsWaitCap
	default:
		// The budget's own words: "the daily model budget is spent".
		out.Drafts.Reason = s.budgets.ModelBlocked(spent)
	}
	out.ByPlatform = s.byPlatform(out, spent)
	if out.ModelVision, err = s.visionView(ctx); err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// pause stops scanning and sending on every platform, as the operator's
// /pause in Telegram does, until resumed; a pause in force keeps its start.
func (s *Server) pause(w http.ResponseWriter, r *http.Request) error {
	var req struct{}
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	if err := s.store.SetPause(r.Context(), store.Pause{Refusal: store.OperatorRefusal, Reason: "paused from the admin"}); err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, map[string]bool{"paused": true})
	return nil
}

// resume lifts every pause of scanning and sending, of one platform or of all.
func (s *Server) resume(w http.ResponseWriter, r *http.Request) error {
	var req struct{}
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	lifted, err := s.store.Resume(r.Context())
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, map[string]bool{"resumed": lifted})
	return nil
}
