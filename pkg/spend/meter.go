package spend

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Totals sums what was spent, the reading half of a Ledger (the web tier
// reads the spending it never records).
type Totals interface {
	// SpendTotals sums what was spent from since.
	SpendTotals(ctx context.Context, since time.Time) (Sums, error)
}

// Ledger keeps the record of what was spent (*Store is one).
type Ledger interface {
	Totals
	// RecordXCall records a billed call of X.
	RecordXCall(ctx context.Context, c XCall) (XCallBilled, error)
	// RecordModelUsage records the tokens of one answer of the model.
	RecordModelUsage(ctx context.Context, u ModelUsage) error
}

// Counters are the figures /metrics exports (see NewCounters).
type Counters interface {
	// AddX counts a call of endpoint, its newly billed resources and their price.
	AddX(endpoint string, resources int, usd float64)
	// AddModel counts an answer of model, its tokens and their price.
	AddModel(model string, prompt, completion int, usd float64)
}

// Meter records what the persona spends, in the ledger and in counters.
type Meter struct {
	Ledger   Ledger
	Prices   Prices
	Counters Counters
	Log      *slog.Logger
	Now      func() time.Time
}

// Resources are the resources of one kind a call of X returned or made.
type Resources struct {
	Kind Kind
	IDs  []string
}

// Bill records one call of X's endpoint that returned (or made) groups of
// resources, the first of the call's own kind (the posts of data), the
// others those X bills with it (the users and posts of includes); each
// resource is billed once per UTC day. A failure to record is logged: the
// call went out either way.
func (m *Meter) Bill(ctx context.Context, endpoint string, groups []Resources) {
	call := XCall{At: m.Now(), Endpoint: endpoint}
	for i, g := range groups {
		if i == 0 {
			call.Kind, call.ResourceIDs, call.UnitUSD = string(g.Kind), g.IDs, m.Prices.Unit(g.Kind)
			continue
		}
		call.Also = append(call.Also, XResources{Kind: string(g.Kind), ResourceIDs: g.IDs, UnitUSD: m.Prices.Unit(g.Kind)})
	}
	billed, err := m.Ledger.RecordXCall(ctx, call)
	if err != nil {
		m.Log.ErrorContext(ctx, "spend: X call not recorded", "endpoint", endpoint, "error", err)
		return
	}
	if m.Counters != nil {
		m.Counters.AddX(endpoint, billed.Resources, billed.USD)
	}
}

// Usage records the tokens one answer of model used (the writer's usage
// report), priced per million tokens.
func (m *Meter) Usage(ctx context.Context, model string, promptTokens, completionTokens int) {
	usd := m.Prices.ModelCost(promptTokens, completionTokens)
	err := m.Ledger.RecordModelUsage(ctx, ModelUsage{
		At: m.Now(), Model: model, PromptTokens: promptTokens, CompletionTokens: completionTokens, USD: usd,
	})
	if err != nil {
		m.Log.ErrorContext(ctx, "spend: model usage not recorded", "model", model, "error", err)
		return
	}
	if m.Counters != nil {
		m.Counters.AddModel(model, promptTokens, completionTokens, usd)
	}
}

// Spent is what was spent today and this month (UTC), on X and the model.
type Spent struct {
	Today, Month Sums
}

// Spent sums today's and this month's spending as of now.
func (m *Meter) Spent(ctx context.Context) (Spent, error) {
	return SpentAt(ctx, m.Ledger, m.Now())
}

// SpentAt sums today's and this month's spending (UTC) in t as of now.
func SpentAt(ctx context.Context, t Totals, now time.Time) (Spent, error) {
	day, month := Periods(now)
	today, err := t.SpendTotals(ctx, day)
	if err != nil {
		return Spent{}, fmt.Errorf("spend: today: %w", err)
	}
	mtd, err := t.SpendTotals(ctx, month)
	if err != nil {
		return Spent{}, fmt.Errorf("spend: month: %w", err)
	}
	return Spent{Today: today, Month: mtd}, nil
}

// Projection extrapolates this month's spending, X and model together, to
// the month's end as of now.
func (s Spent) Projection(now time.Time) float64 {
	return Projection(s.Month.XUSD+s.Month.ModelUSD, now)
}

// Periods are the starts of now's UTC day and month.
func Periods(now time.Time) (day, month time.Time) {
	u := now.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC), time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Projection extrapolates month-to-date spending to the month's end.
func Projection(monthToDate float64, now time.Time) float64 {
	_, start := Periods(now)
	end := start.AddDate(0, 1, 0)
	elapsed := now.UTC().Sub(start)
	if elapsed < time.Hour {
		// Too little of the month has passed to extrapolate from.
		elapsed = time.Hour
	}
	return monthToDate * float64(end.Sub(start)) / float64(elapsed)
}

// ScanBlocked reports why scans must stop (an X ceiling reached), "" when
// they may go on.
func (b Budgets) ScanBlocked(s Spent) string {
	switch {
	case b.XDaily > 0 && s.Today.XUSD >= b.XDaily:
		return "the daily X budget is spent"
	case b.XMonthly > 0 && s.Month.XUSD >= b.XMonthly:
		return "the monthly X budget is spent"
	}
	return ""
}

// SendFits reports whether a send costing usd stays within the X ceilings.
func (b Budgets) SendFits(s Spent, usd float64) bool {
	return Fits(s.Today.XUSD, usd, b.XDaily) && Fits(s.Month.XUSD, usd, b.XMonthly)
}

// ModelBlocked reports why drafting must stop (a model ceiling reached),
// "" when it may go on.
func (b Budgets) ModelBlocked(s Spent) string {
	switch {
	case b.ModelDaily > 0 && s.Today.ModelUSD >= b.ModelDaily:
		return "the daily model budget is spent"
	case b.ModelMonthly > 0 && s.Month.ModelUSD >= b.ModelMonthly:
		return "the monthly model budget is spent"
	}
	return ""
}
